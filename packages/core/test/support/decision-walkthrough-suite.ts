// The reference walkthroughs with a decision judge (`decisionModel`) against the local server, beside the chat judge
// alone: when the server's most probable decisions are the chat judge's answers, every path gives the same score
// and walk, the task goes to chat completions and every judgement to /v1/decisions. Run with OpenAIDecisionJudge in
// core and with aiSdkDecisionJudge in @judgetree/ai-sdk.
import { decideEach, mostProbable, type OpenAIServer } from '@judgetree/test-support'
import { describe, expect, test } from 'vitest'
import { ConversationalDAGMetric, DAGMetric, type JudgeModel, type MetricResult } from '../../src/index.js'
import { PLAYFUL_SUMMARY } from './walkthrough-suite.js'
import {
  MEETING,
  meetingSummary,
  meetingSummaryDag,
  PLAYFUL,
  playfulChatbotDag,
  playfulConversation,
  routeByPrompt,
} from './walkthroughs.js'

/** The local server, the chat judge the tasks go to, and the decision judge under test. */
export interface DecisionWalkthroughJudges {
  readonly server: () => OpenAIServer
  readonly chat: () => JudgeModel
  readonly decider: () => JudgeModel
}

/** A path: the task's output and each judgement's verdict, by criteria. */
interface Path {
  readonly task: readonly [string, unknown]
  readonly verdicts: Readonly<Record<string, boolean | string>>
}

/** Where a measurement went: each node's status and verdict, in trace order. */
function walk(result: MetricResult) {
  return result.trace.nodes.map((node) => ({ text: node.text, status: node.status, verdict: node.verdict }))
}

export function describeDecisionWalkthroughs(through: string, { server, chat, decider }: DecisionWalkthroughJudges) {
  /** Measures the path with the chat judge alone, then with the decision judge, counting what each asked. */
  async function both(path: Path, build: (decisionModel?: JudgeModel) => DAGMetric | ConversationalDAGMetric) {
    const testCase = (build() instanceof DAGMetric ? meetingSummary : playfulConversation) as never
    const chatRoutes = Object.entries(path.verdicts).map(
      ([criteria, verdict]) => [criteria, { reason: `Judged ${String(verdict)}.`, verdict }] as const,
    )
    server().respondWith(routeByPrompt([path.task, ...chatRoutes]))
    server().decideWith(
      decideEach((question) => {
        const verdict = path.verdicts[String(question.instructions)]
        if (verdict === undefined) throw new Error(`no verdict scripted for ${String(question.instructions)}`)
        return mostProbable(verdict, 0.85)
      }),
    )
    server().requests.length = 0
    server().decisionRequests.length = 0
    const chatOnly = await build().measure(testCase)
    const chatCalls = server().requests.length
    server().requests.length = 0
    const decided = await build(decider()).measure(testCase)
    return {
      chatOnly,
      decided,
      chatCalls,
      hybridChatCalls: server().requests.length,
      decisionRequests: server().decisionRequests.length,
    }
  }

  const playful = (decisionModel?: JudgeModel) =>
    new ConversationalDAGMetric({ name: 'Playful Chatbot', dag: playfulChatbotDag(), model: chat(), decisionModel })
  const meeting = (decisionModel?: JudgeModel) =>
    new DAGMetric({ name: 'Format Correctness', dag: meetingSummaryDag(), model: chat(), decisionModel })

  describe(`the reference walkthroughs with a decision judge, through ${through}`, () => {
    test.each([
      ['not satisfied', { [PLAYFUL.satisfied]: false }, 0, 1],
      ['satisfied, Rude', { [PLAYFUL.satisfied]: true, [PLAYFUL.behaviour]: 'Rude' }, 0, 2],
      ['satisfied, Neutral', { [PLAYFUL.satisfied]: true, [PLAYFUL.behaviour]: 'Neutral' }, 0.5, 2],
      ['satisfied, Playful', { [PLAYFUL.satisfied]: true, [PLAYFUL.behaviour]: 'Playful' }, 1, 2],
    ] as const)(
      'playful chatbot, %s: the same walk and score %s; %s decision request(s), 1 chat call',
      async (_, verdicts, score, requests) => {
        const run = await both({ task: [PLAYFUL.summary, PLAYFUL_SUMMARY], verdicts }, playful)
        expect(run.chatOnly.error).toBeUndefined()
        expect(run.decided.error).toBeUndefined()
        expect(run.decided.score).toBe(score)
        expect(run.decided.score).toBe(run.chatOnly.score)
        expect(run.decided.success).toBe(run.chatOnly.success)
        expect(walk(run.decided)).toEqual(walk(run.chatOnly))
        expect(run.chatCalls).toBe(1 + requests)
        expect(run.hybridChatCalls).toBe(1)
        expect(run.decisionRequests).toBe(requests)
        expect(run.decided.decisionModel).toBe(decider().name)
        const satisfied = run.decided.trace.nodes.find((node) => node.text === PLAYFUL.satisfied)
        expect(satisfied?.probabilities?.[String(verdicts[PLAYFUL.satisfied])]).toBeCloseTo(0.85, 5)
        expect(run.decided.verboseLogs).toContain(`${PLAYFUL.satisfied} → ${verdicts[PLAYFUL.satisfied]} (0.85)`)
        if (score === 1) {
          // satisfied 0.85 × (Neutral 0.07 + Playful 0.85) pass; the server shares 0.15 as Rude 0.08, Neutral 0.07.
          expect(run.decided.passProbability?.p).toBeCloseTo(0.85 * 0.92, 6)
          expect(run.decided.passProbability?.expectedScore).toBeCloseTo(0.85 * (0.07 * 0.5 + 0.85), 6)
          expect(run.chatOnly.passProbability).toBeUndefined()
        }
      },
    )

    test.each([
      ['headings missing', { [MEETING.present]: false }, 0, 1],
      ['in order', { [MEETING.present]: true, [MEETING.order]: 'Yes' }, 1, 2],
      ['two out of order', { [MEETING.present]: true, [MEETING.order]: 'Two are out of order' }, 0.4, 2],
      ['all out of order', { [MEETING.present]: true, [MEETING.order]: 'All out of order' }, 0.2, 2],
    ] as const)(
      'meeting summary, %s: the same walk and score %s; %s decision request(s), 1 chat call',
      async (_, verdicts, score, requests) => {
        const run = await both({ task: [MEETING.extract, { output: 'Intro, Body, Conclusion' }], verdicts }, meeting)
        expect(run.decided.error).toBeUndefined()
        expect(run.decided.score).toBe(score)
        expect(run.decided.score).toBe(run.chatOnly.score)
        expect(walk(run.decided)).toEqual(walk(run.chatOnly))
        expect(run.hybridChatCalls).toBe(1)
        expect(run.decisionRequests).toBe(requests)
      },
    )

    test('a decision the model refuses fails the measurement naming the node, and the key never shows', async () => {
      server().respondWith(routeByPrompt([[PLAYFUL.summary, PLAYFUL_SUMMARY]]))
      server().decideWith(decideEach(() => ({ refusal: true })))
      const result = await playful(decider()).measure(playfulConversation)
      expect(result.error?.code).toBe('JUDGE_OUTPUT_INVALID')
      expect(result.error?.message).toMatch(
        /^ConversationalBinaryJudgementNode \(criteria: "Do the assistant's replies/,
      )
      expect(result.error?.message).toContain(
        `refused to answer question 1 of 1 (${JSON.stringify(PLAYFUL.satisfied)})`,
      )
      expect(JSON.stringify(result)).not.toMatch(/sk-test/)
    })
  })
}
