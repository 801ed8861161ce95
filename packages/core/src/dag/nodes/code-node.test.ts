import { describe, expect, expectTypeOf, test, vi } from 'vitest'
import { type DagValidationError, JudgetreeError } from '../../errors.js'
import { scriptedJudge } from '../../judge/scripted-judge.js'
import { ConversationalDAGMetric, DAGMetric } from '../../metrics/dag-metric.js'
import { LLMTestCaseParams, type TurnParam, TurnParams } from '../../test-case/params.js'
import { DeepAcyclicGraph } from '../graph.js'
import { BinaryJudgementNode } from './binary-judgement-node.js'
import {
  type CodeCheckResult,
  CodeNode,
  type CodeNodeTurn,
  type CodeNodeView,
  ConversationalCodeNode,
  type ConversationalCodeNodeViewOf,
} from './code-node.js'
import { TaskNode } from './task-node.js'
import { ConversationalVerdictNode, VerdictNode } from './verdict-node.js'

const testCase = { input: 'Say hi', actualOutput: 'Hello there, friend!' }

function shortAnswer(check: (view: CodeNodeView) => CodeCheckResult | Promise<CodeCheckResult>, label?: string) {
  return new CodeNode({
    name: 'Short answer',
    label,
    check,
    evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
    children: [new VerdictNode({ verdict: true, score: 10 }), new VerdictNode({ verdict: false, score: 0 })],
  })
}

function measure(root: CodeNode, input: object = testCase) {
  const judge = scriptedJudge({ rules: [] })
  const metric = new DAGMetric({ name: 'Code', dag: new DeepAcyclicGraph({ rootNodes: [root] }), model: judge })
  return { judge, result: metric.measure(input as typeof testCase) }
}

describe('CodeNode', () => {
  test('decides a boolean verdict from the fields it names, with no judge call, and the trace shows it', async () => {
    const seen: CodeNodeView[] = []
    const { judge, result } = measure(
      shortAnswer((view) => {
        seen.push(view)
        return (view.actualOutput ?? '').split(' ').length <= 5
      }),
    )
    const measured = await result
    expect(seen).toEqual([{ outputs: {}, actualOutput: 'Hello there, friend!' }])
    expect(measured.score).toBe(1)
    expect(judge.requests).toHaveLength(0)
    expect(measured.usage.judgeCalls).toBe(0)
    expect(measured.verboseLogs).toMatchInlineSnapshot(`
      "[1] Code: Short answer → true
      │    reason: the check returned true
      ├─ ● true → 10  ◀ score 1
      └─ ○ false → 0"
    `)
    expect(measured.reason).toBe('The walk scored 1. “Short answer” → true: the check returned true')
  })

  test('an async check may pick a string verdict and give its reason', async () => {
    const node = new CodeNode({
      name: 'Length',
      evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
      check: async (view) => ({ verdict: (view.actualOutput ?? '').length > 10 ? 'long' : 'short', reason: 'counted' }),
      children: [new VerdictNode({ verdict: 'short', score: 10 }), new VerdictNode({ verdict: 'long', score: 4 })],
    })
    const { result } = measure(node)
    const measured = await result
    expect(measured.score).toBe(0.4)
    expect(measured.trace.nodes[0]).toMatchObject({
      kind: 'CodeNode',
      title: 'Code',
      verdict: 'long',
      reason: 'counted',
    })
  })

  test("is shown its TaskNode parents' outputs by label; only the task costs a judge call", async () => {
    const check = (view: CodeNodeView) => view.outputs.Headings === 'Intro, Usage'
    const code = new CodeNode({
      name: 'Has both headings',
      check,
      children: [new VerdictNode({ verdict: true, score: 10 }), new VerdictNode({ verdict: false, score: 0 })],
    })
    const task = new TaskNode({
      instructions: 'List the headings',
      outputLabel: 'Headings',
      evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
      children: [code],
    })
    const judge = scriptedJudge({ rules: [{ match: 'headings', answer: { output: 'Intro, Usage' } }] })
    const metric = new DAGMetric({ name: 'Docs', dag: new DeepAcyclicGraph({ rootNodes: [task] }), model: judge })
    const measured = await metric.measure(testCase)
    expect(measured.score).toBe(1)
    expect(judge.requests).toHaveLength(1)
    expect(measured.trace.nodes[1]).toMatchObject({ kind: 'CodeNode', inputs: ['n1'], verdict: true })
  })

  test('a thrown error fails the measurement, naming the node; nothing below it runs', async () => {
    const { result } = measure(
      shortAnswer(() => {
        throw new Error('no words here')
      }, 'Brevity'),
    )
    const measured = await result
    expect(measured.error).toBeInstanceOf(JudgetreeError)
    expect(measured.error?.message).toBe('CodeNode "Brevity" failed: its check threw: no words here')
    expect(measured.error?.node).toBe('CodeNode "Brevity"')
    expect(measured.error?.code).toBe('METRIC_FAILED')
    expect(measured.error?.cause).toMatchObject({ message: 'no words here' })
    expect(measured.success).toBe(false)
    expect(measured.verboseLogs).toContain('[✖] Code "Brevity": Short answer')
  })

  test('a thrown message reaches the result without the API key, in the env var or key-shaped', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'CANARY-local-Zq81bXk29wLm7Pt')
    try {
      const { result } = measure(
        shortAnswer(() => {
          throw new Error('boom CANARY-local-Zq81bXk29wLm7Pt and sk-proj-abcdefgh12345678ijkl')
        }, 'Brevity'),
      )
      const measured = await result
      expect(measured.error?.message).toBe('CodeNode "Brevity" failed: its check threw: boom sk-*** and sk-***')
      expect(measured.error?.cause).toMatchObject({ message: 'boom sk-*** and sk-***' })
      expect(JSON.stringify(measured.trace)).not.toMatch(/CANARY|abcdefgh/)
      expect(measured.verboseLogs).not.toMatch(/CANARY|abcdefgh/)
    } finally {
      vi.unstubAllEnvs()
    }
  })

  test('a check returning NaN or Infinity is reported with that value, not as null', async () => {
    for (const [value, shown] of [
      [Number.NaN, 'NaN'],
      [Number.POSITIVE_INFINITY, 'Infinity'],
    ] as const) {
      const measured = await measure(shortAnswer(() => value as never)).result
      expect(measured.error?.message).toBe(
        `CodeNode "Short answer" failed: its check returned ${shown}, which is not one of its verdicts (true, false). ` +
          'Return one of them, or { verdict, reason }.',
      )
    }
  })

  test('a verdict that is none of its children fails the measurement, naming the node and the value', async () => {
    const { result } = measure(shortAnswer(() => 'maybe'))
    const measured = await result
    expect(measured.error?.code).toBe('JUDGE_OUTPUT_INVALID')
    expect(measured.error?.message).toBe(
      'CodeNode "Short answer" failed: its check returned "maybe", which is not one of its verdicts (true, false). ' +
        'Return one of them, or { verdict, reason }.',
    )
  })

  test('its options and children are checked like a judgement', () => {
    expect(() => new CodeNode({ name: '', check: 'yes' as never, children: [] })).toThrow(
      'CodeNode: Expected `name` to be a non-empty string',
    )
    expect(() => new CodeNode({ name: 'Short', check: 'yes' as never, children: [] })).toThrow(
      'CodeNode "Short": Expected `check` to be a function (view) => verdict, got \'yes\' (string).',
    )
    const error = (() => {
      try {
        new DeepAcyclicGraph({
          rootNodes: [
            new CodeNode({
              name: 'One verdict',
              check: () => true,
              evaluationParams: [LLMTestCaseParams.INPUT],
              children: [new VerdictNode({ verdict: true, score: 1 }), new VerdictNode({ verdict: 'no', score: 0 })],
            }),
            new CodeNode({ name: 'Blind', check: () => true, children: [] }),
          ],
        })
      } catch (caught) {
        return caught as DagValidationError
      }
      return undefined
    })()
    expect(error?.issues.map((issue) => `${issue.rule} @ ${issue.node}`)).toEqual([
      'decision-verdicts @ CodeNode "One verdict"',
      'decision-verdicts @ CodeNode "Blind"',
      'node-without-input @ CodeNode "Blind"',
    ])
    expect(error?.issues[0]?.message).toBe(
      'a CodeNode needs VerdictNode children with verdicts true and false (when it decides yes or no), or two or ' +
        'more distinct string verdicts (when it picks one); got true, "no".',
    )
  })

  test('a DAG holding one cannot be written as JSON, and says why', () => {
    const dag = new DeepAcyclicGraph({ rootNodes: [shortAnswer(() => true)] })
    expect(() => dag.toJSON()).toThrowErrorMatchingInlineSnapshot(
      `[ConfigurationError: This DAG cannot be written as JSON: CodeNode "Short answer": its check is a function, and a function is not data. Keep the DAG in code (export it from a module your tests import), or replace each such node with one made of data, such as a BinaryJudgementNode.]`,
    )
  })

  test('fromJSON cannot build one from hand-written JSON, and says why', () => {
    const json = {
      format: 'judgetree-dag',
      version: 1,
      roots: ['n1'],
      nodes: {
        n1: { type: 'CodeNode', name: 'Short', children: ['n2', 'n3'] },
        n2: { type: 'VerdictNode', verdict: true, score: 10 },
        n3: { type: 'VerdictNode', verdict: false, score: 0 },
      },
    }
    expect(() => DeepAcyclicGraph.fromJSON(json)).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [json-code-node] node "n1" (CodeNode): a check is a function, which JSON cannot hold: build this node in code, not from JSON.]
    `)
  })

  test('Mermaid draws it as a hexagon on the walked path', async () => {
    const root = shortAnswer(() => true)
    const dag = new DeepAcyclicGraph({ rootNodes: [root] })
    const metric = new DAGMetric({ name: 'Code', dag, model: scriptedJudge({ rules: [] }) })
    const { trace } = await metric.measure(testCase)
    expect(dag.toMermaid({ trace })).toMatchInlineSnapshot(`
      "flowchart TD
        n1{{"Code: Short answer"}}
        n2(["true → 10"])
        n3(["false → 0"])
        n1 --> n2
        n1 --> n3
        classDef walked fill:#dcfce7,stroke:#15803d,stroke-width:2px
        classDef skipped fill:#f4f4f5,stroke:#a1a1aa,color:#71717a,stroke-dasharray:4 3
        classDef failed fill:#fee2e2,stroke:#b91c1c,stroke-width:2px
        class n1,n2 walked
        class n3 skipped
        linkStyle 0 stroke:#15803d,stroke-width:3px"
    `)
  })

  test('a judgement under its verdict with no input of its own is rejected: a check shows no judge anything', () => {
    const below = new BinaryJudgementNode({
      criteria: 'Polite?',
      children: [new VerdictNode({ verdict: true, score: 10 }), new VerdictNode({ verdict: false, score: 0 })],
    })
    const root = new CodeNode({
      name: 'Short',
      check: () => true,
      evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
      children: [new VerdictNode({ verdict: true, child: below }), new VerdictNode({ verdict: false, score: 0 })],
    })
    expect(() => new DeepAcyclicGraph({ rootNodes: [root] })).toThrow(
      '[node-without-input] BinaryJudgementNode (criteria: "Polite?"): would be shown nothing',
    )
  })
})

describe('ConversationalCodeNode', () => {
  const conversation = {
    scenario: 'Booking',
    turns: [
      { role: 'user' as const, content: 'Book a table' },
      { role: 'assistant' as const, content: 'Done, table for two.' },
      { role: 'user' as const, content: 'Thanks' },
    ],
  }

  test('is given the turns in its window and the conversation-level parameters it names', async () => {
    const views: unknown[] = []
    const node = new ConversationalCodeNode({
      name: 'Confirmed',
      evaluationParams: [TurnParams.CONTENT, TurnParams.SCENARIO],
      turnWindow: [-2, -2],
      check: (view) => {
        views.push(view)
        return view.turns?.some((turn) => turn.content?.startsWith('Done')) === true
      },
      children: [
        new ConversationalVerdictNode({ verdict: true, score: 10 }),
        new ConversationalVerdictNode({ verdict: false, score: 0 }),
      ],
    })
    const judge = scriptedJudge({ rules: [] })
    const metric = new ConversationalDAGMetric({
      name: 'Booked',
      dag: new DeepAcyclicGraph({ rootNodes: [node] }),
      model: judge,
    })
    const result = await metric.measure(conversation)
    expect(views).toEqual([
      {
        outputs: {},
        turns: [{ index: 1, role: 'assistant', content: 'Done, table for two.' }],
        scenario: 'Booking',
      },
    ])
    expect(result.score).toBe(1)
    expect(judge.requests).toHaveLength(0)
    expect(result.trace.nodes[0]).toMatchObject({ shownTurns: [1, 1], turnWindow: [-2, -2] })
  })

  test('a check whose node names a turn-level field has `turns` typed as present (strict TypeScript)', async () => {
    const node = new ConversationalCodeNode({
      name: 'Looked the order up',
      evaluationParams: [TurnParams.TOOLS_CALLED],
      // Without the typing, `view.turns.some` is TS18048 ('view.turns' is possibly 'undefined') under strict.
      check: (view) => view.turns.some((turn) => turn.toolsCalled?.some((tool) => tool.name === 'lookup_order')),
      children: [
        new ConversationalVerdictNode({ verdict: true, score: 10 }),
        new ConversationalVerdictNode({ verdict: false, score: 0 }),
      ],
    })
    const metric = new ConversationalDAGMetric({
      name: 'Lookup',
      dag: new DeepAcyclicGraph({ rootNodes: [node] }),
      model: scriptedJudge({ rules: [] }),
    })
    const turns = [
      { role: 'user' as const, content: 'Where is order 42?' },
      { role: 'assistant' as const, content: 'On its way.', toolsCalled: [{ name: 'lookup_order' }] },
    ]
    expect((await metric.measure({ turns })).score).toBe(1)
    expectTypeOf<ConversationalCodeNodeViewOf<['content', 'scenario']>['turns']>().toEqualTypeOf<
      readonly CodeNodeTurn[]
    >()
    // Conversation-level fields only, or params not known until run time: no turns, or maybe none.
    expectTypeOf<ConversationalCodeNodeViewOf<['scenario']>['turns']>().toEqualTypeOf<
      readonly CodeNodeTurn[] | undefined
    >()
    expectTypeOf<ConversationalCodeNodeViewOf<readonly TurnParam[]>['turns']>().toEqualTypeOf<
      readonly CodeNodeTurn[] | undefined
    >()
  })
})
