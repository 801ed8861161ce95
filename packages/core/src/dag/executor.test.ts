import { afterEach, describe, expect, test, vi } from 'vitest'
import { JudgeOutputError } from '../errors.js'
import { type ScriptedRule, scriptedJudge } from '../judge/scripted-judge.js'
import type { JudgeRequest } from '../judge/types.js'
import type { Metric, MetricResult } from '../metric/types.js'
import { ConversationalDAGMetric, DAGMetric } from '../metrics/dag-metric.js'
import { readData } from '../prompts/shared.js'
import { LLMTestCaseParams, TurnParams } from '../test-case/params.js'
import type { ConversationalTestCase, LLMTestCase } from '../test-case/schemas.js'
import { DeepAcyclicGraph } from './graph.js'
import { BinaryJudgementNode, ConversationalBinaryJudgementNode } from './nodes/binary-judgement-node.js'
import { NonBinaryJudgementNode } from './nodes/non-binary-judgement-node.js'
import { TaskNode } from './nodes/task-node.js'
import { ConversationalVerdictNode, VerdictNode } from './nodes/verdict-node.js'

const output = [LLMTestCaseParams.ACTUAL_OUTPUT]
const testCase: LLMTestCase = { input: 'Say hi', actualOutput: 'Hello there!' }
const verdict = (value: boolean, reason = `said ${value}`) => ({ verdict: value, reason })

function binary(criteria: string, onTrue: VerdictNode, onFalse: VerdictNode) {
  return new BinaryJudgementNode({ criteria, evaluationParams: output, children: [onTrue, onFalse] })
}
const leaf = (value: boolean, score: number) => new VerdictNode({ verdict: value, score })

function dagMetric(
  roots: ConstructorParameters<typeof DeepAcyclicGraph>[0]['rootNodes'],
  rules: ScriptedRule[],
  extra = {},
) {
  const judge = scriptedJudge({ rules })
  const metric = new DAGMetric({
    name: 'Test DAG',
    dag: new DeepAcyclicGraph({ rootNodes: roots as never }),
    model: judge,
    ...extra,
  })
  return { judge, metric }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('turn windows', () => {
  const conversation: ConversationalTestCase = {
    turns: ['hi', 'hello', 'weather?', 'sunny', 'umbrella?', 'no'].map((content, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content,
    })),
  }
  const windowed = (turnWindow: [number, number]) =>
    new ConversationalBinaryJudgementNode({
      criteria: 'Polite?',
      evaluationParams: [TurnParams.ROLE, TurnParams.CONTENT],
      turnWindow,
      children: [
        new ConversationalVerdictNode({ verdict: true, score: 10 }),
        new ConversationalVerdictNode({ verdict: false, score: 0 }),
      ],
    })
  const measure = async (turnWindow: [number, number], testCase = conversation) => {
    const judge = scriptedJudge({ rules: [{ match: 'Polite?', answer: verdict(true) }] })
    const metric = new ConversationalDAGMetric({
      name: 'Windowed',
      dag: new DeepAcyclicGraph({ rootNodes: [windowed(turnWindow)] }),
      model: judge,
    })
    const result = await metric.measure(testCase)
    const shown = judge.requests.map((request) => JSON.parse(dataOf(request)).Conversation.turns)
    return { result, shown }
  }

  test('a single-turn window shows exactly that turn, with its index', async () => {
    const { result, shown } = await measure([2, 2])
    expect(result.score).toBe(1)
    expect(shown).toEqual([[{ index: 2, role: 'user', Content: 'weather?' }]])
  })

  test('a window may end at the last turn', async () => {
    const { shown } = await measure([4, 5])
    expect(shown[0].map((turn: { index: number }) => turn.index)).toEqual([4, 5])
  })

  test('negative indices count from the end, whatever the length: [-2, -1] is the last two turns', async () => {
    const { result, shown } = await measure([-2, -1])
    expect(shown[0].map((turn: { index: number }) => turn.index)).toEqual([4, 5])
    expect(result.trace.nodes[0]).toMatchObject({ turnWindow: [-2, -1], shownTurns: [4, 5] })
    expect(result.verboseLogs.split('\n')[0]).toBe(
      '[1] Judgement: Polite? · turns 4–5 (turnWindow [-2, -1]) → true · 1 judge call',
    )
    const short = await measure([-2, -1], { turns: conversation.turns.slice(0, 3) })
    expect(short.shown[0].map((turn: { index: number }) => turn.index)).toEqual([1, 2])
  })

  test('[0, -1] is every turn, and a window may mix both ends', async () => {
    expect((await measure([0, -1])).shown[0]).toHaveLength(6)
    expect((await measure([2, -2])).shown[0].map((turn: { index: number }) => turn.index)).toEqual([2, 3, 4])
  })

  test('a window that does not fit fails the node when it runs, naming the node, the window and the length', async () => {
    const { result, shown } = await measure([3, 6])
    expect(shown).toEqual([])
    expect(result.success).toBe(false)
    expect(result.error?.code).toBe('TURN_WINDOW_OUT_OF_RANGE')
    expect(result.error?.node).toBe('ConversationalBinaryJudgementNode (criteria: "Polite?")')
    expect(result.error?.message).toMatchInlineSnapshot(
      `"ConversationalBinaryJudgementNode (criteria: "Polite?") failed: its turnWindow [3, 6] does not fit this conversation of 6 turns (there is no turn 6). The turns are 0 to 5, or -6 to -1 counting from the end: use a window inside them, or drop turnWindow to read every turn."`,
    )
    expect(result.trace.nodes[0]?.status).toBe('failed')
  })

  test('the message says why a window does not fit', async () => {
    const cases: [number, number, number][] = [
      [0, 5, 1],
      [-7, -1, 6],
      [4, -3, 6],
      [-1, 2, 6],
    ]
    const messages: Record<string, string | undefined> = {}
    for (const [start, end, length] of cases) {
      const { result } = await measure([start, end], { turns: conversation.turns.slice(0, length) })
      messages[`[${start}, ${end}] on ${length}`] = result.error?.message.replace(/^.*? failed: /, '')
    }
    expect(messages).toMatchInlineSnapshot(`
      {
        "[-1, 2] on 6": "its turnWindow [-1, 2] does not fit this conversation of 6 turns (here it means turns 5 to 2, which is empty). The turns are 0 to 5, or -6 to -1 counting from the end: use a window inside them, or drop turnWindow to read every turn.",
        "[-7, -1] on 6": "its turnWindow [-7, -1] does not fit this conversation of 6 turns (-7 counts back past the first turn). The turns are 0 to 5, or -6 to -1 counting from the end: use a window inside them, or drop turnWindow to read every turn.",
        "[0, 5] on 1": "its turnWindow [0, 5] does not fit this conversation of 1 turn (there is no turn 5). The turns are 0 to 0, or -1 to -1 counting from the end: use a window inside them, or drop turnWindow to read every turn.",
        "[4, -3] on 6": "its turnWindow [4, -3] does not fit this conversation of 6 turns (here it means turns 4 to 3, which is empty). The turns are 0 to 5, or -6 to -1 counting from the end: use a window inside them, or drop turnWindow to read every turn.",
      }
    `)
  })

  test('a branch that is not taken neither fails nor checks its window', async () => {
    const judge = scriptedJudge({
      rules: [
        { match: 'Answered?', answer: verdict(true) },
        { match: 'Polite?', answer: verdict(true) },
      ],
    })
    const gate = new ConversationalBinaryJudgementNode({
      criteria: 'Answered?',
      evaluationParams: [TurnParams.ROLE, TurnParams.CONTENT],
      children: [
        new ConversationalVerdictNode({ verdict: true, score: 10 }),
        new ConversationalVerdictNode({ verdict: false, child: windowed([0, 9]) }),
      ],
    })
    const metric = new ConversationalDAGMetric({
      name: 'Gated',
      dag: new DeepAcyclicGraph({ rootNodes: [gate] }),
      model: judge,
    })
    const result = await metric.measure(conversation)
    expect(result.error).toBeUndefined()
    expect(result.score).toBe(1)
    expect(judge.requests).toHaveLength(1)
    expect(result.trace.nodes.find((node) => node.text === 'Polite?')?.status).toBe('skipped')
  })
})

describe('inherited input', () => {
  test('a judgement with no input of its own is shown what the judgement above its verdict was shown, transitively', async () => {
    const third = new NonBinaryJudgementNode({
      criteria: 'Tone?',
      children: [new VerdictNode({ verdict: 'Warm', score: 10 }), new VerdictNode({ verdict: 'Cold', score: 2 })],
    })
    const second = new BinaryJudgementNode({
      criteria: 'Greets?',
      children: [new VerdictNode({ verdict: true, child: third }), leaf(false, 0)],
    })
    const first = new BinaryJudgementNode({
      criteria: 'Polite?',
      evaluationParams: [LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT],
      children: [new VerdictNode({ verdict: true, child: second }), leaf(false, 0)],
    })
    const { judge, metric } = dagMetric(
      [first],
      [
        { match: 'Polite?', answer: verdict(true) },
        { match: 'Greets?', answer: verdict(true) },
        { match: 'Tone?', answer: { verdict: 'Warm', reason: 'friendly' } },
      ],
    )
    const result = await metric.measure(testCase)
    expect(result.score).toBe(1)
    expect(judge.requests).toHaveLength(3)
    const shown = judge.requests.map((request) => JSON.parse(dataOf(request)))
    expect(shown).toEqual([
      { Input: 'Say hi', 'Actual Output': 'Hello there!' },
      { Input: 'Say hi', 'Actual Output': 'Hello there!' },
      { Input: 'Say hi', 'Actual Output': 'Hello there!' },
    ])
    const ids = Object.fromEntries(result.trace.nodes.map((node) => [node.text, node.id]))
    expect(result.trace.nodes.filter((node) => node.inputFrom).map((node) => [node.text, node.inputFrom])).toEqual([
      ['Greets?', ids['Polite?']],
      ['Tone?', ids['Greets?']],
    ])
  })

  test('a conversational judgement inherits the turn window as resolved for this conversation', async () => {
    const turns = ['hi', 'hello', 'weather?', 'sunny', 'umbrella?', 'no'].map((content, index) => ({
      role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content,
    }))
    const follow = new ConversationalBinaryJudgementNode({
      criteria: 'Helpful?',
      children: [
        new ConversationalVerdictNode({ verdict: true, score: 10 }),
        new ConversationalVerdictNode({ verdict: false, score: 3 }),
      ],
    })
    const root = new ConversationalBinaryJudgementNode({
      criteria: 'Polite?',
      evaluationParams: [TurnParams.ROLE, TurnParams.CONTENT],
      turnWindow: [-2, -1],
      children: [
        new ConversationalVerdictNode({ verdict: true, child: follow }),
        new ConversationalVerdictNode({ verdict: false, score: 0 }),
      ],
    })
    const judge = scriptedJudge({
      rules: [
        { match: 'Polite?', answer: verdict(true) },
        { match: 'Helpful?', answer: verdict(false) },
      ],
    })
    const metric = new ConversationalDAGMetric({
      name: 'Windowed',
      dag: new DeepAcyclicGraph({ rootNodes: [root] }),
      model: judge,
    })
    const result = await metric.measure({ turns })
    expect(result.score).toBe(0.3)
    const [politeData, helpfulData] = judge.requests.map((request) => JSON.parse(dataOf(request)))
    expect(helpfulData).toEqual(politeData)
    expect(helpfulData.Conversation.turns.map((turn: { index: number }) => turn.index)).toEqual([4, 5])
    expect(result.verboseLogs).toMatchInlineSnapshot(`
      "[1] Judgement: Polite? · turns 4–5 (turnWindow [-2, -1]) → true · 1 judge call
      │    reason: said true
      ├─ ● true
      │  └─ [2] Judgement: Helpful? · turns 4–5 → false · 1 judge call
      │     │    input: what [1] was shown
      │     │    reason: said false
      │     ├─ ○ true → 10
      │     └─ ● false → 3  ◀ score 0.3
      └─ ○ false → 0"
    `)
  })
})

describe('control edges', () => {
  test('a node with two verdict parents runs once when either is chosen, and not at all when neither is', async () => {
    const shared = binary('Shared?', leaf(true, 8), leaf(false, 2))
    const first = binary('First?', new VerdictNode({ verdict: true, child: shared }), leaf(false, 9))
    const second = binary('Second?', leaf(true, 9), new VerdictNode({ verdict: false, child: shared }))
    const run = async (firstAnswer: boolean, secondAnswer: boolean) => {
      const { judge, metric } = dagMetric(
        [first, second],
        [
          { match: 'First?', answer: verdict(firstAnswer) },
          { match: 'Second?', answer: verdict(secondAnswer) },
          { match: 'Shared?', answer: verdict(true) },
        ],
      )
      const result = await metric.measure(testCase)
      const sharedCalls = judge.requests.filter((request) => userText(request).includes('Shared?')).length
      return { result, sharedCalls }
    }
    const both = await run(true, false)
    expect(both.sharedCalls).toBe(1)
    expect(both.result.score).toBe(0.8)
    const one = await run(false, false)
    expect(one.sharedCalls).toBe(1)
    const neither = await run(false, true)
    expect(neither.sharedCalls).toBe(0)
    expect(neither.result.score).toBe(0.9)
    const skipped = neither.result.trace.nodes.find((node) => node.text === 'Shared?')
    expect(skipped).toMatchObject({
      status: 'skipped',
      skippedBecause:
        'not reached: BinaryJudgementNode (criteria: "First?") → VerdictNode (verdict: true) was not chosen; ' +
        'BinaryJudgementNode (criteria: "Second?") → VerdictNode (verdict: false) was not chosen',
    })
  })

  test('parallel branches: every reached leaf is in the trace and the lowest is the score', async () => {
    const { metric } = dagMetric(
      [binary('Accurate?', leaf(true, 9), leaf(false, 1)), binary('Polite?', leaf(true, 6), leaf(false, 0))],
      [
        { match: 'Accurate?', answer: verdict(true) },
        { match: 'Polite?', answer: verdict(true) },
      ],
    )
    const result = await metric.measure(testCase)
    expect(result.score).toBe(0.6)
    expect(result.trace.notes).toEqual(['2 verdicts were reached (0.9, 0.6); the score is the lowest.'])
    expect(result.verboseLogs).toContain('● true → 9  ◀ score 0.9')
    expect(result.verboseLogs).toContain('● true → 6  ◀ score 0.6')
  })

  test('no verdict reached is an error naming the node that stopped the walk', async () => {
    // `blocked` is reached through the false verdict but also needs the TaskNode that only the true verdict runs.
    const blocked = binary('Blocked?', leaf(true, 10), leaf(false, 0))
    const task = new TaskNode({
      instructions: 'Summarise',
      outputLabel: 'Summary',
      evaluationParams: output,
      children: [blocked],
    })
    const root = binary(
      'Gate?',
      new VerdictNode({ verdict: true, child: task }),
      new VerdictNode({ verdict: false, child: blocked }),
    )
    const { judge, metric } = dagMetric([root], [{ match: 'Gate?', answer: verdict(false) }])
    const result = await metric.measure(testCase)
    expect(judge.requests).toHaveLength(1)
    expect(result.success).toBe(false)
    expect(result.error?.code).toBe('NO_VERDICT_REACHED')
    expect(result.error?.message).toMatchInlineSnapshot(
      `"No verdict was reached, so there is no score. The walk stopped at BinaryJudgementNode (criteria: "Blocked?"), which could not run because its TaskNode parent TaskNode (instructions: "Summarise") did not run. A node that waits for a TaskNode on another branch never runs when that branch is not taken: make the TaskNode a parent on every path that leads to the node, or move the node under the branch."`,
    )
  })
})

describe('no verdict reached when the TaskNode ran (deepeval test_shared_via_direct_and_tasknode_edges)', () => {
  // `shared` hangs from the Gate's false verdict and from a TaskNode under its true verdict: it waits for both, so
  // it never runs on either path. Taking the true branch runs the TaskNode, then stops.
  const graph = () => {
    const shared = binary('Shared?', leaf(true, 10), leaf(false, 0))
    const task = new TaskNode({
      instructions: 'Extract',
      outputLabel: 'Facts',
      evaluationParams: output,
      children: [shared],
    })
    return binary(
      'Gate?',
      new VerdictNode({ verdict: true, child: task }),
      new VerdictNode({ verdict: false, child: shared }),
    )
  }

  test('the error names the node under the TaskNode and the verdict it waited for, with advice for this case', async () => {
    const { judge, metric } = dagMetric(
      [graph()],
      [
        { match: 'Gate?', answer: verdict(true) },
        { match: 'Extract', answer: { output: 'Two facts.' } },
      ],
    )
    const result = await metric.measure(testCase)
    expect(judge.requests).toHaveLength(2)
    expect(result.error?.code).toBe('NO_VERDICT_REACHED')
    expect(result.error?.message).toMatchInlineSnapshot(
      `"No verdict was reached, so there is no score. The walk stopped at BinaryJudgementNode (criteria: "Shared?"), which its TaskNode parent TaskNode (instructions: "Extract") fed, but which was not reached: BinaryJudgementNode (criteria: "Gate?") → VerdictNode (verdict: false) was not chosen. A node under a TaskNode that also hangs from a verdict runs only when that verdict is chosen too, so with the TaskNode and the verdict on different branches it never runs: make the node a child of the TaskNode alone, or put the TaskNode on the verdict's branch as well."`,
    )
  })
})

describe('concurrency and determinism', () => {
  const graph = () => {
    const tone = new NonBinaryJudgementNode({
      criteria: 'Tone?',
      children: [new VerdictNode({ verdict: 'Warm', score: 10 }), new VerdictNode({ verdict: 'Cold', score: 3 })],
    })
    const facts = new TaskNode({
      instructions: 'List the facts',
      outputLabel: 'Facts',
      evaluationParams: output,
      children: [tone],
    })
    const style = new TaskNode({
      instructions: 'Describe the style',
      outputLabel: 'Style',
      evaluationParams: output,
      children: [tone],
    })
    return [facts, style, binary('Grammar?', leaf(true, 7), leaf(false, 0))]
  }
  const rules: ScriptedRule[] = [
    { match: 'List the facts', answer: { output: 'It greets.' } },
    { match: 'Describe the style', answer: { output: 'Friendly.' } },
    { match: 'Tone?', answer: { verdict: 'Warm', reason: 'friendly' } },
    { match: 'Grammar?', answer: verdict(true) },
  ]

  test('the result is the same whatever order the answers arrive in', async () => {
    const outcomes = new Set<string>()
    for (let run = 0; run < 12; run++) {
      const judge = scriptedJudge({ rules, delayMs: () => Math.floor(Math.random() * 15) })
      const metric = new DAGMetric({ name: 'Order', dag: new DeepAcyclicGraph({ rootNodes: graph() }), model: judge })
      const result = await metric.measure(testCase)
      outcomes.add(JSON.stringify([result.score, result.reason, result.verboseLogs]))
    }
    expect(outcomes.size).toBe(1)
    const [score] = JSON.parse([...outcomes][0] as string)
    expect(score).toBe(0.7)
  })

  test('a node waits for every TaskNode parent and sees their outputs in declaration order', async () => {
    const judge = scriptedJudge({
      rules,
      delayMs: (request) => (userText(request).includes('List the facts') ? 30 : 0),
    })
    const metric = new DAGMetric({ name: 'Join', dag: new DeepAcyclicGraph({ rootNodes: graph() }), model: judge })
    await metric.measure(testCase)
    const tone = judge.requests.find((request) => userText(request).includes('Tone?')) as JudgeRequest<unknown>
    expect(JSON.parse(dataOf(tone))).toEqual({
      'Outputs of earlier steps': { Facts: 'It greets.', Style: 'Friendly.' },
    })
  })

  test('asyncMode runs independent nodes concurrently; asyncMode false runs one at a time', async () => {
    const inFlight = async (asyncMode: boolean) => {
      let current = 0
      let most = 0
      const judge = scriptedJudge({
        rules,
        delayMs: () => {
          current += 1
          most = Math.max(most, current)
          setTimeout(() => {
            current -= 1
          }, 20)
          return 20
        },
      })
      const metric = new DAGMetric({
        name: 'Mode',
        dag: new DeepAcyclicGraph({ rootNodes: graph() }),
        model: judge,
        asyncMode,
      })
      const result = await metric.measure(testCase)
      expect(result.score).toBe(0.7)
      return most
    }
    expect(await inFlight(true)).toBe(3)
    expect(await inFlight(false)).toBe(1)
  })

  test('one metric instance serves many concurrent measurements independently', async () => {
    const judge = scriptedJudge({
      rules: [
        { match: 'Grammar?', answer: (request: JudgeRequest<unknown>) => verdict(userText(request).includes('good')) },
      ],
      delayMs: () => Math.floor(Math.random() * 10),
    })
    const metric = new DAGMetric({
      name: 'Shared',
      dag: new DeepAcyclicGraph({ rootNodes: [binary('Grammar?', leaf(true, 10), leaf(false, 0))] }),
      model: judge,
    })
    const cases = Array.from({ length: 20 }, (_, index) => ({ input: 'x', actualOutput: index % 2 ? 'good' : 'bad' }))
    const results = await Promise.all(cases.map((item) => metric.measure(item)))
    expect(results.map((result) => result.score)).toEqual(cases.map((_, index) => (index % 2 ? 1 : 0)))
  })
})

describe('failures', () => {
  test('a failing judge call fails the measurement, cancels calls in flight and starts no new one', async () => {
    const signals: AbortSignal[] = []
    const judge = {
      name: 'flaky',
      async generate<T>(request: JudgeRequest<T>) {
        if (request.signal) signals.push(request.signal)
        if (userText(request).includes('Broken?')) throw new Error('upstream exploded')
        await new Promise((resolve) => setTimeout(resolve, 50))
        return {
          value: { verdict: true, reason: 'ok' } as T,
          usage: { promptTokens: 1, completionTokens: 1, costUsd: 0 },
          cached: false,
        }
      },
    }
    const after = binary('After?', leaf(true, 10), leaf(false, 0))
    const slow = binary('Slow?', new VerdictNode({ verdict: true, child: after }), leaf(false, 0))
    const metric = new DAGMetric({
      name: 'Failing',
      dag: new DeepAcyclicGraph({ rootNodes: [slow, binary('Broken?', leaf(true, 1), leaf(false, 0))] }),
      model: judge,
    })
    const result = await metric.measure(testCase)
    expect(result.error?.message).toBe('BinaryJudgementNode (criteria: "Broken?") failed: upstream exploded')
    expect(result.error?.node).toBe('BinaryJudgementNode (criteria: "Broken?")')
    expect(result.success).toBe(false)
    expect(signals.every((signal) => signal.aborted)).toBe(true)
    expect(signals).toHaveLength(2)
    expect(result.trace.nodes.find((node) => node.text === 'After?')?.status).toBe('skipped')
  })

  test('a failing child metric is named with the verdict it sits under, keeping its own error', async () => {
    const child: Metric<LLMTestCase> = {
      name: 'Child',
      kind: 'single-turn',
      threshold: 0.5,
      async measure() {
        const error = new JudgeOutputError('Judging the reply at turn 3 failed: no JSON', 'oops')
        return fakeResult({ name: 'Child', error })
      },
    }
    const { metric } = dagMetric(
      [
        new BinaryJudgementNode({
          criteria: 'Relevant?',
          label: 'Gate',
          evaluationParams: output,
          children: [new VerdictNode({ verdict: true, child }), leaf(false, 0)],
        }),
      ],
      [{ match: 'Relevant?', answer: verdict(true) }],
    )
    const result = await metric.measure(testCase)
    expect(result.error).toBeInstanceOf(JudgeOutputError)
    expect(result.error).toMatchObject({
      code: 'JUDGE_OUTPUT_INVALID',
      rawOutput: 'oops',
      node: 'BinaryJudgementNode "Gate" → VerdictNode (verdict: true)',
    })
    expect(result.error?.message).toBe(
      'BinaryJudgementNode "Gate" → VerdictNode (verdict: true) failed: its metric "Child" failed: Judging the reply at turn 3 failed: no JSON',
    )
  })

  test('an AbortSignal cancels the measurement promptly', async () => {
    const judge = scriptedJudge({ rules: [{ match: 'Grammar?', answer: verdict(true) }], delayMs: 5_000 })
    const metric = new DAGMetric({
      name: 'Aborted',
      dag: new DeepAcyclicGraph({ rootNodes: [binary('Grammar?', leaf(true, 10), leaf(false, 0))] }),
      model: judge,
    })
    const started = performance.now()
    const result = await metric.measure(testCase, { signal: AbortSignal.timeout(30) })
    expect(performance.now() - started).toBeLessThan(2_000)
    expect(result.error?.code).toBe('MEASUREMENT_ABORTED')
    // The caller stopped the measurement; no node failed, so none is named.
    expect(result.error?.message).toMatch(/^The measurement was aborted/)
    expect(result.error?.node).toBeUndefined()
  })

  test('a missing parameter fails the measurement before any judge call, naming the parameter and the node', async () => {
    const expected = new BinaryJudgementNode({
      criteria: 'Matches?',
      evaluationParams: [LLMTestCaseParams.EXPECTED_OUTPUT],
      children: [leaf(true, 10), leaf(false, 0)],
    })
    const { judge, metric } = dagMetric([expected], [])
    const result = await metric.measure(testCase)
    expect(judge.requests).toHaveLength(0)
    expect(result.error?.code).toBe('TEST_CASE_PARAM_MISSING')
    expect(result.error?.message).toMatchInlineSnapshot(
      `"The test case has no 'expectedOutput' but the metric "Test DAG" needs it (needed by BinaryJudgementNode (criteria: "Matches?")). Add 'expectedOutput' to the test case, or remove it from the metric's evaluationParams."`,
    )
  })

  test('a conversation given to a single-turn DAG gets an error saying which metric to use', async () => {
    const { metric } = dagMetric([binary('Ok?', leaf(true, 10), leaf(false, 0))], [])
    const result = await metric.measure({ turns: [{ role: 'user', content: 'hi' }] } as never)
    expect(result.error?.message).toContain('Use ConversationalDAGMetric')
  })
})

describe('scores and reasons', () => {
  const neutral = () =>
    dagMetric(
      [
        new NonBinaryJudgementNode({
          criteria: 'Tone?',
          evaluationParams: output,
          children: [new VerdictNode({ verdict: 'Warm', score: 10 }), new VerdictNode({ verdict: 'Flat', score: 5 })],
        }),
      ],
      [{ match: 'Tone?', answer: { verdict: 'Flat', reason: 'It is plain.' } }],
    )

  test('strictMode makes the threshold 1 and any score below 1 a 0', async () => {
    const judge = scriptedJudge({ rules: [{ match: 'Tone?', answer: { verdict: 'Flat', reason: 'plain' } }] })
    const { metric } = neutral()
    const strict = new DAGMetric({ name: 'Strict', dag: metric.dag as never, model: judge, strictMode: true })
    const result = await strict.measure(testCase)
    expect(result).toMatchObject({ score: 0, threshold: 1, success: false, strictMode: true })
    expect(strict.threshold).toBe(1)
  })

  test('in strict mode the reason states the final score, and what the walk reached', async () => {
    const { metric, judge } = neutral()
    const strict = new DAGMetric({ name: 'Strict', dag: metric.dag as never, model: judge, strictMode: true })
    const result = await strict.measure(testCase)
    expect(result.score).toBe(0)
    expect(result.reason).toBe(
      'The walk scored 0: its verdicts lead to 0.5, and strict mode counts anything below 1 as 0. “Tone?” → Flat: It is plain.',
    )
  })

  test('summarizeReason in strict mode tells the judge the final score and why it differs from the walk', async () => {
    const judge = scriptedJudge({
      rules: [
        { match: 'Tone?', answer: { verdict: 'Flat', reason: 'It is plain.' } },
        { match: 'walked a decision tree', answer: { reason: 'Flat tone is not perfect, so strict mode gives 0.' } },
      ],
    })
    const { metric } = neutral()
    const strict = new DAGMetric({
      name: 'Strict',
      dag: metric.dag as never,
      model: judge,
      strictMode: true,
      summarizeReason: true,
    })
    const result = await strict.measure(testCase)
    expect(result.reason).toBe('Flat tone is not perfect, so strict mode gives 0.')
    expect(taskText(judge.requests[1] as JudgeRequest<unknown>)).toMatchInlineSnapshot(`
      "An evaluation named "Strict" walked a decision tree and scored 0 on a scale from 0 to 1.
      Its verdicts led to 0.5, but it runs in strict mode, which counts any score below 1
      as 0, so its final score is 0. Say so.
      The data lists the steps it took, in order, with each verdict and the reason given for it.
      Explain in two or three sentences why the final score is what it is. Do not invent steps; do not restate the
      score as a number more than once."
    `)
  })

  test('with parallel leaves the reason quotes the leaf that set the minimum, not the first that ran', async () => {
    const child = (score: number): Metric<LLMTestCase> => ({
      name: 'Child',
      kind: 'single-turn',
      threshold: 0.5,
      measure: async () => fakeResult({ name: 'Child', score, reason: `child says ${score}` }),
    })
    const run = async (childScore: number, summarizeReason = false) => {
      const { judge, metric } = dagMetric(
        [
          binary('Accurate?', new VerdictNode({ verdict: true, child: child(childScore) }), leaf(false, 0)),
          binary('Polite?', leaf(true, 6), leaf(false, 0)),
        ],
        [
          { match: 'Accurate?', answer: verdict(true, 'It is right.') },
          { match: 'Polite?', answer: verdict(true, 'It is kind.') },
          { match: 'walked a decision tree', answer: { reason: 'summary' } },
        ],
        { summarizeReason },
      )
      return { result: await metric.measure(testCase), judge }
    }
    const scoredLeafLowest = await run(0.9)
    expect(scoredLeafLowest.result.score).toBe(0.6)
    expect(scoredLeafLowest.result.reason).toBe(
      'The walk scored 0.6 (the lowest of 2 verdicts reached). “Polite?” → true: It is kind.',
    )
    const metricLowest = await run(0.35)
    expect(metricLowest.result.score).toBe(0.35)
    expect(metricLowest.result.reason).toBe(
      'The walk scored 0.35 (the lowest of 2 verdicts reached). “Accurate?” → true: It is right. Then Child scored 0.35: child says 0.35',
    )
    const summarising = await run(0.9, true)
    expect(taskText(summarising.judge.requests.at(-1) as JudgeRequest<unknown>)).toMatchInlineSnapshot(`
      "An evaluation named "Test DAG" walked a decision tree and scored 0.6 on a scale from 0 to 1.
      Parallel branches reached 2 verdicts and the score is the lowest of them, the one reached by
      “Polite?” → true. Explain the score from that branch.
      The data lists the steps it took, in order, with each verdict and the reason given for it.
      Explain in two or three sentences why the final score is what it is. Do not invent steps; do not restate the
      score as a number more than once."
    `)
  })

  test('the reason comes from the walked path without another judge call', async () => {
    const { judge, metric } = neutral()
    const result = await metric.measure(testCase)
    expect(judge.requests).toHaveLength(1)
    expect(result.reason).toBe('The walk scored 0.5. “Tone?” → Flat: It is plain.')
  })

  test('summarizeReason asks the judge once more for a prose reason built from the path', async () => {
    const judge = scriptedJudge({
      rules: [
        { match: 'Tone?', answer: { verdict: 'Flat', reason: 'It is plain.' } },
        { match: 'walked a decision tree', answer: { reason: 'The reply was judged flat in tone, so half marks.' } },
      ],
    })
    const { metric } = neutral()
    const summarising = new DAGMetric({
      name: 'Summary',
      dag: metric.dag as never,
      model: judge,
      summarizeReason: true,
    })
    const result = await summarising.measure(testCase)
    expect(result.reason).toBe('The reply was judged flat in tone, so half marks.')
    expect(result.usage.judgeCalls).toBe(2)
    expect(JSON.parse(dataOf(judge.requests[1] as JudgeRequest<unknown>))).toEqual({
      Steps: [{ step: 'Tone?', verdict: 'Flat', reason: 'It is plain.' }],
    })
  })

  test('includeReason false leaves the reason out', async () => {
    const { metric } = neutral()
    const quiet = new DAGMetric({
      name: 'Quiet',
      dag: metric.dag as never,
      model: scriptedJudge({ rules: [{ match: 'Tone?', answer: { verdict: 'Flat', reason: 'x' } }] }),
      includeReason: false,
    })
    expect((await quiet.measure(testCase)).reason).toBeUndefined()
  })

  test('verboseMode prints the trace as the measurement ends', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {})
    const { metric } = neutral()
    const verbose = new DAGMetric({
      name: 'Loud',
      dag: metric.dag as never,
      model: scriptedJudge({ rules: [{ match: 'Tone?', answer: { verdict: 'Flat', reason: 'x' } }] }),
      verboseMode: true,
    })
    await verbose.measure(testCase)
    expect(log).toHaveBeenCalledTimes(1)
    expect(String(log.mock.calls[0]?.[0])).toContain('● Flat → 5  ◀ score 0.5')
  })

  test('a metric under a verdict gives the DAG its score, nests its trace and keeps its own options', async () => {
    const seen: LLMTestCase[] = []
    const child: Metric<LLMTestCase> = {
      name: 'Child',
      kind: 'single-turn',
      threshold: 0.9,
      async measure(item) {
        seen.push(item)
        return fakeResult({ name: 'Child', score: 0.35, threshold: 0.9, reason: 'mostly wrong' })
      },
    }
    const { metric } = dagMetric(
      [binary('Relevant?', new VerdictNode({ verdict: true, child }), leaf(false, 0))],
      [{ match: 'Relevant?', answer: verdict(true) }],
    )
    const result = await metric.measure(testCase)
    expect(seen).toEqual([testCase])
    expect(result.score).toBe(0.35)
    expect(result.reason).toContain('Then Child scored 0.35: mostly wrong')
    expect(result.verboseLogs).toContain('metric Child: score 0.35 (threshold 0.9)')
    expect(result.usage.judgeCalls).toBe(2)
  })
})

function userText(request: JudgeRequest<unknown>): string {
  return request.messages.filter((message) => message.role === 'user').at(-1)?.content ?? ''
}

/** The task part of a prompt, above its data block. */
function taskText(request: JudgeRequest<unknown>): string {
  return userText(request).split('\n\n<<<')[0] ?? ''
}

function dataOf(request: JudgeRequest<unknown>): string {
  return JSON.stringify(readData(userText(request)) ?? {})
}

function fakeResult(fields: Partial<MetricResult>): MetricResult {
  return {
    name: 'fake',
    score: 0,
    threshold: 0.5,
    success: false,
    reason: undefined,
    strictMode: false,
    error: undefined,
    trace: { metric: 'fake', nodes: [], roots: [], notes: [] },
    verboseLogs: '',
    usage: { judgeCalls: 1, cachedCalls: 0, promptTokens: 5, completionTokens: 5, costUsd: 0 },
    durationMs: 1,
    judgeModel: 'scripted',
    ...fields,
  }
}
