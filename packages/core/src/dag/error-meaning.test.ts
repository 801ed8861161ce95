import { describe, expect, test } from 'vitest'
import {
  BinaryJudgementNode,
  CodeNode,
  DAGMetric,
  DeepAcyclicGraph,
  type JudgeModel,
  JudgetreeError,
  LLMTestCaseParams,
  type Metric,
  type MetricTrace,
  renderTrace,
  TaskNode,
  type TraceNode,
  VerdictNode,
} from '../index.js'
import { scriptedJudge } from '../testing.js'

// Locating an error (naming the node it happened at) must never change what it is: a bug in user code is
// METRIC_FAILED, a judge that fails is JUDGE_CALL_FAILED, whatever node they happen at.

const testCase = { input: 'Say hi', actualOutput: 'Hello there, friend!' }
const output = [LLMTestCaseParams.ACTUAL_OUTPUT]
const leaf = (verdict: boolean, score: number) => new VerdictNode({ verdict, score })

function measureDag(root: BinaryJudgementNode | CodeNode | TaskNode, judge: JudgeModel = scriptedJudge({ rules: [] })) {
  return new DAGMetric({ name: 'Greeting', dag: new DeepAcyclicGraph({ rootNodes: [root] }), model: judge }).measure(
    testCase,
  )
}

describe('an error located at a node keeps its code', () => {
  test("a bug in a CodeNode's own code (not its check's throw) is METRIC_FAILED, naming the node", async () => {
    // The check returns; reading what it returned throws, outside the check's own try.
    const broken = {
      get verdict(): boolean {
        throw new TypeError("Cannot read properties of undefined (reading 'length')")
      },
    }
    const result = await measureDag(
      new CodeNode({
        name: 'Short answer',
        label: 'Brevity',
        check: () => broken as never,
        evaluationParams: output,
        children: [leaf(true, 10), leaf(false, 0)],
      }),
    )
    expect(result.error).toBeInstanceOf(JudgetreeError)
    expect(result.error).toMatchObject({ code: 'METRIC_FAILED', node: 'CodeNode "Brevity"' })
    expect(result.error?.message).toBe(
      `CodeNode "Brevity" failed: Cannot read properties of undefined (reading 'length')`,
    )
  })

  test('a child metric whose measure() throws is METRIC_FAILED, naming the verdict that holds it', async () => {
    const childMetric: Metric = {
      name: 'Tone',
      kind: 'single-turn' as Metric['kind'],
      threshold: 0.5,
      measure: async () => {
        throw new RangeError('tone table has no row for "friend"')
      },
    }
    const root = new BinaryJudgementNode({
      criteria: 'Is it a greeting?',
      evaluationParams: output,
      children: [new VerdictNode({ verdict: true, child: childMetric }), leaf(false, 0)],
    })
    const judge = scriptedJudge({ rules: [{ match: 'greeting', answer: { verdict: true, reason: 'It says hello.' } }] })
    const result = await measureDag(root, judge)
    expect(result.error).toMatchObject({ code: 'METRIC_FAILED', node: expect.stringContaining('VerdictNode') })
    expect(result.error?.message).toContain('tone table has no row for "friend"')
    expect(result.error?.cause).toBeInstanceOf(RangeError)
  })

  test('a judge that throws a plain error stays JUDGE_CALL_FAILED, naming the node', async () => {
    const judge: JudgeModel = {
      name: 'flaky',
      generate: async () => {
        throw new Error('socket hang up')
      },
    }
    const result = await measureDag(
      new BinaryJudgementNode({
        criteria: 'Is it a greeting?',
        label: 'Greeting?',
        evaluationParams: output,
        children: [leaf(true, 10), leaf(false, 0)],
      }),
      judge,
    )
    expect(result.error).toMatchObject({ code: 'JUDGE_CALL_FAILED', node: 'BinaryJudgementNode "Greeting?"' })
    expect(result.error?.message).toBe('BinaryJudgementNode "Greeting?" failed: socket hang up')
  })
})

describe('a skipped node says why as a code', () => {
  test('the walk records each cause on the trace', async () => {
    // Greeting? answers false: its true verdict was not chosen, the task under it is not reached, and the judgement
    // that reads the task's output has no input.
    const reader = new BinaryJudgementNode({ criteria: 'Are names used?', children: [leaf(true, 10), leaf(false, 5)] })
    const withTask = new TaskNode({
      instructions: 'List the names used.',
      outputLabel: 'Names',
      evaluationParams: output,
      children: [reader],
    })
    const root = new BinaryJudgementNode({
      criteria: 'Is it a greeting?',
      evaluationParams: output,
      children: [new VerdictNode({ verdict: true, child: withTask }), leaf(false, 0)],
    })
    const judge = scriptedJudge({ rules: [{ match: 'greeting', answer: { verdict: false, reason: 'No.' } }] })
    const result = await measureDag(root, judge)
    const causes = result.trace.nodes.map((node) => `${node.text}: ${node.skipCause ?? 'ran'}`)
    expect(causes).toEqual([
      'Is it a greeting?: ran',
      'true: not-chosen',
      'List the names used.: not-reached',
      'Are names used?: input-missing',
      'true: not-reached',
      'false: not-reached',
      'false: ran',
    ])
  })

  test('a node the walk never started because a node before it failed is skipped as stopped', async () => {
    const judge: JudgeModel = {
      name: 'down',
      generate: async () => {
        throw new Error('socket hang up')
      },
    }
    const judgement = (criteria: string) =>
      new BinaryJudgementNode({ criteria, evaluationParams: output, children: [leaf(true, 10), leaf(false, 0)] })
    const result = await new DAGMetric({
      name: 'Greeting',
      dag: new DeepAcyclicGraph({ rootNodes: [judgement('Is it a greeting?'), judgement('Is it polite?')] }),
      model: judge,
      asyncMode: false,
    }).measure(testCase)
    const polite = result.trace.nodes.find((node) => node.text === 'Is it polite?')
    expect(polite).toMatchObject({ status: 'skipped', skipCause: 'stopped' })
  })

  test("the render shows a skipped verdict's why unless a judge chose another verdict, reading only the cause", () => {
    const verdict = (id: string, text: string, skipCause: TraceNode['skipCause'], skippedBecause: string) =>
      ({
        id,
        kind: 'VerdictNode',
        role: 'verdict',
        label: undefined,
        text,
        status: 'skipped',
        skipCause,
        skippedBecause,
        inputs: [],
        children: [],
      }) satisfies TraceNode
    const trace: MetricTrace = {
      metric: 'Greeting',
      roots: ['n1'],
      notes: [],
      nodes: [
        {
          id: 'n1',
          kind: 'BinaryJudgementNode',
          role: 'judgement',
          label: 'Greeting?',
          text: 'Is it a greeting?',
          status: 'ran',
          step: 1,
          verdict: false,
          inputs: [],
          children: ['n2', 'n3', 'n4', 'n5'],
        },
        // The words are the executor's to choose; the renderer goes by the cause alone.
        verdict('n2', 'chosen elsewhere', 'not-chosen', 'not chosen: the check returned false'),
        verdict('n3', 'never offered', 'not-reached', 'not reached: the judge answered nothing here'),
        verdict('n4', 'waiting', 'input-missing', 'its TaskNode parent "Names" did not run'),
        verdict('n5', 'too late', 'stopped', 'the measurement stopped before it was reached'),
      ],
    }
    expect(renderTrace(trace)).toMatchInlineSnapshot(`
      "[1] Judgement "Greeting?": Is it a greeting? → false
      ├─ ○ chosen elsewhere
      ├─ ○ never offered
      │       (not reached: the judge answered nothing here)
      ├─ ○ waiting
      │       (its TaskNode parent "Names" did not run)
      └─ ○ too late
              (the measurement stopped before it was reached)"
    `)
  })
})

describe("a judge's AbortError means a stop only when the measurement stopped", () => {
  const judgement = () =>
    new BinaryJudgementNode({
      label: 'Greeting?',
      criteria: 'Is it a greeting?',
      evaluationParams: output,
      children: [leaf(true, 1), leaf(false, 0)],
    })
  const abortError = () => new DOMException('This operation was aborted', 'AbortError')

  test("a user's judge that rejects with AbortError after the caller's signal aborted: MEASUREMENT_ABORTED", async () => {
    const controller = new AbortController()
    const judge: JudgeModel = {
      name: 'stoppable',
      generate: async () => {
        controller.abort()
        throw abortError()
      },
    }
    const metric = new DAGMetric({
      name: 'Greeting',
      dag: new DeepAcyclicGraph({ rootNodes: [judgement()] }),
      model: judge,
    })
    const result = await metric.measure(testCase, { signal: controller.signal })
    expect(result.error).toMatchObject({ code: 'MEASUREMENT_ABORTED' })
  })

  test('an AbortError of its own, with nothing stopped, is the judge failing at the node: JUDGE_CALL_FAILED', async () => {
    const judge: JudgeModel = {
      name: 'own timeout',
      generate: async () => {
        throw abortError()
      },
    }
    const result = await measureDag(judgement(), judge)
    expect(result.error).toMatchObject({ code: 'JUDGE_CALL_FAILED', node: 'BinaryJudgementNode "Greeting?"' })
    expect(result.error?.message).toBe('BinaryJudgementNode "Greeting?" failed: This operation was aborted')
  })
})
