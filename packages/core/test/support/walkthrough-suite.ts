// The reference walkthroughs' paths as one suite, run with any judge against the local server: OpenAIJudge in core,
// aiSdkJudge in @judgetree/ai-sdk. Every judge must give the same scores, judge calls and prompts on every path.
import type { OpenAIServer } from '@judgetree/test-support'
import { describe, expect, test } from 'vitest'
import { ConversationalDAGMetric, DAGMetric, type JudgeModel } from '../../src/index.js'
import {
  MEETING,
  meetingSummary,
  meetingSummaryDag,
  meetingSummaryDagTopDown,
  PLAYFUL,
  playfulChatbotDag,
  playfulChatbotDagTopDown,
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
  const playfulBuilds = [
    ['as printed (bottom-up)', playfulChatbotDag],
    ['top-down', playfulChatbotDagTopDown],
  ] as const
  describe.each(playfulBuilds)(`playful chatbot (ConversationalDAGMetric) built %s, through ${through}`, (_, build) => {
    const metric = () => new ConversationalDAGMetric({ name: 'Playful Chatbot', dag: build(), model: judge() })

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

  const meetingBuilds = [
    ['as printed (bottom-up)', meetingSummaryDag],
    ['top-down', meetingSummaryDagTopDown],
  ] as const
  describe.each(meetingBuilds)(`meeting-summary headings (DAGMetric) built %s, through ${through}`, (_, build) => {
    const metric = () => new DAGMetric({ name: 'Format Correctness', dag: build(), model: judge() })
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

  describe(`both ways of building the walkthroughs give the same measurement, through ${through}`, () => {
    /** One measurement's observable output, less the latencies (timing, not behaviour). */
    const observe = async (metric: DAGMetric | ConversationalDAGMetric, testCase: never) => {
      server().requests.length = 0
      const result = await metric.measure(testCase)
      return {
        score: result.score,
        success: result.success,
        reason: result.reason,
        usage: result.usage,
        verboseLogs: result.verboseLogs,
        trace: { ...result.trace, nodes: result.trace.nodes.map(({ latencyMs: _, ...node }) => node) },
        prompts: server().requests.map((request) => request.body),
      }
    }

    test.each([
      ['Yes', 1],
      ['All out of order', 0.2],
    ])('meeting summary, order %j: same score, calls, prompts, trace, JSON and Mermaid', async (order, score) => {
      server().respondWith(
        routeByPrompt([
          [MEETING.extract, { output: 'Intro, Body, Conclusion' }],
          [MEETING.present, { reason: 'All three are there.', verdict: true }],
          [MEETING.order, { reason: `Order: ${order}.`, verdict: order }],
        ]),
      )
      const [printed, topDown] = [meetingSummaryDag(), meetingSummaryDagTopDown()]
      const measure = (dag: typeof printed) =>
        observe(new DAGMetric({ name: 'Format Correctness', dag, model: judge() }), meetingSummary as never)
      const fromPrinted = await measure(printed)
      const fromTopDown = await measure(topDown)
      expect(fromPrinted.score).toBe(score)
      expect(fromPrinted.prompts).toHaveLength(3)
      expect(fromTopDown).toEqual(fromPrinted)
      expect(topDown.toJSON()).toEqual(printed.toJSON())
      expect(topDown.toMermaid()).toBe(printed.toMermaid())
      expect(topDown.toMermaid({ trace: fromTopDown.trace as never })).toBe(
        printed.toMermaid({ trace: fromPrinted.trace as never }),
      )
    })

    test('playful chatbot: same score, calls, prompts, trace, JSON and Mermaid', async () => {
      server().respondWith(
        routeByPrompt([
          [PLAYFUL.summary, PLAYFUL_SUMMARY],
          [PLAYFUL.satisfied, { reason: 'Every question got an answer.', verdict: true }],
          [PLAYFUL.behaviour, { reason: 'Teasing but friendly.', verdict: 'Playful' }],
        ]),
      )
      const [printed, topDown] = [playfulChatbotDag(), playfulChatbotDagTopDown()]
      const measure = (dag: typeof printed) =>
        observe(
          new ConversationalDAGMetric({ name: 'Playful Chatbot', dag, model: judge() }),
          playfulConversation as never,
        )
      const fromPrinted = await measure(printed)
      const fromTopDown = await measure(topDown)
      expect(fromPrinted.score).toBe(1)
      expect(fromPrinted.prompts).toHaveLength(3)
      expect(fromTopDown).toEqual(fromPrinted)
      expect(topDown.toJSON()).toEqual(printed.toJSON())
      expect(topDown.toMermaid()).toBe(printed.toMermaid())
    })
  })
}
