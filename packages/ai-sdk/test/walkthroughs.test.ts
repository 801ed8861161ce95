// The reference walkthroughs of packages/core/test/walkthroughs.test.ts, judged through aiSdkJudge against the local
// server: the same DAGs, the same scripted answers and the same scores per path as through OpenAIJudge. The helpers
// build the DAGs from core's source, so the metrics come from there too (the test project maps @judgetree/core to
// the same files, so there is one copy of every class).
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ConversationalDAGMetric, type JudgeModel } from '../../core/src/index.js'
import { describeWalkthroughs, PLAYFUL_SUMMARY as summary } from '../../core/test/support/walkthrough-suite.js'
import { PLAYFUL, playfulChatbotDag, playfulConversation, routeByPrompt } from '../../core/test/support/walkthroughs.js'
import { aiSdkJudge } from '../src/index.js'

let server: OpenAIServer
beforeAll(async () => {
  server = await startOpenAIServer()
})
afterAll(() => server.close())

const providers: [string, () => JudgeModel][] = [
  [
    '@ai-sdk/openai',
    () =>
      aiSdkJudge(createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test-walkthrough' }).chat('gpt-4.1'), {
        maxRetries: 0,
      }),
  ],
  [
    '@ai-sdk/openai-compatible',
    () =>
      aiSdkJudge(
        createOpenAICompatible({ name: 'local', baseURL: server.baseURL, supportsStructuredOutputs: true }).chatModel(
          'gpt-4.1',
        ),
        { maxRetries: 0 },
      ),
  ],
]

for (const [provider, judge] of providers) {
  describeWalkthroughs(`aiSdkJudge and ${provider}`, { server: () => server, judge })
}

describe.each(providers)('playful chatbot through aiSdkJudge and %s: errors', (_, judge) => {
  const metric = () =>
    new ConversationalDAGMetric({ name: 'Playful Chatbot', dag: playfulChatbotDag(), model: judge() })

  test('an answer outside the behaviour options, twice, fails the measurement naming the node, the provider and the options', async () => {
    server.requests.length = 0
    server.respondWith(
      routeByPrompt([
        [PLAYFUL.summary, summary],
        [PLAYFUL.satisfied, { reason: 'Answered.', verdict: true }],
        [PLAYFUL.behaviour, { reason: 'Cheeky.', verdict: 'Sarcastic' }],
      ]),
    )
    const result = await metric().measure(playfulConversation)
    expect(server.requests).toHaveLength(4) // the behaviour judgement is asked again once
    expect(result.success).toBe(false)
    expect(result.error?.code).toBe('JUDGE_OUTPUT_INVALID')
    expect(result.error?.name).toBe('JudgeOutputError')
    expect(result.error?.message).toContain(
      'did not answer with valid "non_binary_verdict" JSON, even after being asked again: it does not match the schema:\n' +
        '✖ Invalid option: expected one of "Rude"|"Neutral"|"Playful"\n  → at verdict',
    )
    expect(result.error?.message).toMatch(/The judge model "gpt-4\.1" \(AI SDK provider (openai|local)\.chat\)/)
  })
})
