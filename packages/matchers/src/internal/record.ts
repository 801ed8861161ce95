import { relative, sep } from 'node:path'
import type { MetricResult, MetricTrace, MetricUsage } from '@judgetree/core'
import {
  type PlainResult,
  type RecordError,
  type RecordTrace,
  type RecordTraceNode,
  type RecordUsage,
  type ResultRecord,
  terminalSafe,
} from '@judgetree/core/runtime'

// The JSON form of a result is core's (`toRecord`); these names stay for readers of the matchers' types.
/** An error as plain data: what reports keep of a result's `error`. */
export type PlainError = RecordError
/** {@link MetricUsage} as JSON: an unknown cost is `null`. */
export type PlainUsage = RecordUsage
/** A trace entry as JSON: a nested metric's result is plain data too. */
export type PlainTraceNode = RecordTraceNode
/** A {@link MetricTrace} as JSON. */
export type PlainTrace = RecordTrace
/** A {@link MetricResult} as plain JSON data (see core's `toRecord`). */
export type PlainMetricResult = PlainResult

/**
 * One `toPassMetric` evaluation as reporters see it: the metric's result (with the threshold the assertion
 * compared against) and how the assertion came out. Stored in `task.meta.judgetree` (Vitest) and the Jest
 * sidecar files, and listed in the JSON report.
 */
export interface JudgetreeRecord extends ResultRecord {
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

export { ASSERTION_REJECTED } from '@judgetree/core/runtime'

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
