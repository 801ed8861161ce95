import { describe, expectTypeOf, test } from 'vitest'
import {
  BinaryJudgementNode,
  type BinaryJudgementNodeOptions,
  type Calibration,
  type CodeCheckResult,
  CodeNode,
  type CodeNodeTurn,
  type CodeNodeView,
  ConversationalBinaryJudgementNode,
  ConversationalCodeNode,
  type ConversationalCodeNodeView,
  type ConversationalCodeNodeViewOf,
  ConversationalDAGMetric,
  type ConversationalMetric,
  ConversationalNonBinaryJudgementNode,
  ConversationalTaskNode,
  type ConversationalTestCase,
  ConversationalVerdictNode,
  calibrate,
  DAGMetric,
  DeepAcyclicGraph,
  type DotOptions,
  GEval,
  type JudgeModel,
  type LLMTestCase,
  type LLMTestCaseParam,
  LLMTestCaseParams,
  type MetricResult,
  MultiTurnParams,
  NonBinaryJudgementNode,
  OpenAIJudge,
  type OpenAIJudgeOptions,
  SingleTurnParams,
  TaskNode,
  ToolCallNode,
  type TrialAggregate,
  type TrialResult,
  type TurnParam,
  TurnParams,
  VerdictNode,
  type VerdictNodeOptions,
  type VerdictOutcome,
} from './index.js'
import { type CacheReport, scrubTokens, scrubValue, verifyCache } from './runtime.js'

// These tests run in the type checker (`pnpm typecheck`): each @ts-expect-error must stay an error. Invalid
// constructions sit in closures that are never called, since they would also throw at run time.
const typeOnly = (_build: () => unknown) => {}
const verdicts = () => [new VerdictNode({ verdict: true, score: 10 }), new VerdictNode({ verdict: false, score: 0 })]
const conversationalVerdicts = () => [
  new ConversationalVerdictNode({ verdict: true, score: 10 }),
  new ConversationalVerdictNode({ verdict: false, score: 0 }),
]

describe('public types', () => {
  test('a graph draws itself in Mermaid and DOT, optionally over a result’s trace', () => {
    expectTypeOf<DeepAcyclicGraph['toDot']>().parameter(0).toEqualTypeOf<DotOptions | undefined>()
    expectTypeOf<DotOptions['trace']>().toEqualTypeOf<MetricResult['trace'] | undefined>()
    expectTypeOf<DeepAcyclicGraph['toDot']>().returns.toBeString()
  })

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

  test('trials and aggregate are metric and measure options; a result may carry its trials', () => {
    const metric = new GEval({
      name: 'ok',
      criteria: 'Ok?',
      evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
      trials: 5,
      aggregate: 'majority',
    })
    expectTypeOf(metric.measure).parameter(1).exclude<undefined>().toHaveProperty('trials')
    expectTypeOf<MetricResult['trials']>().toEqualTypeOf<readonly TrialResult[] | undefined>()
    expectTypeOf<MetricResult['passRate']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<TrialAggregate>().toEqualTypeOf<'mean' | 'median' | 'min' | 'majority'>()
    // @ts-expect-error aggregate is one of the named ways
    typeOnly(() => new GEval({ name: 'x', criteria: 'Ok?', evaluationParams: ['input'], aggregate: 'avg' }))
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
        // It names a turn-level field, so its view has the turns.
        expectTypeOf(view).toEqualTypeOf<ConversationalCodeNodeViewOf<['content']>>()
        expectTypeOf(view).toExtend<ConversationalCodeNodeView>()
        expectTypeOf(view.turns).toEqualTypeOf<readonly CodeNodeTurn[]>()
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

  test('top-down building: addNode returns the child, addVerdict the verdict, typed by mode', () => {
    const extract = new TaskNode({ instructions: 'x', outputLabel: 'X', evaluationParams: [SingleTurnParams.INPUT] })
    const present = extract.addNode(new BinaryJudgementNode({ criteria: 'Ok?' }))
    expectTypeOf(present).toEqualTypeOf<BinaryJudgementNode>()
    const order = new NonBinaryJudgementNode({ criteria: 'Order?' })
    expectTypeOf(present.addVerdict(false, { score: 0 })).toEqualTypeOf<VerdictNode>()
    const shared = present.addVerdict(true, { then: order })
    expectTypeOf(order.addVerdict('Yes', { score: 10 })).toEqualTypeOf<VerdictNode>()
    expectTypeOf(new BinaryJudgementNode({ criteria: 'Again?' }).addVerdict(shared)).toEqualTypeOf<VerdictNode>()
    expectTypeOf<VerdictOutcome<TaskNode>>().toEqualTypeOf<
      { score: number; then?: undefined } | { then: TaskNode; score?: undefined }
    >()
    // @ts-expect-error a binary judgement's verdicts are booleans
    typeOnly(() => present.addVerdict('Yes', { score: 1 }))
    // @ts-expect-error a non-binary judgement's verdicts are strings
    typeOnly(() => order.addVerdict(true, { score: 1 }))
    // @ts-expect-error score or then, never both
    typeOnly(() => order.addVerdict('No', { score: 1, then: present }))
    // @ts-expect-error score or then, never neither
    typeOnly(() => order.addVerdict('No', {}))
    // @ts-expect-error a TaskNode's child is never a verdict
    typeOnly(() => extract.addNode(new VerdictNode({ verdict: true, score: 1 })))
    const summary = new ConversationalTaskNode({ instructions: 'x', outputLabel: 'X', evaluationParams: ['content'] })
    const tone = summary.addNode(new ConversationalNonBinaryJudgementNode({ criteria: 'Tone?' }))
    expectTypeOf(tone.addVerdict('Warm', { score: 10 })).toEqualTypeOf<ConversationalVerdictNode>()
    // @ts-expect-error a conversational task takes conversational nodes only
    typeOnly(() => summary.addNode(present))
    // @ts-expect-error a conversational verdict continues at conversational nodes only
    typeOnly(() => tone.addVerdict('Cold', { then: present }))
  })

  test('SingleTurnParams and MultiTurnParams: the older names plus METADATA and TAGS', () => {
    expectTypeOf(SingleTurnParams).toMatchTypeOf<typeof LLMTestCaseParams>()
    expectTypeOf(SingleTurnParams.METADATA).toEqualTypeOf<'metadata'>()
    expectTypeOf(SingleTurnParams.TAGS).toEqualTypeOf<'tags'>()
    expectTypeOf(MultiTurnParams).toMatchTypeOf<typeof TurnParams>()
    expectTypeOf<'metadata' | 'tags'>().toMatchTypeOf<LLMTestCaseParam>()
    expectTypeOf<'metadata' | 'tags'>().toMatchTypeOf<TurnParam>()
    expectTypeOf<LLMTestCase['tags']>().toEqualTypeOf<string[] | undefined>()
    expectTypeOf<ConversationalTestCase['tags']>().toEqualTypeOf<string[] | undefined>()
    new BinaryJudgementNode({ criteria: 'Ok?', evaluationParams: [SingleTurnParams.METADATA], children: verdicts() })
    new ConversationalBinaryJudgementNode({
      criteria: 'Ok?',
      evaluationParams: [MultiTurnParams.TAGS],
      children: conversationalVerdicts(),
    })
    // @ts-expect-error LLMTestCaseParams itself keeps its printed values
    typeOnly(() => LLMTestCaseParams.METADATA)
  })

  test("calibrate() takes cases of the metric's kind with one kind of label, and keeps their type", () => {
    const single = new DAGMetric({
      name: 'single',
      dag: new DeepAcyclicGraph({
        rootNodes: [
          new BinaryJudgementNode({
            criteria: 'Ok?',
            evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
            children: verdicts(),
          }),
        ],
      }),
    })
    const answer = { input: 'Hi', actualOutput: 'Hello' }
    typeOnly(() =>
      expectTypeOf(calibrate(single, [{ testCase: answer, label: { pass: true } }])).resolves.toEqualTypeOf<
        Calibration<LLMTestCase>
      >(),
    )
    // @ts-expect-error a label is { pass: boolean } or { score: number }
    typeOnly(() => calibrate(single, [{ testCase: answer, label: { pass: 'yes' } }]))
    // @ts-expect-error a single-turn metric calibrates on single-turn cases
    typeOnly(() => calibrate(single, [{ testCase: { turns: [] }, label: { score: 1 } }]))
  })

  test('the cache check and the scrubbers keep their shapes', () => {
    typeOnly(() => {
      const report: CacheReport = verifyCache('.judgetree/cache')
      expectTypeOf(report.problems[0]?.file).toEqualTypeOf<string | undefined>()
      expectTypeOf(report.ok).toEqualTypeOf<boolean>()
      expectTypeOf(scrubValue({ reason: 'x' }, 'key-12345678')).toEqualTypeOf<{ reason: string }>()
      const tokens = scrubTokens([{ token: 'a', logprob: -1, topLogprobs: [] }])
      expectTypeOf(tokens[0]?.logprob).toEqualTypeOf<number | undefined>()
      // @ts-expect-error the directory is a path
      verifyCache(1)
    })
  })
})

describe('rate limits in the public types (issue 15)', () => {
  test('a judge may leave 429 retries to the runtime; runtimes, coordinators and summaries say what happened', () => {
    expectTypeOf<import('./index.js').JudgeModel['rateLimitRetries']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<import('./runtime.js').JudgeRuntimeStats['rateLimited']>().toEqualTypeOf<number>()
    expectTypeOf<import('./runtime.js').JudgeRuntimeStats['currentConcurrency']>().toEqualTypeOf<number>()
    expectTypeOf<import('./runtime.js').CoordinatorStats['currentConcurrency']>().toEqualTypeOf<number>()
    expectTypeOf<import('./runtime.js').CoordinatorStats['rateLimited']>().toEqualTypeOf<number>()
    expectTypeOf<NonNullable<import('./index.js').EvaluationSummary['rateLimits']>>().toEqualTypeOf<{
      readonly rateLimited: number
      readonly concurrency: number
    }>()
  })
})

describe('evaluate() summary (issue 16)', () => {
  test('counts evaluations, and still has the deprecated metrics count', () => {
    expectTypeOf<import('./index.js').EvaluationSummary['evaluations']>().toEqualTypeOf<number>()
    expectTypeOf<import('./index.js').EvaluationSummary['metrics']>().toEqualTypeOf<number>()
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

  test('OpenAIJudge takes OpenAI’s reasoning efforts, any other name a server takes, and marks sampling not applied', () => {
    typeOnly(() => new OpenAIJudge({ reasoningEffort: 'xhigh' }))
    typeOnly(() => new OpenAIJudge({ reasoningEffort: 'my-server-effort' }))
    // @ts-expect-error: an effort is a name
    typeOnly(() => new OpenAIJudge({ reasoningEffort: 2 }))
    expectTypeOf<'none' | 'max'>().toMatchTypeOf<import('./index.js').ReasoningEffort>()
    expectTypeOf<import('./index.js').JudgeResponse<unknown>['samplingNotApplied']>().toEqualTypeOf<
      string | undefined
    >()
  })
})
