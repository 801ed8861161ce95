// The reference walkthroughs' paths as one suite, run with any judge against the local server: OpenAIJudge in core,
// aiSdkJudge in @judgetree/ai-sdk. Every judge must give the same scores, judge calls and prompts on every path.
import type { OpenAIServer } from '@judgetree/test-support'
import { describe, expect, test } from 'vitest'
import { ConversationalDAGMetric, DAGMetric, type JudgeModel } from '../../src/index.js'
import {
  MEETING,
  meetingSummary,
  meetingSummaryDag,
  PLAYFUL,
  playfulChatbotDag,
  playfulConversation,
  promptData,
  routeByPrompt,
} from './walkthroughs.js'

/** The summary the playful-chatbot's task answers on every path. */
export const PLAYFUL_SUMMARY = {
  output: 'The user asked about the weather; the assistant teased them but answered.',
}

/** The local server the suite scripts, and the judge under test (built per test, after the server started). */
export interface WalkthroughJudge {
  readonly server: () => OpenAIServer
  readonly judge: () => JudgeModel
}

/** Every path of both reference DAGs, with its score, judge calls and what the judge was shown. */
export function describeWalkthroughs(through: string, { server, judge }: WalkthroughJudge): void {
  describe(`playful chatbot (ConversationalDAGMetric) through ${through}`, () => {
    const metric = () =>
      new ConversationalDAGMetric({ name: 'Playful Chatbot', dag: playfulChatbotDag(), model: judge() })

    test('not satisfied → 0, after 2 judge calls (the behaviour judgement is never asked)', async () => {
      server().requests.length = 0
      server().respondWith(
        routeByPrompt([
          [PLAYFUL.summary, PLAYFUL_SUMMARY],
          [PLAYFUL.satisfied, { reason: 'The umbrella question was dodged.', verdict: false }],
        ]),
      )
      const result = await metric().measure(playfulConversation)
      expect(result.error).toBeUndefined()
      expect(result.score).toBe(0)
      expect(result.success).toBe(false)
      expect(server().requests).toHaveLength(2)
      expect(result.usage.judgeCalls).toBe(2)
      expect(result.reason).toContain('The umbrella question was dodged.')
      expect(result.trace.nodes.find((node) => node.text === PLAYFUL.behaviour)?.status).toBe('skipped')
    })

    test.each([
      ['Rude', 0, false],
      ['Neutral', 0.5, true],
      ['Playful', 1, true],
    ])('satisfied and %s → %s, after 3 judge calls', async (behaviour, score, success) => {
      server().requests.length = 0
      server().respondWith(
        routeByPrompt([
          [PLAYFUL.summary, PLAYFUL_SUMMARY],
          [PLAYFUL.satisfied, { reason: 'Every question got an answer.', verdict: true }],
          [PLAYFUL.behaviour, { reason: `The tone was ${behaviour}.`, verdict: behaviour }],
        ]),
      )
      const result = await metric().measure(playfulConversation)
      expect(result.error).toBeUndefined()
      expect(result.score).toBe(score)
      expect(result.success).toBe(success)
      expect(server().requests).toHaveLength(3)
      expect(result.usage).toMatchObject({ judgeCalls: 3, cachedCalls: 0, promptTokens: 30, completionTokens: 15 })
      expect(result.judgeModel).toBe('gpt-4.1')
      expect(result.verboseLogs).toContain(`● ${behaviour}`)
    })

    test('the judge sees the numbered turns and the summary, and answers against strict schemas', async () => {
      server().requests.length = 0
      server().respondWith(
        routeByPrompt([
          [PLAYFUL.summary, PLAYFUL_SUMMARY],
          [PLAYFUL.satisfied, { reason: 'ok', verdict: true }],
          [PLAYFUL.behaviour, { reason: 'ok', verdict: 'Playful' }],
        ]),
      )
      await metric().measure(playfulConversation)
      const [task, binary, nonBinary] = server().requests
      expect(promptData(task as never)).toEqual({
        Conversation: {
          window: 'turns 0 to 5 of a conversation of 6 turns (0-based)',
          turns: playfulConversation.turns.map((turn, index) => ({ index, role: turn.role, Content: turn.content })),
        },
      })
      expect(promptData(binary as never)).toEqual({ 'Outputs of earlier steps': { Summary: PLAYFUL_SUMMARY.output } })
      // As printed, the behaviour judgement names no evaluationParams and sits only under "satisfied → true": it is
      // shown what the satisfaction judgement was shown, the summary.
      expect(promptData(nonBinary as never)).toEqual({
        'Outputs of earlier steps': { Summary: PLAYFUL_SUMMARY.output },
      })
      expect(binary?.body.response_format).toMatchObject({
        type: 'json_schema',
        json_schema: { name: 'binary_verdict', strict: true },
      })
      expect(nonBinary?.body.response_format).toMatchObject({
        json_schema: { schema: { properties: { verdict: { enum: ['Rude', 'Neutral', 'Playful'] } } } },
      })
    })
  })

  describe(`meeting-summary headings (DAGMetric) through ${through}`, () => {
    const metric = () => new DAGMetric({ name: 'Format Correctness', dag: meetingSummaryDag(), model: judge() })
    const headings = { output: 'Intro, Body, Conclusion' }

    test('headings missing → 0, after 2 judge calls (the order judgement is never asked)', async () => {
      server().requests.length = 0
      server().respondWith(
        routeByPrompt([
          [MEETING.extract, headings],
          [MEETING.present, { reason: 'No conclusion heading.', verdict: false }],
        ]),
      )
      const result = await metric().measure(meetingSummary)
      expect(result.error).toBeUndefined()
      expect(result.score).toBe(0)
      expect(server().requests).toHaveLength(2)
      expect(result.trace.nodes.find((node) => node.text === MEETING.order)?.status).toBe('skipped')
    })

    test.each([
      ['Yes', 1],
      ['Two are out of order', 0.4],
      ['All out of order', 0.2],
    ])('headings present and order "%s" → %s, after 3 judge calls', async (order, score) => {
      server().requests.length = 0
      server().respondWith(
        routeByPrompt([
          [MEETING.extract, headings],
          [MEETING.present, { reason: 'All three are there.', verdict: true }],
          [MEETING.order, { reason: `Order: ${order}.`, verdict: order }],
        ]),
      )
      const result = await metric().measure(meetingSummary)
      expect(result.error).toBeUndefined()
      expect(result.score).toBe(score)
      expect(server().requests).toHaveLength(3)
      // The order judgement reads the extracted headings: it is a data child of the task as well as a verdict's child.
      expect(promptData(server().requests[2] as never)).toEqual({
        'Outputs of earlier steps': { 'Summary headings': 'Intro, Body, Conclusion' },
      })
      expect(promptData(server().requests[0] as never)).toEqual({ 'Actual Output': meetingSummary.actualOutput })
    })
  })
}
