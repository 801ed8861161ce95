import { describe, expect, test } from 'vitest'
import type { DagValidationError } from '../../errors.js'
import { scriptedJudge } from '../../judge/scripted-judge.js'
import { ConversationalDAGMetric, DAGMetric } from '../../metrics/dag-metric.js'
import { LLMTestCaseParams } from '../../test-case/params.js'
import type { ConversationalTestCase, LLMTestCase } from '../../test-case/schemas.js'
import { DeepAcyclicGraph } from '../graph.js'
import { BinaryJudgementNode } from './binary-judgement-node.js'
import { ConversationalToolCallNode, ToolCallNode, type ToolCallNodeOptions } from './tool-call-node.js'
import { ConversationalVerdictNode, VerdictNode } from './verdict-node.js'

const calls = (...names: string[]) => names.map((name) => ({ name }))

function gate(
  rules: Omit<ToolCallNodeOptions, 'children'>,
  onTrue: VerdictNode = new VerdictNode({ verdict: true, score: 10 }),
) {
  return new ToolCallNode({ ...rules, children: [onTrue, new VerdictNode({ verdict: false, score: 0 })] })
}

async function measure(node: ToolCallNode, testCase: LLMTestCase) {
  const judge = scriptedJudge({ rules: [] })
  const metric = new DAGMetric({ name: 'Tools', dag: new DeepAcyclicGraph({ rootNodes: [node] }), model: judge })
  const result = await metric.measure(testCase)
  expect(judge.requests).toHaveLength(0)
  expect(result.usage.judgeCalls).toBe(0)
  return { result, entry: result.trace.nodes[0] }
}

const booking = { input: 'Book a table', actualOutput: 'Booked.' }

describe('ToolCallNode', () => {
  test('true when every required tool was called and no forbidden one, with no judge call', async () => {
    const { result, entry } = await measure(gate({ required: ['search', 'book'], forbidden: ['cancel'] }), {
      ...booking,
      toolsCalled: calls('book', 'lookup', 'search'),
    })
    expect(result.score).toBe(1)
    expect(entry).toMatchObject({ kind: 'ToolCallNode', title: 'Tool calls', verdict: true })
    expect(entry?.reason).toBe(
      'Every required tool was called (search, book) and no forbidden tool was called (cancel). Tools called: book, lookup, search.',
    )
  })

  test('the reason names each missing and forbidden tool', async () => {
    const { result, entry } = await measure(
      gate({ required: ['search', 'book', 'pay'], forbidden: ['cancel', 'refund'] }),
      { ...booking, toolsCalled: calls('search', 'cancel') },
    )
    expect(result.score).toBe(0)
    expect(entry?.verdict).toBe(false)
    expect(entry?.reason).toBe(
      'Required tools "book", "pay" were not called; forbidden tool "cancel" was called. Tools called: search, cancel.',
    )
  })

  test('inOrder: required tools must come in that order, other calls between them allowed', async () => {
    const inOrder = gate({ required: ['search', 'book'], inOrder: true })
    const ordered = await measure(inOrder, { ...booking, toolsCalled: calls('search', 'lookup', 'book') })
    expect(ordered.entry?.verdict).toBe(true)
    expect(ordered.entry?.reason).toBe(
      'Every required tool was called in order (search, book). Tools called: search, lookup, book.',
    )
    const reversed = await measure(inOrder, { ...booking, toolsCalled: calls('book', 'search') })
    expect(reversed.entry?.verdict).toBe(false)
    expect(reversed.entry?.reason).toBe(
      'Required tools were not called in order search → book. Tools called: book, search.',
    )
    // Without inOrder the same calls pass.
    const anyOrder = await measure(gate({ required: ['search', 'book'] }), {
      ...booking,
      toolsCalled: calls('book', 'search'),
    })
    expect(anyOrder.entry?.verdict).toBe(true)
  })

  test('no calls at all is said so; a test case without toolsCalled fails the measurement naming the parameter', async () => {
    const { entry } = await measure(gate({ required: ['search'] }), { ...booking, toolsCalled: [] })
    expect(entry?.reason).toBe('Required tool "search" was not called. No tool was called.')
    const missing = await new DAGMetric({
      name: 'Tools',
      dag: new DeepAcyclicGraph({ rootNodes: [gate({ forbidden: ['cancel'] })] }),
      model: scriptedJudge({ rules: [] }),
    }).measure(booking)
    expect(missing.error?.code).toBe('TEST_CASE_PARAM_MISSING')
    expect(missing.error?.message).toContain('toolsCalled')
    expect(missing.error?.message).toContain('ToolCallNode (forbidden cancel)')
  })

  test('the rendered trace shows the rules, the verdict and why', async () => {
    const { result } = await measure(gate({ required: ['search', 'book'], inOrder: true, forbidden: ['cancel'] }), {
      ...booking,
      toolsCalled: calls('book', 'search'),
    })
    expect(result.verboseLogs).toMatchInlineSnapshot(`
      "[1] Tool calls: required search → book; forbidden cancel → false
      │    reason: Required tools were not called in order search → book. Tools called: book, search.
      ├─ ○ true → 10
      └─ ● false → 0  ◀ score 0"
    `)
  })

  test('its options and children are checked, every problem at once', () => {
    expect(
      () => new ToolCallNode({ required: ['a', ''], forbidden: 'b' as never, inOrder: 1 as never, children: [] }),
    ).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (4 problems):
        1. [required] ToolCallNode: Expected \`required\` to be an array of tool names (non-empty strings), got an array of 2 (array).
        2. [forbidden] ToolCallNode: Expected \`forbidden\` to be an array of tool names (non-empty strings), got 'b' (string).
        3. [in-order] ToolCallNode: Expected \`inOrder\` to be true or false, got \`1\` (number).
        4. [tool-call-rules] ToolCallNode: a tool-call node needs at least one tool name in required or forbidden.]
    `)
    expect(() => new ToolCallNode({ required: ['a'], forbidden: ['a'], children: [] })).toThrow(
      '"a" is both required and forbidden, so the verdict could never be true.',
    )
    expect(() => new ToolCallNode({ children: [] })).toThrow(
      'a tool-call node needs at least one tool name in required or forbidden.',
    )
    let error: DagValidationError | undefined
    try {
      new DeepAcyclicGraph({
        rootNodes: [new ToolCallNode({ required: ['a'], children: [new VerdictNode({ verdict: 'yes', score: 1 })] })],
      })
    } catch (caught) {
      error = caught as DagValidationError
    }
    expect(error?.issues).toEqual([
      {
        rule: 'decision-verdicts',
        node: 'ToolCallNode (required a)',
        message:
          'a ToolCallNode needs exactly two VerdictNode children, one with verdict true and one with verdict false; got "yes".',
      },
    ])
  })

  test('round-trips through toJSON and fromJSON', () => {
    const dag = new DeepAcyclicGraph({
      rootNodes: [gate({ required: ['search', 'book'], inOrder: true, forbidden: ['cancel'], label: 'Booked safely' })],
    })
    const json = dag.toJSON()
    expect(json.nodes.n1).toEqual({
      type: 'ToolCallNode',
      required: ['search', 'book'],
      forbidden: ['cancel'],
      inOrder: true,
      label: 'Booked safely',
      children: ['n2', 'n3'],
    })
    const back = DeepAcyclicGraph.fromJSON(JSON.stringify(json))
    expect(back.toJSON()).toEqual(json)
    expect(back.rootNodes[0]).toBeInstanceOf(ToolCallNode)
  })

  test('gates an LLM judgement: the judge is asked only when the tools were right', async () => {
    const polite = new BinaryJudgementNode({
      criteria: 'Is the reply polite?',
      evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
      children: [new VerdictNode({ verdict: true, score: 10 }), new VerdictNode({ verdict: false, score: 3 })],
    })
    const dag = new DeepAcyclicGraph({
      rootNodes: [
        gate({ required: ['book'], forbidden: ['cancel'] }, new VerdictNode({ verdict: true, child: polite })),
      ],
    })
    const judge = scriptedJudge({ rules: [{ match: 'polite', answer: { verdict: true, reason: 'Says please.' } }] })
    const metric = new DAGMetric({ name: 'Booking', dag, model: judge })

    const blocked = await metric.measure({ ...booking, toolsCalled: calls('cancel') })
    expect(blocked.score).toBe(0)
    expect(judge.requests).toHaveLength(0)
    expect(blocked.verboseLogs).toMatchInlineSnapshot(`
      "[1] Tool calls: required book; forbidden cancel → false
      │    reason: Required tool "book" was not called; forbidden tool "cancel" was called. Tools called: cancel.
      ├─ ○ true
      │  └─ [ ] Judgement: Is the reply polite?  (not reached)
      │     └─ … 2 nodes below not reached
      └─ ● false → 0  ◀ score 0"
    `)

    const passed = await metric.measure({ ...booking, toolsCalled: calls('book') })
    expect(passed.score).toBe(1)
    expect(judge.requests).toHaveLength(1)
    expect(passed.reason).toBe('The walk scored 1. “Is the reply polite?” → true: Says please.')
    expect(dag.toMermaid({ trace: passed.trace })).toMatchInlineSnapshot(`
      "flowchart TD
        n1{{"Tool calls: required book; forbidden cancel"}}
        n2(["true"])
        n3{"Is the reply polite?"}
        n4(["true → 10"])
        n5(["false → 3"])
        n6(["false → 0"])
        n1 --> n2
        n1 --> n6
        n2 --> n3
        n3 --> n4
        n3 --> n5
        classDef walked fill:#dcfce7,stroke:#15803d,stroke-width:2px
        classDef skipped fill:#f4f4f5,stroke:#a1a1aa,color:#71717a,stroke-dasharray:4 3
        classDef failed fill:#fee2e2,stroke:#b91c1c,stroke-width:2px
        class n1,n2,n3,n4 walked
        class n5,n6 skipped
        linkStyle 0,2,3 stroke:#15803d,stroke-width:3px"
    `)
  })
})

describe('ConversationalToolCallNode', () => {
  const conversation: ConversationalTestCase = {
    turns: [
      { role: 'user', content: 'Find me a table' },
      { role: 'assistant', content: 'Found one.', toolsCalled: calls('search') },
      { role: 'user', content: 'Book it, then cancel the old one' },
      { role: 'assistant', content: 'Done.', toolsCalled: calls('book', 'cancel') },
    ],
  }

  function measureConversation(turnWindow?: readonly [number, number]) {
    const node = new ConversationalToolCallNode({
      required: ['search', 'book'],
      inOrder: true,
      forbidden: ['cancel'],
      turnWindow,
      children: [
        new ConversationalVerdictNode({ verdict: true, score: 10 }),
        new ConversationalVerdictNode({ verdict: false, score: 0 }),
      ],
    })
    const judge = scriptedJudge({ rules: [] })
    const dag = new DeepAcyclicGraph({ rootNodes: [node] })
    return new ConversationalDAGMetric({ name: 'Tools', dag, model: judge }).measure(conversation)
  }

  test('reads the calls of every turn and names the turn of a forbidden call', async () => {
    const result = await measureConversation()
    expect(result.usage.judgeCalls).toBe(0)
    expect(result.trace.nodes[0]?.reason).toBe(
      'Forbidden tool "cancel" was called (turn 3). Tools called: search, book, cancel.',
    )
  })

  test('a turnWindow limits the turns whose calls count', async () => {
    const result = await measureConversation([-1, -1])
    expect(result.trace.nodes[0]).toMatchObject({ shownTurns: [3, 3], verdict: false })
    expect(result.trace.nodes[0]?.reason).toBe(
      'Required tool "search" was not called; forbidden tool "cancel" was called (turn 3). Tools called: book, cancel.',
    )
  })
})
