import { relative, sep } from 'node:path'
import type { MetricResult, MetricTrace, MetricUsage, TraceNode, TrialAggregate, TrialSpread } from '@judgetree/core'
import { terminalSafe } from '@judgetree/core/runtime'

/** An error as plain data: what reports keep of a result's `error`. */
export interface PlainError {
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
export interface PlainUsage extends Omit<MetricUsage, 'costUsd'> {
  readonly costUsd: number | null
}

/** A trace entry as JSON: a nested metric's result is plain data too. */
export interface PlainTraceNode extends Omit<TraceNode, 'metric' | 'usage'> {
  readonly metric?: PlainMetricResult | undefined
  readonly usage?: PlainUsage | undefined
}

/** A {@link MetricTrace} as JSON. */
export interface PlainTrace extends Omit<MetricTrace, 'nodes'> {
  readonly nodes: readonly PlainTraceNode[]
}

/** One trial of a trials measurement as JSON. */
export interface PlainTrialResult {
  readonly trial: number
  readonly score: number
  readonly success: boolean
  readonly reason: string | null
  readonly error: PlainError | null
  readonly trace: PlainTrace
  readonly usage: PlainUsage
}

/**
 * A {@link MetricResult} as plain JSON data, safe to send between processes, store in test meta and write to
 * report files: errors become `{ name, code, message }`, unknown values become `null`.
 */
export interface PlainMetricResult {
  readonly name: string
  readonly score: number
  readonly threshold: number
  readonly success: boolean
  readonly reason: string | null
  readonly strictMode: boolean
  readonly error: PlainError | null
  readonly trace: PlainTrace
  readonly verboseLogs: string
  readonly usage: PlainUsage
  readonly durationMs: number
  readonly judgeModel: string
  /** Present for a trials measurement: each trial, in order (see MetricResult.trials). */
  readonly trials?: readonly PlainTrialResult[] | undefined
  readonly aggregate?: TrialAggregate | undefined
  readonly passRate?: number | undefined
  readonly spread?: TrialSpread | undefined
}

/**
 * One `toPassMetric` evaluation as reporters see it: the metric's result (with the threshold the assertion
 * compared against) and how the assertion came out. Stored in `task.meta.judgetree` (Vitest) and the Jest
 * sidecar files, and listed in the JSON report.
 */
export interface JudgetreeRecord extends PlainMetricResult {
  /** The metric's own threshold, which `toPassMetric(metric, { threshold })` may have overridden. */
  readonly metricThreshold: number
  /**
   * Which of its test's `toPassMetric` calls this was, from 1, in the order the test made them (not the order
   * they finished): reports list a test's evaluations by it.
   */
  readonly assertion: number
  /** True for `expect(...).not.toPassMetric(...)`. */
  readonly negated: boolean
  /** Whether the assertion held: the metric passed (failed under `.not`) and no error occurred. */
  readonly assertionPassed: boolean
  /** The one-line summary: verdict, metric, score, threshold, judge. */
  readonly summary: string
  /** Summary, error or reason, and trace tree: the text every report shows. */
  readonly text: string
  /**
   * Which test case was judged: its `name` when it has one (a JSONL dataset row, say), and a short digest of its
   * content, so a reader of the report can tell cases apart and find one again. Null when the matcher rejected
   * what it was given.
   */
  readonly testCase?: { readonly name: string | null; readonly digest: string } | null | undefined
  /** Where `expect(...).toPassMetric(...)` was called: the file relative to the working directory, 1-based. */
  readonly source?: { readonly file: string; readonly line: number; readonly column: number } | null | undefined
}

/** The record with the source location of the call, read from the first frame of `callSite` (see callSiteOf). */
export function withSource(record: JudgetreeRecord, callSite: string | undefined, root: string): JudgetreeRecord {
  const frame = (callSite ?? '').split('\n')[1] ?? ''
  const match = /(?:\(|at )(?:file:\/\/)?([^()]+?):(\d+):(\d+)\)?\s*$/.exec(frame)
  if (match === null) return { ...record, source: null }
  const [, path = '', line = '0', column = '0'] = match
  const file = relative(root, path).split(sep).join('/')
  return { ...record, source: { file, line: Number(line), column: Number(column) } }
}

/**
 * The error code of a record for an assertion the matcher rejected before measuring (not a metric, not a test
 * case, a bad option): it is reported with the other failed assertions but is no metric's result.
 */
export const ASSERTION_REJECTED = 'ASSERTION_REJECTED'

/**
 * The record of an assertion that measured nothing: one the matcher rejected (`ASSERTION_REJECTED`), or one its test
 * ended without (see {@link unsettledRecord}). Reports list it with the failed ones, with its one-line `summary`.
 */
export function unmeasuredRecord(fields: {
  readonly metric: unknown
  /** The threshold the assertion asked for, when it gave one. */
  readonly threshold?: unknown
  readonly assertion: number
  readonly negated: boolean
  readonly summary: (name: string, threshold: number) => string
  readonly error: PlainError
}): JudgetreeRecord {
  const candidate = fields.metric as { name?: unknown; threshold?: unknown } | null | undefined
  const name = typeof candidate?.name === 'string' ? candidate.name : 'toPassMetric'
  const metricThreshold = typeof candidate?.threshold === 'number' ? candidate.threshold : 0.5
  const threshold = typeof fields.threshold === 'number' ? fields.threshold : metricThreshold
  const summary = fields.summary(name, threshold)
  return {
    name,
    score: 0,
    threshold,
    success: false,
    reason: null,
    strictMode: false,
    error: fields.error,
    trace: { metric: name, nodes: [], roots: [], notes: [] },
    verboseLogs: '',
    usage: { judgeCalls: 0, cachedCalls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0 },
    durationMs: 0,
    judgeModel: '',
    metricThreshold,
    assertion: fields.assertion,
    negated: fields.negated,
    assertionPassed: false,
    summary,
    text: terminalSafe(`${summary}\nerror: ${fields.error.message}`),
    testCase: null,
  }
}

/**
 * The record of an assertion its test ended without (it was not awaited, or the test timed out) and that had still
 * not settled when the guard stopped waiting for it, `waitedMs` after cancelling it. Stored before the test is
 * reported, so every report lists the assertion.
 */
export function unsettledRecord(
  metric: unknown,
  matcherOptions: unknown,
  assertion: number,
  negated: boolean,
  waitedMs: number,
): JudgetreeRecord {
  const message =
    'the test ended before this toPassMetric() assertion finished; it was cancelled and had not settled ' +
    `${waitedMs} ms later, so its result is unknown`
  return unmeasuredRecord({
    metric,
    threshold: (matcherOptions as { threshold?: unknown } | null | undefined)?.threshold,
    assertion,
    negated,
    summary: (name, threshold) =>
      `ERROR ${name}: no score (threshold ${threshold}) · the test ended before the assertion finished`,
    error: { name: 'MeasurementAbortedError', code: 'MEASUREMENT_ABORTED', message },
  })
}

/** Converts a result to plain JSON data, recursively through the metrics nested in its trace. */
export function toPlainResult(result: MetricResult): PlainMetricResult {
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
  }
}

function plainError(error: MetricResult['error']): PlainError | null {
  if (!error) return null
  const plain = { name: error.name, code: error.code, message: error.message }
  // Duck-typed: a metric may carry an error of another copy of core.
  const advice: unknown = (error as { advice?: unknown }).advice
  return typeof advice === 'string' && advice !== '' ? { ...plain, advice } : plain
}

/** The advice of an environment problem in a record: its error's, or its first trial's that has one. */
export function adviceOf(record: PlainMetricResult): string | undefined {
  return record.error?.advice ?? record.trials?.find((trial) => trial.error?.advice !== undefined)?.error?.advice
}

function plainTrace(trace: MetricTrace): PlainTrace {
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

function plainUsage(usage: MetricUsage): PlainUsage {
  return { ...usage, costUsd: usage.costUsd ?? null }
}
