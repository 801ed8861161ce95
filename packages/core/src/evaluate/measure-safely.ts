import { toJudgetreeError } from '../errors.js'
import { describeValue } from '../internal/describe-value.js'
import type { TrialAggregate, TrialsUntilDecided } from '../metric/options.js'
import { measureTrials } from '../metric/trial-result.js'
import type { Metric, MetricResult } from '../metric/types.js'
import { NO_USAGE } from '../metric/usage.js'

/** Options of {@link measureSafely}. */
export interface MeasureSafelyOptions {
  /** Cancels the measurement's judge calls; the result then carries the metric's `MEASUREMENT_ABORTED` error. */
  readonly signal?: AbortSignal | undefined
  /** Measure this many times and combine the scores (see measureTrials); the metric's own when left out. */
  readonly trials?: number | TrialsUntilDecided | undefined
  /** How the trials' scores combine; the metric's own when left out. */
  readonly aggregate?: TrialAggregate | undefined
  /** The line `trials: { max, until: 'decided' }` stops at; the metric's own when left out. */
  readonly minPassProbability?: number | undefined
  /**
   * How the error of a metric that threw (or resolved to something else than a result) begins.
   * @default `The metric "<name>" failed instead of returning a result`
   */
  readonly failure?: string | undefined
}

/**
 * Measures `testCase` with any metric and always resolves with a result. Metrics never reject by contract; one that
 * does anyway (a hand-written one, a bug) becomes an errored result, not a crashed run. Used by evaluate(),
 * calibrate() and the runners' `toPassMetric`.
 */
export async function measureSafely(
  metric: Metric,
  testCase: unknown,
  { signal, trials, aggregate, minPassProbability, failure }: MeasureSafelyOptions = {},
): Promise<MetricResult> {
  const started = performance.now()
  let problem: unknown
  try {
    const line = minPassProbability === undefined ? {} : { minPassProbability }
    const result: unknown = await (trials !== undefined || aggregate !== undefined
      ? measureTrials(metric, testCase as never, { signal, trials, aggregate, ...line })
      : signal === undefined && minPassProbability === undefined
        ? metric.measure(testCase as never)
        : metric.measure(testCase as never, { signal, ...line }))
    if (isResult(result)) return result
    problem = new Error(`measure() resolved to ${describeValue(result)} instead of a MetricResult`)
  } catch (error) {
    problem = error
  }
  const error = toJudgetreeError(problem, failure ?? `The metric "${metric.name}" failed instead of returning a result`)
  return Object.freeze({
    name: metric.name,
    score: 0,
    threshold: typeof metric.threshold === 'number' ? metric.threshold : 0.5,
    success: false,
    reason: undefined,
    strictMode: false,
    error,
    trace: { metric: metric.name, nodes: [], roots: [], notes: [] },
    verboseLogs: '',
    usage: NO_USAGE,
    durationMs: Math.round(performance.now() - started),
    judgeModel: 'unknown',
  })
}

function isResult(value: unknown): value is MetricResult {
  if (typeof value !== 'object' || value === null) return false
  const candidate = value as Partial<Record<keyof MetricResult, unknown>>
  return (
    typeof candidate.success === 'boolean' &&
    typeof candidate.score === 'number' &&
    typeof candidate.threshold === 'number' &&
    typeof candidate.usage === 'object' &&
    Array.isArray((candidate.trace as { nodes?: unknown } | undefined)?.nodes)
  )
}
