import type { TrialAggregate } from '../metric/options.js'
import type { MetricResult, MetricUsage, PassPivot, PassProbability, TrialSpread } from '../metric/types.js'
import { renderResult, renderSummaryLine } from '../trace/render.js'
import type { MetricTrace, TraceNode } from '../trace/types.js'

/** An error as plain data: what reports keep of a result's `error`. */
export interface RecordError {
  readonly name: string
  /** A judgetree error code such as `JUDGE_CALL_FAILED`. */
  readonly code: string
  readonly message: string
  /**
   * For a problem of the run's environment (no API key, a refused key): how to fix it, the end of `message`.
   * Reports say it once per run, and each evaluation's text leaves it out (see JudgetreeError.advice).
   */
  readonly advice?: string | undefined
}

/** {@link MetricUsage} as JSON: an unknown cost is `null`. */
export interface RecordUsage extends Omit<MetricUsage, 'costUsd'> {
  readonly costUsd: number | null
}

/** A trace entry as JSON: a nested metric's result is plain data too. */
export interface RecordTraceNode extends Omit<TraceNode, 'metric' | 'usage'> {
  readonly metric?: PlainResult | undefined
  readonly usage?: RecordUsage | undefined
}

/** A {@link MetricTrace} as JSON. */
export interface RecordTrace extends Omit<MetricTrace, 'nodes'> {
  readonly nodes: readonly RecordTraceNode[]
}

/** One trial of a trials measurement as JSON. */
export interface RecordTrial {
  readonly trial: number
  readonly score: number
  readonly success: boolean
  readonly reason: string | null
  readonly error: RecordError | null
  readonly trace: RecordTrace
  readonly usage: RecordUsage
}

/**
 * A {@link MetricResult} as plain JSON data, safe to send between processes, store in test meta and write to
 * report files: errors become `{ name, code, message }`, unknown values become `null`.
 */
export interface PlainResult {
  readonly name: string
  readonly score: number
  readonly threshold: number
  readonly success: boolean
  readonly reason: string | null
  readonly strictMode: boolean
  readonly error: RecordError | null
  readonly trace: RecordTrace
  readonly verboseLogs: string
  readonly usage: RecordUsage
  readonly durationMs: number
  readonly judgeModel: string
  /** The decision judge's name, for a metric with a `decisionModel`. */
  readonly decisionModel?: string | undefined
  /** Present for a trials measurement: each trial, in order (see MetricResult.trials). */
  readonly trials?: readonly RecordTrial[] | undefined
  readonly aggregate?: TrialAggregate | undefined
  readonly passRate?: number | undefined
  readonly spread?: TrialSpread | undefined
  /** The chance that the measurement passes, when there is one (see MetricResult.passProbability). */
  readonly passProbability?: RecordPassProbability | undefined
  /** Why there is no pass probability, and how to get one (see MetricResult.passProbabilityUnavailable). */
  readonly passProbabilityUnavailable?: string | undefined
  /** With a jury: the share of its decisions all its jurors agreed on (see MetricResult.agreement). */
  readonly agreement?: number | undefined
  /** The pass probability `success` also required, when one was asked (see MetricResult.minPassProbability). */
  readonly minPassProbability?: number | undefined
}

/** A result's pass probability as plain data: no pivot is `null`. */
export type RecordPassProbability = Omit<PassProbability, 'pivot'> & { readonly pivot: PassPivot | null }

/**
 * The one JSON form of a measured result, in every report of every run (the runners' JSON report and test meta,
 * evaluate()'s `outputFile`): the result as plain data, its one-line summary and its text. The fields of a
 * `toPassMetric` assertion are there when a runner measured it, and absent for evaluate().
 */
export interface ResultRecord extends PlainResult {
  /** The one-line summary: verdict, metric, score, threshold, judge. */
  readonly summary: string
  /** Summary, error or reason, and trace tree: the text every report shows. */
  readonly text: string
  /** Runners: the metric's own threshold, which `toPassMetric(metric, { threshold })` may have overridden. */
  readonly metricThreshold?: number | undefined
  /** Runners: which of its test's `toPassMetric` calls this was, from 1, in the order the test made them. */
  readonly assertion?: number | undefined
  /** Runners: true for `expect(...).not.toPassMetric(...)`. */
  readonly negated?: boolean | undefined
  /** Runners: whether the assertion held (the metric passed, failed under `.not`, and no error occurred). */
  readonly assertionPassed?: boolean | undefined
  /** Runners: which test case was judged, by its `name` and a short digest of its content. */
  readonly testCase?: { readonly name: string | null; readonly digest: string } | null | undefined
  /** Runners: where `expect(...).toPassMetric(...)` was called, relative to the working directory, 1-based. */
  readonly source?: { readonly file: string; readonly line: number; readonly column: number } | null | undefined
  /** Runners: the project the test ran in (Vitest's project name, Jest's `displayName`). */
  readonly project?: string | undefined
  /**
   * Runners: for a failed assertion of a DAG metric, the graph as a Mermaid flowchart with the walked path (red when
   * the metric failed), which the CI step summary draws.
   */
  readonly mermaid?: string | undefined
}

/**
 * The error code of a runner's record for an assertion the matcher rejected before measuring (not a metric, not a
 * test case, a bad option): it is reported with the failed assertions but is no metric's result.
 */
export const ASSERTION_REJECTED = 'ASSERTION_REJECTED'

/** The record of a result: plain data, with its summary line and its text. */
export function toRecord(result: MetricResult): ResultRecord {
  return { ...toPlainResult(result), summary: renderSummaryLine(result), text: renderResult(result) }
}

/** Converts a result to plain JSON data, recursively through the metrics nested in its trace. */
export function toPlainResult(result: MetricResult): PlainResult {
  return {
    name: result.name,
    score: result.score,
    threshold: result.threshold,
    success: result.success,
    reason: result.reason ?? null,
    strictMode: result.strictMode,
    error: plainError(result.error),
    trace: plainTrace(result.trace),
    verboseLogs: result.verboseLogs,
    usage: plainUsage(result.usage),
    durationMs: result.durationMs,
    judgeModel: result.judgeModel,
    ...(result.decisionModel === undefined ? {} : { decisionModel: result.decisionModel }),
    ...(result.trials === undefined
      ? {}
      : {
          trials: result.trials.map((trial) => ({
            trial: trial.trial,
            score: trial.score,
            success: trial.success,
            reason: trial.reason ?? null,
            error: plainError(trial.error),
            trace: plainTrace(trial.trace),
            usage: plainUsage(trial.usage),
          })),
          aggregate: result.aggregate,
          passRate: result.passRate,
          spread: result.spread,
        }),
    ...(result.passProbability === undefined
      ? {}
      : { passProbability: { ...result.passProbability, pivot: result.passProbability.pivot ?? null } }),
    ...(result.passProbabilityUnavailable === undefined
      ? {}
      : { passProbabilityUnavailable: result.passProbabilityUnavailable }),
    ...(result.agreement === undefined ? {} : { agreement: result.agreement }),
    ...(result.minPassProbability === undefined ? {} : { minPassProbability: result.minPassProbability }),
  }
}

/** The advice of an environment problem in a record: its error's, or its first trial's that has one. */
export function adviceOf(record: PlainResult): string | undefined {
  return record.error?.advice ?? record.trials?.find((trial) => trial.error?.advice !== undefined)?.error?.advice
}

function plainError(error: MetricResult['error']): RecordError | null {
  if (!error) return null
  const plain = { name: error.name, code: error.code, message: error.message }
  // Duck-typed: a metric may carry an error of another copy of core.
  const advice: unknown = (error as { advice?: unknown }).advice
  return typeof advice === 'string' && advice !== '' ? { ...plain, advice } : plain
}

function plainTrace(trace: MetricTrace): RecordTrace {
  return {
    metric: trace.metric,
    roots: [...trace.roots],
    notes: [...trace.notes],
    nodes: trace.nodes.map(({ metric, usage, ...node }) => ({
      ...node,
      ...(metric ? { metric: toPlainResult(metric) } : {}),
      ...(usage ? { usage: plainUsage(usage) } : {}),
    })),
  }
}

function plainUsage(usage: MetricUsage): RecordUsage {
  return { ...usage, costUsd: usage.costUsd ?? null }
}
