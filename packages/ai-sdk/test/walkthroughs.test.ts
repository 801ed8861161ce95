// The reference walkthroughs of packages/core/test/walkthroughs.test.ts, judged through aiSdkJudge against the local
// server: the same DAGs, the same scripted answers and the same scores per path as through OpenAIJudge. The helpers
// build the DAGs from core's source, so the metrics come from there too (the test project maps @judgetree/core to
// the same files, so there is one copy of every class).
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ConversationalDAGMetric, DAGMetric, type JudgeModel } from '../../core/src/index.js'
import {
  MEETING,
  meetingSummary,
  meetingSummaryDag,
  PLAYFUL,
  playfulChatbotDag,
  playfulConversation,
  promptData,
  routeByPrompt,
} from '../../core/test/support/walkthroughs.js'
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

const summary = { output: 'The user asked about the weather; the assistant teased them but answered.' }

describe.each(providers)('playful chatbot (ConversationalDAGMetric) through aiSdkJudge and %s', (_, judge) => {
  const metric = () =>
    new ConversationalDAGMetric({ name: 'Playful Chatbot', dag: playfulChatbotDag(), model: judge() })

  test('not satisfied → 0, after 2 judge calls (the behaviour judgement is never asked)', async () => {
    server.requests.length = 0
    server.respondWith(
      routeByPrompt([
        [PLAYFUL.summary, summary],
        [PLAYFUL.satisfied, { reason: 'The umbrella question was dodged.', verdict: false }],
      ]),
    )
    const result = await metric().measure(playfulConversation)
    expect(result.error).toBeUndefined()
    expect(result.score).toBe(0)
    expect(result.success).toBe(false)
    expect(server.requests).toHaveLength(2)
    expect(result.usage.judgeCalls).toBe(2)
    expect(result.reason).toContain('The umbrella question was dodged.')
    expect(result.trace.nodes.find((node) => node.text === PLAYFUL.behaviour)?.status).toBe('skipped')
  })

  test.each([
    ['Rude', 0, false],
    ['Neutral', 0.5, true],
    ['Playful', 1, true],
  ])('satisfied and %s → %s, after 3 judge calls', async (behaviour, score, success) => {
    server.requests.length = 0
    server.respondWith(
      routeByPrompt([
        [PLAYFUL.summary, summary],
        [PLAYFUL.satisfied, { reason: 'Every question got an answer.', verdict: true }],
        [PLAYFUL.behaviour, { reason: `The tone was ${behaviour}.`, verdict: behaviour }],
      ]),
    )
    const result = await metric().measure(playfulConversation)
    expect(result.error).toBeUndefined()
    expect(result.score).toBe(score)
    expect(result.success).toBe(success)
    expect(server.requests).toHaveLength(3)
    expect(result.usage).toMatchObject({ judgeCalls: 3, cachedCalls: 0, promptTokens: 30, completionTokens: 15 })
    expect(result.judgeModel).toBe('gpt-4.1')
    expect(result.verboseLogs).toContain(`● ${behaviour}`)
  })

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

  test('the judge sees the numbered turns and the summary, and answers against strict schemas', async () => {
    server.requests.length = 0
    server.respondWith(
      routeByPrompt([
        [PLAYFUL.summary, summary],
        [PLAYFUL.satisfied, { reason: 'ok', verdict: true }],
        [PLAYFUL.behaviour, { reason: 'ok', verdict: 'Playful' }],
      ]),
    )
    await metric().measure(playfulConversation)
    const [task, binary, nonBinary] = server.requests
    expect(promptData(task as never)).toEqual({
      Conversation: {
        window: 'turns 0 to 5 of a conversation of 6 turns (0-based)',
        turns: playfulConversation.turns.map((turn, index) => ({ index, role: turn.role, Content: turn.content })),
      },
    })
    expect(promptData(binary as never)).toEqual({ 'Outputs of earlier steps': { Summary: summary.output } })
    expect(promptData(nonBinary as never)).toEqual({ 'Outputs of earlier steps': { Summary: summary.output } })
    expect(binary?.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'binary_verdict', strict: true },
    })
    expect(nonBinary?.body.response_format).toMatchObject({
      json_schema: { schema: { properties: { verdict: { enum: ['Rude', 'Neutral', 'Playful'] } } } },
    })
  })
})

describe.each(providers)('meeting-summary headings (DAGMetric) through aiSdkJudge and %s', (_, judge) => {
  const metric = () => new DAGMetric({ name: 'Format Correctness', dag: meetingSummaryDag(), model: judge() })
  const headings = { output: 'Intro, Body, Conclusion' }

  test('headings missing → 0, after 2 judge calls (the order judgement is never asked)', async () => {
    server.requests.length = 0
    server.respondWith(
      routeByPrompt([
        [MEETING.extract, headings],
        [MEETING.present, { reason: 'No conclusion heading.', verdict: false }],
      ]),
    )
    const result = await metric().measure(meetingSummary)
    expect(result.error).toBeUndefined()
    expect(result.score).toBe(0)
    expect(server.requests).toHaveLength(2)
    expect(result.trace.nodes.find((node) => node.text === MEETING.order)?.status).toBe('skipped')
  })

  test.each([
    ['Yes', 1],
    ['Two are out of order', 0.4],
    ['All out of order', 0.2],
  ])('headings present and order "%s" → %s, after 3 judge calls', async (order, score) => {
    server.requests.length = 0
    server.respondWith(
      routeByPrompt([
        [MEETING.extract, headings],
        [MEETING.present, { reason: 'All three are there.', verdict: true }],
        [MEETING.order, { reason: `Order: ${order}.`, verdict: order }],
      ]),
    )
    const result = await metric().measure(meetingSummary)
    expect(result.error).toBeUndefined()
    expect(result.score).toBe(score)
    expect(server.requests).toHaveLength(3)
    expect(promptData(server.requests[2] as never)).toEqual({
      'Outputs of earlier steps': { 'Summary headings': 'Intro, Body, Conclusion' },
    })
    expect(promptData(server.requests[0] as never)).toEqual({ 'Actual Output': meetingSummary.actualOutput })
  })
})
