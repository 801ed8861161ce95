// `explore`: unchosen verdicts probable enough are walked after the walk, through the real OpenAI SDK against the local
// server, so that passProbability's bounds narrow; the score, the reason and the path stay the walk's.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  decisionReply,
  ln,
  logprobsIfAsked,
  type RecordedRequest,
  type ScriptedReply,
  schemaOf,
  useOpenAIServer,
} from '@judgetree/test-support'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { serverJudge } from '../../test/support/server-judge.js'
import type { MetricResult } from '../metric/types.js'
import { DAGMetric, type DAGMetricOptions } from '../metrics/dag-metric.js'
import { createJudgeRuntime } from '../runtime/judge-runtime.js'
import { LLMTestCaseParams } from '../test-case/params.js'
import { DeepAcyclicGraph } from './graph.js'
import { BinaryJudgementNode } from './nodes/binary-judgement-node.js'
import { NonBinaryJudgementNode } from './nodes/non-binary-judgement-node.js'
import { VerdictNode } from './nodes/verdict-node.js'

/** Polite? answers false at 0.7 (true 0.3); How warm?, under true, would answer warm at 0.6. */
function answers(request: RecordedRequest): ScriptedReply {
  return schemaOf(request) === 'binary_verdict'
    ? decisionReply('verdict', false, ln({ true: 0.3, false: 0.7 }), 'It is curt.')
    : decisionReply('verdict', 'warm', ln({ cold: 0.1, mild: 0.3, warm: 0.6 }))
}

const server = useOpenAIServer(logprobsIfAsked(answers))
const testCase = { input: 'Greet me', actualOutput: 'Hi.' }
const leaf = (verdict: boolean | string, score: number) => new VerdictNode({ verdict, score })

function greeting(options: Partial<DAGMetricOptions> = {}) {
  const choice = new NonBinaryJudgementNode({
    criteria: 'How warm?',
    children: [leaf('cold', 0), leaf('mild', 5), leaf('warm', 10)],
  })
  const dag = new DeepAcyclicGraph({
    rootNodes: [
      new BinaryJudgementNode({
        criteria: 'Polite?',
        evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
        children: [new VerdictNode({ verdict: true, child: choice }), leaf(false, 0)],
      }),
    ],
  })
  return new DAGMetric({ name: 'Greeting', dag, model: serverJudge(server.baseURL), topLogprobs: 5, ...options })
}

/** What explore must never change. */
const verdictOf = (result: MetricResult) => ({
  score: result.score,
  success: result.success,
  reason: result.reason,
  path: result.trace.nodes.map((node) => `${node.id} ${node.status}`),
})

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'judgetree-explore-'))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

describe('explore', () => {
  test('walks an unchosen verdict at or above it: the bounds 0–0.3 become 0.27, and the verdict stays the same', async () => {
    const walked = await greeting().measure(testCase)
    expect(server.requests).toHaveLength(1)
    expect(walked.passProbability).toMatchObject({ p: 0.15, low: 0, high: 0.3 })

    server.requests.length = 0
    const explored = await greeting({ explore: 0.3 }).measure(testCase)
    expect(server.requests.map(schemaOf)).toEqual(['binary_verdict', 'non_binary_verdict'])
    // true (0.3) × P(mild or warm) (0.9); expected score 0.3 × (0.3 × 0.5 + 0.6 × 1).
    expect(explored.passProbability?.low).toBeCloseTo(0.27, 9)
    expect(explored.passProbability?.high).toBeCloseTo(0.27, 9)
    expect(explored.passProbability?.expectedScore).toBeCloseTo(0.225, 9)
    expect(explored.passProbability?.pivot).toMatchObject({ node: 'n1', verdict: false })
    expect(verdictOf(explored)).toEqual(verdictOf(walked))
    expect(explored.usage).toMatchObject({ judgeCalls: 2 })
    expect(walked.usage).toMatchObject({ judgeCalls: 1 })
    expect(explored.trace.explored?.map((node) => [node.id, node.status, node.explored])).toEqual([
      ['n2', 'ran', true],
      ['n3', 'ran', true],
      ['n6', 'ran', true],
    ])
    expect(explored.verboseLogs).toMatchInlineSnapshot(`
      "[1] Judgement: Polite? → false (0.70) · 1 judge call
      │    reason: It is curt.
      ├─ ○ true
      │  └─ [ ] Judgement: How warm?  (not reached)
      │     └─ … 3 nodes below not reached
      └─ ● false → 0  ◀ score 0
      explored off the path, for P(pass) only (never scored):
      ● true  (explored)
      └─ [explored] Judgement: How warm? → warm (0.60) · 1 judge call
         │    input: what [1] was shown
         │    reason: It shows in the data.
         │    probabilities: cold 0.10 · mild 0.30 · warm 0.60
         └─ ● warm → 10  (explored)"
    `)
  })

  test('a verdict below it, or one that came without a distribution, is not walked', async () => {
    const below = await greeting({ explore: 0.31 }).measure(testCase)
    expect(server.requests).toHaveLength(1)
    expect(below.passProbability).toMatchObject({ low: 0, high: 0.3 })
    expect(below.trace.explored).toBeUndefined()

    server.requests.length = 0
    const point = await greeting({ explore: 0.01, topLogprobs: 0 }).measure(testCase)
    expect(server.requests).toHaveLength(1)
    expect(point.trace.explored).toBeUndefined()
  })

  test('explored calls are cached like any: a replay makes no request and gives the same result', async () => {
    const cached = (mode: 'read-write' | 'replay') =>
      greeting({
        explore: 0.2,
        model: createJudgeRuntime({ cache: mode, cacheDir: dir }).wrap(serverJudge(server.baseURL)),
      }).measure(testCase)
    const live = await cached('read-write')
    expect(server.requests).toHaveLength(2)
    server.requests.length = 0
    const replayed = await cached('replay')
    expect(server.requests).toHaveLength(0)
    expect(replayed.error).toBeUndefined()
    expect(replayed.passProbability).toEqual(live.passProbability)
    expect(replayed.trace.explored?.map((node) => node.id)).toEqual(['n2', 'n3', 'n6'])
    expect(replayed.usage).toMatchObject({ judgeCalls: 2, cachedCalls: 2 })
  })

  test('a value outside 0..1 is rejected', () => {
    expect(() => greeting({ explore: 2 })).toThrow(/Expected `explore` to be a probability from 0 to 1/)
  })
})
