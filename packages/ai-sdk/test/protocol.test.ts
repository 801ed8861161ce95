// The protocol suite core runs against OpenAIJudge and a test transport, here against aiSdkJudge through the real
// @ai-sdk/openai provider and the same local server.
import { createOpenAI } from '@ai-sdk/openai'
import { judgeProtocolSuite } from '@judgetree/test-support'
import { aiSdkJudge } from '../src/index.js'

judgeProtocolSuite('aiSdkJudge through @ai-sdk/openai', ({ baseURL, apiKey, warn }) =>
  aiSdkJudge(createOpenAI({ baseURL, apiKey }).chat('gpt-4.1'), { warn, maxRetries: 0 }),
)
