// The reference walkthroughs with aiSdkDecisionJudge and @ai-sdk/openai's decisionModel as the decision judge,
// against the local server: the same suite, and so the same walks and scores, as OpenAIDecisionJudge in core.
import { createOpenAI } from '@ai-sdk/openai'
import { type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll } from 'vitest'
import type { JudgeModel } from '../../core/src/index.js'
import { describeDecisionWalkthroughs } from '../../core/test/support/decision-walkthrough-suite.js'
import { aiSdkDecisionJudge, aiSdkJudge } from '../src/index.js'

let server: OpenAIServer
let chat: JudgeModel
let decider: JudgeModel

beforeAll(async () => {
  server = await startOpenAIServer()
  const openai = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test-decision-walkthrough' })
  chat = aiSdkJudge(openai.chat('gpt-4.1'), { maxRetries: 0 })
  decider = aiSdkDecisionJudge(openai.decisionModel('gpt-6-luna'), { maxRetries: 0 })
})
afterAll(() => server.close())

describeDecisionWalkthroughs('aiSdkDecisionJudge and @ai-sdk/openai', {
  server: () => server,
  chat: () => chat,
  decider: () => decider,
})
