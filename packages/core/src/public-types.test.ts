import { describe, expectTypeOf, test } from 'vitest'
import {
  BinaryJudgementNode,
  type BinaryJudgementNodeOptions,
  type CodeCheckResult,
  CodeNode,
  type CodeNodeView,
  ConversationalBinaryJudgementNode,
  ConversationalCodeNode,
  type ConversationalCodeNodeView,
  ConversationalDAGMetric,
  type ConversationalMetric,
  ConversationalVerdictNode,
  DAGMetric,
  DeepAcyclicGraph,
  type JudgeModel,
  type LLMTestCase,
  LLMTestCaseParams,
  type MetricResult,
  OpenAIJudge,
  type OpenAIJudgeOptions,
  TaskNode,
  ToolCallNode,
  TurnParams,
  VerdictNode,
  type VerdictNodeOptions,
} from './index.js'

// These tests run in the type checker (`pnpm typecheck`): each @ts-expect-error must stay an error. Invalid
// constructions sit in closures that are never called, since they would also throw at run time.
const typeOnly = (_build: () => unknown) => {}
const verdicts = () => [new VerdictNode({ verdict: true, score: 10 }), new VerdictNode({ verdict: false, score: 0 })]
const conversationalVerdicts = () => [
  new ConversationalVerdictNode({ verdict: true, score: 10 }),
  new ConversationalVerdictNode({ verdict: false, score: 0 }),
]

describe('public types', () => {
  test('single-turn and conversational nodes cannot be mixed', () => {
    const conversational = new ConversationalBinaryJudgementNode({
      criteria: 'Ok?',
      children: conversationalVerdicts(),
    })
    typeOnly(
      () =>
        new TaskNode({
          instructions: 'Extract',
          outputLabel: 'Out',
          // @ts-expect-error a single-turn TaskNode takes single-turn children only
          children: [conversational],
        }),
    )
    // @ts-expect-error a single-turn verdict continues at single-turn nodes only
    typeOnly(() => new VerdictNode({ verdict: true, child: conversational }))
    expectTypeOf(conversational.mode).toEqualTypeOf<'conversational'>()
  })

  test('a TaskNode never takes a verdict child', () => {
    const verdict = new VerdictNode({ verdict: true, score: 1 })
    typeOnly(
      () =>
        new TaskNode({
          instructions: 'Extract',
          outputLabel: 'Out',
          // @ts-expect-error verdicts belong under judgements
          children: [verdict],
        }),
    )
  })

  test('a verdict takes a score or a child, not both', () => {
    const child = new BinaryJudgementNode({ criteria: 'x', children: [] })
    // @ts-expect-error score and child are exclusive
    const both: VerdictNodeOptions = { verdict: true, score: 1, child }
    typeOnly(() => new VerdictNode(both))
  })

  test('evaluationParams come from the matching enum', () => {
    const options: BinaryJudgementNodeOptions = {
      criteria: 'Ok?',
      children: verdicts(),
      // @ts-expect-error TurnParams belong to conversational nodes
      evaluationParams: [TurnParams.CONTENT],
    }
    typeOnly(() => new BinaryJudgementNode(options))
    new BinaryJudgementNode({ criteria: 'Ok?', children: verdicts(), evaluationParams: [LLMTestCaseParams.INPUT] })
  })

  test('each DAG metric accepts only a graph of its own mode', () => {
    const single = new DeepAcyclicGraph({
      rootNodes: [new BinaryJudgementNode({ criteria: 'Ok?', evaluationParams: ['input'], children: verdicts() })],
    })
    new DAGMetric({ name: 'ok', dag: single })
    // @ts-expect-error a conversational metric needs Conversational* nodes
    typeOnly(() => new ConversationalDAGMetric({ name: 'wrong', dag: single }))
  })

  test('measure takes the matching test case and resolves to a result', () => {
    const metric = new DAGMetric({
      name: 'ok',
      dag: new DeepAcyclicGraph({
        rootNodes: [new BinaryJudgementNode({ criteria: 'Ok?', evaluationParams: ['input'], children: verdicts() })],
      }),
    })
    expectTypeOf(metric.measure).parameter(0).toEqualTypeOf<LLMTestCase>()
    expectTypeOf(metric.measure).returns.resolves.toEqualTypeOf<MetricResult>()
    expectTypeOf<ConversationalDAGMetric>().toMatchTypeOf<ConversationalMetric>()
  })

  test('code and tool-call nodes: typed views, and no mixing of modes', () => {
    const code = new CodeNode({
      name: 'Short',
      evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
      check: (view) => {
        expectTypeOf(view).toEqualTypeOf<CodeNodeView>()
        expectTypeOf(view.actualOutput).toEqualTypeOf<string | undefined>()
        expectTypeOf(view.outputs).toEqualTypeOf<Readonly<Record<string, string>>>()
        return { verdict: true, reason: 'short' }
      },
      children: verdicts(),
    })
    new ConversationalCodeNode({
      name: 'Async',
      evaluationParams: [TurnParams.CONTENT],
      check: async (view) => {
        expectTypeOf(view).toEqualTypeOf<ConversationalCodeNodeView>()
        return 'yes' satisfies CodeCheckResult
      },
      // @ts-expect-error a conversational code node takes Conversational* verdicts only
      children: verdicts(),
    })
    typeOnly(
      () =>
        // @ts-expect-error a single-turn code node names LLMTestCaseParams only
        new CodeNode({ name: 'x', check: () => true, evaluationParams: [TurnParams.SCENARIO], children: [] }),
    )
    // @ts-expect-error a check returns a verdict, not a number
    typeOnly(() => new CodeNode({ name: 'x', check: () => 1, children: [] }))
    const tools = new ToolCallNode({ required: ['search'], children: verdicts() })
    const conversational = new ConversationalBinaryJudgementNode({
      criteria: 'Ok?',
      children: conversationalVerdicts(),
    })
    typeOnly(
      () => new ToolCallNode({ required: ['search'], children: [new VerdictNode({ verdict: true, child: code })] }),
    )
    // @ts-expect-error a single-turn tool-call node takes single-turn verdicts only
    typeOnly(() => new ToolCallNode({ forbidden: ['x'], children: conversationalVerdicts() }))
    // @ts-expect-error a conversational verdict continues at conversational nodes only
    typeOnly(() => new ConversationalVerdictNode({ verdict: true, child: tools }))
    // @ts-expect-error a single-turn verdict continues at single-turn nodes only
    typeOnly(() => new VerdictNode({ verdict: true, child: conversational }))
    new DAGMetric({ name: 'mixed', dag: new DeepAcyclicGraph({ rootNodes: [tools, code] }) })
    // @ts-expect-error a conversational metric needs Conversational* nodes
    typeOnly(() => new ConversationalDAGMetric({ name: 'wrong', dag: new DeepAcyclicGraph({ rootNodes: [tools] }) }))
  })
})

describe('judges and the cache key', () => {
  test('OpenAIJudge takes a cacheNamespace and names its endpoint apart from its cache identity', () => {
    expectTypeOf<OpenAIJudgeOptions['cacheNamespace']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<OpenAIJudge['endpoint']>().toEqualTypeOf<string>()
    expectTypeOf<JudgeModel['endpoint']>().toEqualTypeOf<string | undefined>()
    // @ts-expect-error: a namespace is a name
    typeOnly(() => new OpenAIJudge({ cacheNamespace: 4 }))
  })
})
