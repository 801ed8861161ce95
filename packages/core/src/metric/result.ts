import { toJudgetreeError } from '../errors.js'
import { renderTrace } from '../trace/render.js'
import type { MetricTrace } from '../trace/types.js'
import { agreementOf } from './jury-usage.js'
import type { ResolvedMetricOptions } from './options.js'
import type { MetricResult, MetricUsage, PassProbability } from './types.js'
import { NO_USAGE } from './usage.js'

/** What a metric knows about the measurement it is finishing. */
export interface MeasurementContext {
  readonly options: ResolvedMetricOptions
  /** `performance.now()` when the measurement started. */
  readonly started: number
}

/** Builds the immutable result of a measurement that produced a score. */
export function buildResult(
  context: MeasurementContext,
  outcome: {
    readonly score: number
    readonly threshold: number
    readonly reason: string | undefined
    readonly trace: MetricTrace
    readonly usage: MetricUsage
    readonly passProbability?: PassProbability | undefined
    readonly passProbabilityUnavailable?: string | undefined
  },
): MetricResult {
  let logs: string | undefined
  return Object.freeze({
    name: context.options.name,
    score: outcome.score,
    threshold: outcome.threshold,
    success: outcome.score >= outcome.threshold,
    reason: outcome.reason,
    strictMode: context.options.strictMode,
    error: undefined,
    trace: outcome.trace,
    // Rendered on first read: most results are never printed, and rendering costs more than the walk itself.
    get verboseLogs() {
      logs ??= renderTrace(outcome.trace)
      return logs
    },
    usage: outcome.usage,
    durationMs: Math.round(performance.now() - context.started),
    judgeModel: context.options.judge.name,
    ...decisionModelOf(context.options),
    ...(outcome.passProbability !== undefined
      ? { passProbability: outcome.passProbability }
      : outcome.passProbabilityUnavailable !== undefined
        ? { passProbabilityUnavailable: outcome.passProbabilityUnavailable }
        : {}),
    ...agreementOf(outcome.usage),
  })
}

/** The decision judge's name, for a metric that has one. */
function decisionModelOf(options: ResolvedMetricOptions): { readonly decisionModel?: string } {
  return options.decisionJudge === undefined ? {} : { decisionModel: options.decisionJudge.name }
}

/**
 * Builds the result of a measurement that could not produce a score: it fails, and says why. A thrown value that is
 * not a judgetree error is the metric's own bug (METRIC_FAILED); judge calls report their failures as judgetree errors.
 */
export function errorResult(
  context: MeasurementContext,
  error: unknown,
  trace: MetricTrace = { metric: context.options.name, nodes: [], roots: [], notes: [] },
  usage: MetricUsage = NO_USAGE,
): MetricResult {
  const judgetreeError = toJudgetreeError(error, `The metric "${context.options.name}" failed`)
  let logs: string | undefined
  return Object.freeze({
    name: context.options.name,
    score: 0,
    threshold: context.options.strictMode ? 1 : context.options.threshold,
    success: false,
    reason: undefined,
    strictMode: context.options.strictMode,
    error: judgetreeError,
    trace,
    get verboseLogs() {
      logs ??= renderTrace(trace, judgetreeError.message)
      return logs
    },
    usage,
    durationMs: Math.round(performance.now() - context.started),
    judgeModel: context.options.judge.name,
    ...decisionModelOf(context.options),
    ...agreementOf(usage),
  })
}
