import { describe, expect, test } from 'vitest'
import { distributionJudge } from '../../test/support/distribution-judge.js'
import { scriptedJudge } from '../judge/scripted-judge.js'
import { DAGMetric } from '../metrics/dag-metric.js'
import { LLMTestCaseParams } from '../test-case/params.js'
import { DeepAcyclicGraph } from './graph.js'
import { BinaryJudgementNode } from './nodes/binary-judgement-node.js'
import { CodeNode } from './nodes/code-node.js'
import { NonBinaryJudgementNode } from './nodes/non-binary-judgement-node.js'
import type { SingleTurnNode } from './nodes/types.js'
import { VerdictNode } from './nodes/verdict-node.js'

const output = [LLMTestCaseParams.ACTUAL_OUTPUT]
const testCase = { input: 'Greet me', actualOutput: 'Hello there, friend!' }

/** A decision judge answering each criteria with the distribution `answers` gives it. */
const distributions = (answers: Record<string, Record<string, number>>) =>
  distributionJudge((question) => answers[question.instructions] ?? {})

const binary = (criteria: string, onTrue: VerdictNode, onFalse: VerdictNode) =>
  new BinaryJudgementNode({ criteria, evaluationParams: output, children: [onTrue, onFalse] })
const leaf = (verdict: boolean | string, score: number) => new VerdictNode({ verdict, score })

/** Root p(true) = 0.8 → a choice {0.1 → 0, 0.3 → 5, 0.6 → 10}; false → 0 (the issue's example). */
function issueExample() {
  const choice = new NonBinaryJudgementNode({
    criteria: 'How warm?',
    children: [leaf('cold', 0), leaf('mild', 5), leaf('warm', 10)],
  })
  return new DeepAcyclicGraph({
    rootNodes: [binary('Polite?', new VerdictNode({ verdict: true, child: choice }), leaf(false, 0))],
  })
}

const issueAnswers = {
  'Polite?': { true: 0.8, false: 0.2 },
  'How warm?': { cold: 0.1, mild: 0.3, warm: 0.6 },
}

const measure = (dag: DeepAcyclicGraph<SingleTurnNode>, answers: Record<string, Record<string, number>>, extra = {}) =>
  new DAGMetric({
    name: 'Greeting',
    dag,
    model: scriptedJudge({ rules: [] }),
    decisionModel: distributions(answers),
    ...extra,
  }).measure(testCase)

describe('a DAG metric’s pass probability', () => {
  test('sums p(verdict) × value over the walk: P(pass) 0.72, expected score 0.6, pivot at the least sure verdict', async () => {
    const result = await measure(issueExample(), issueAnswers)
    expect(result.error).toBeUndefined()
    expect(result.score).toBe(1)
    expect(result.passProbability).toEqual({
      p: 0.72,
      low: 0.72,
      high: 0.72,
      expectedScore: 0.6,
      source: 'judge',
      pivot: { node: 'n3', label: 'How warm?', verdict: 'warm', probability: 0.6 },
    })
  })

  test('strict mode: only a 10 passes, and the expected score is the chance of it', async () => {
    const result = await measure(issueExample(), issueAnswers, { strictMode: true })
    expect(result.passProbability).toMatchObject({ p: 0.48, low: 0.48, high: 0.48, expectedScore: 0.48 })
  })

  test('a branch not walked that needs judge calls bounds the result; p is the midpoint', async () => {
    const result = await measure(issueExample(), { ...issueAnswers, 'Polite?': { true: 0.3, false: 0.7 } })
    expect(result.score).toBe(0)
    // The choice under `true` was not asked: low counts it failing (0.3 × 0), high passing (0.3 × 1).
    expect(result.passProbability).toMatchObject({ p: 0.15, low: 0, high: 0.3, expectedScore: 0.15 })
    expect(result.passProbability?.pivot).toMatchObject({ node: 'n1', verdict: false, probability: 0.7 })
  })

  test('parallel branches are independent: P(pass) is the product, the expected score the mean of their minimum', async () => {
    const dag = new DeepAcyclicGraph({
      rootNodes: [binary('A?', leaf(true, 10), leaf(false, 0)), binary('B?', leaf(true, 10), leaf(false, 5))],
    })
    const result = await measure(dag, { 'A?': { true: 0.9, false: 0.1 }, 'B?': { true: 0.8, false: 0.2 } })
    // B never fails a 0.5 threshold (5/10 passes); E[min] = 0.9 × (0.8 × 1 + 0.2 × 0.5) = 0.81.
    expect(result.passProbability).toMatchObject({ p: 0.9, low: 0.9, high: 0.9, expectedScore: 0.81 })
    const strict = await measure(
      dag,
      { 'A?': { true: 0.9, false: 0.1 }, 'B?': { true: 0.8, false: 0.2 } },
      {
        strictMode: true,
      },
    )
    expect(strict.passProbability?.p).toBeCloseTo(0.72, 9)
  })

  test('a verdict shared by two judgements counts once per world: it passes only when both judgements pass', async () => {
    const failed = leaf(false, 0)
    const dag = new DeepAcyclicGraph({
      rootNodes: [binary('A?', leaf(true, 10), failed), binary('B?', leaf(true, 10), failed)],
    })
    const result = await measure(dag, { 'A?': { true: 0.5, false: 0.5 }, 'B?': { true: 0.4, false: 0.6 } })
    expect(result.passProbability?.p).toBeCloseTo(0.2, 9)
    expect(result.passProbability?.expectedScore).toBeCloseTo(0.2, 9)
  })

  test('a child metric under a verdict contributes its own pass probability', async () => {
    const child = new DAGMetric({
      name: 'Inner',
      dag: new DeepAcyclicGraph({ rootNodes: [binary('Inner?', leaf(true, 10), leaf(false, 0))] }),
      model: scriptedJudge({ rules: [] }),
      decisionModel: distributions({ 'Inner?': { true: 0.7, false: 0.3 } }),
    })
    const dag = new DeepAcyclicGraph({
      rootNodes: [binary('Outer?', new VerdictNode({ verdict: true, child }), leaf(false, 0))],
    })
    const result = await measure(dag, { 'Outer?': { true: 0.9, false: 0.1 } })
    expect(result.passProbability?.p).toBeCloseTo(0.63, 9)
    expect(result.passProbability?.expectedScore).toBeCloseTo(0.63, 9)
  })

  test('a check in code is certain: its verdict carries the judgement under it through unchanged', async () => {
    const code = new CodeNode({
      name: 'Has a greeting',
      check: (view) => (view.actualOutput ?? '').startsWith('Hello'),
      evaluationParams: output,
      children: [new VerdictNode({ verdict: true, child: issueExample().rootNodes[0] as never }), leaf(false, 0)],
    })
    const result = await measure(new DeepAcyclicGraph({ rootNodes: [code] }), issueAnswers)
    expect(result.passProbability).toMatchObject({ p: 0.72, low: 0.72, high: 0.72, expectedScore: 0.6 })
  })

  test('a verdict that matters answered as a point gives no probability: never a made-up number', async () => {
    const chat = scriptedJudge({ rules: [{ match: /Polite/, answer: { verdict: true, reason: 'it greets' } }] })
    const dag = new DeepAcyclicGraph({ rootNodes: [binary('Polite?', leaf(true, 10), leaf(false, 0))] })
    const result = await new DAGMetric({ name: 'Greeting', dag, model: chat }).measure(testCase)
    expect(result.score).toBe(1)
    expect(result.passProbability).toBeUndefined()
    // A point answer whose verdicts lead to the same score does not matter.
    const same = new DeepAcyclicGraph({ rootNodes: [binary('Polite?', leaf(true, 10), leaf(false, 10))] })
    const certain = await new DAGMetric({ name: 'Greeting', dag: same, model: chat }).measure(testCase)
    expect(certain.passProbability).toMatchObject({ p: 1, low: 1, high: 1, expectedScore: 1, pivot: undefined })
  })
})
