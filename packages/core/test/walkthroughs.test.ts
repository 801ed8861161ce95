// The reference walkthroughs through the real OpenAI SDK: every path (test/support/walkthrough-suite.ts, which
// @judgetree/ai-sdk runs with its judge too), then what only OpenAIJudge shows.
import { type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ConversationalDAGMetric, OpenAIJudge } from '../src/index.js'
import { describeWalkthroughs, PLAYFUL_SUMMARY as summary } from './support/walkthrough-suite.js'
import { PLAYFUL, playfulChatbotDag, playfulConversation, routeByPrompt } from './support/walkthroughs.js'

let server: OpenAIServer
let judge: OpenAIJudge

beforeAll(async () => {
  server = await startOpenAIServer()
  judge = new OpenAIJudge({ model: 'gpt-4.1', baseURL: server.baseURL, apiKey: 'sk-test-walkthrough', maxRetries: 0 })
})
afterAll(() => server.close())

describeWalkthroughs('the OpenAI SDK', { server: () => server, judge: () => judge })

describe('playful chatbot through the OpenAI SDK: errors and trace', () => {
  const metric = () => new ConversationalDAGMetric({ name: 'Playful Chatbot', dag: playfulChatbotDag(), model: judge })

  test('an answer outside the behaviour options, twice, fails the measurement naming the node and the options', async () => {
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
    expect(result.error?.node).toBe(
      `ConversationalNonBinaryJudgementNode (criteria: "How was the assistant's behaviour towards user?")`,
    )
    expect(result.error?.message).toMatchInlineSnapshot(`
      "ConversationalNonBinaryJudgementNode (criteria: "How was the assistant's behaviour towards user?") failed: The judge model "gpt-4.1" did not answer with valid "non_binary_verdict" JSON, even after being asked again: it does not match the schema:
      ✖ Invalid option: expected one of "Rude"|"Neutral"|"Playful"
        → at verdict
      Raw answer: "{\\"reason\\":\\"Cheeky.\\",\\"verdict\\":\\"Sarcastic\\"}""
    `)
  })

  test('the trace says the behaviour judgement was shown what the satisfaction judgement was shown', async () => {
    server.respondWith(
      routeByPrompt([
        [PLAYFUL.summary, summary],
        [PLAYFUL.satisfied, { reason: 'Every question got an answer.', verdict: true }],
        [PLAYFUL.behaviour, { reason: 'Teasing but friendly.', verdict: 'Playful' }],
      ]),
    )
    const result = await metric().measure(playfulConversation)
    const byText = (text: string) => result.trace.nodes.find((node) => node.text === text)
    expect(byText(PLAYFUL.behaviour)).toMatchObject({
      inputFrom: byText(PLAYFUL.satisfied)?.id,
      inputs: [byText(PLAYFUL.summary)?.id],
    })
    expect(result.verboseLogs).toMatchInlineSnapshot(`
      "[1] Task: Summarize the conversation and explain assistant's behaviour overall. · 1 judge call
      │    Summary: The user asked about the weather; the assistant teased them but answered.
      └─ [2] Judgement: Do the assistant's replies satisfy user's questions? → true · 1 judge call
         │    reason: Every question got an answer.
         ├─ ○ false → 0
         └─ ● true
            └─ [3] Judgement: How was the assistant's behaviour towards user? → Playful · 1 judge call
               │    input: what [2] was shown (Summary)
               │    reason: Teasing but friendly.
               ├─ ○ Rude → 0
               ├─ ○ Neutral → 5
               └─ ● Playful → 10  ◀ score 1"
    `)
  })
})
