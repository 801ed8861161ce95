import type { JudgetreeError } from '../errors.js'
import type { ConversationalTestCase, LLMTestCase } from '../test-case/schemas.js'
import type { MetricTrace } from '../trace/types.js'

/** Judge calls and their cost, for one measurement or summed over a run. */
export interface MetricUsage {
  /** Judge calls made, including ones answered from the cache. */
  readonly judgeCalls: number
  /** Judge calls answered from the cache (no tokens billed). */
  readonly cachedCalls: number
  readonly promptTokens: number
  readonly completionTokens: number
  /** USD; undefined when any call's price was unknown. */
  readonly costUsd: number | undefined
}

/** The immutable outcome of one `metric.measure(testCase)`. */
export interface MetricResult {
  /** The metric's name as shown in reports, e.g. `Instruction Following [ConversationalDAG]`. */
  readonly name: string
  /** 0..1; 0 when the metric could not be computed (see `error`). */
  readonly score: number
  /** The threshold the score was compared against (1 under strictMode). */
  readonly threshold: number
  /** `score >= threshold` and no error. */
  readonly success: boolean
  /** Why the score is what it is; undefined when `includeReason` is false. */
  readonly reason: string | undefined
  readonly strictMode: boolean
  /** Set when the metric could not be computed: a judge failure, a missing parameter, no verdict reached. */
  readonly error: JudgetreeError | undefined
  /** What the metric did, step by step: the structured form of `verboseLogs`. */
  readonly trace: MetricTrace
  /** The trace rendered as an indented tree for a terminal. */
  readonly verboseLogs: string
  readonly usage: MetricUsage
  readonly durationMs: number
  /** The judge model's name. */
  readonly judgeModel: string
}

/** Per-call options for `measure()`. */
export interface MeasureOptions {
  /** Cancels in-flight judge calls; the measurement then fails with a `MEASUREMENT_ABORTED` error. */
  readonly signal?: AbortSignal | undefined
}

/** Which kind of test case a metric judges. */
export type MetricKind = 'single-turn' | 'conversational'

/** Anything judgetree can measure a test case with: built-in metrics, DAGs, your own. */
export interface Metric<TestCase = LLMTestCase | ConversationalTestCase> {
  readonly name: string
  readonly kind: MetricKind
  readonly threshold: number
  measure(testCase: TestCase, options?: MeasureOptions): Promise<MetricResult>
}

/** A metric that judges single-turn test cases. */
export type SingleTurnMetric = Metric<LLMTestCase>
/** A metric that judges whole conversations. */
export type ConversationalMetric = Metric<ConversationalTestCase>
