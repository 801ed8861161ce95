import type { RateLimitSummary, RunSummary } from '@judgetree/core/runtime'
import type { JudgetreeReportBaseline } from './publish-baseline.js'
import { ASSERTION_REJECTED, type JudgetreeRecord } from './record.js'

/** One test that ran `toPassMetric` at least once. */
export interface JudgetreeReportTest {
  /** The runner's project the test ran in (Vitest's project name, Jest's `displayName`); `''` when unnamed. */
  readonly project: string
  /** The test file, relative to the project root, with `/` separators. */
  readonly file: string
  /** The test's full name as the runner shows it. */
  readonly name: string
  /** The runner's verdict on the whole test, e.g. `passed`, `failed`, `skipped`. */
  readonly state: string
  /** Where the test is declared in its file, when the runner says (1-based line and column). */
  readonly location?: { readonly line: number; readonly column: number } | null | undefined
  /** Present when names repeat in the file: which of its tests with this full name, from 1 in the file's order. */
  readonly ordinal?: number | undefined
  /** Every `toPassMetric` evaluation of the test, in the order the test called them (see `assertion`). */
  readonly evaluations: readonly JudgetreeRecord[]
}

/** Totals over every evaluation of a run (core's RunSummary, with every field a runner's run has). */
export interface JudgetreeRunSummary extends RunSummary {
  /**
   * Evaluations run: one per `toPassMetric` call that measured something (a metric measuring one test case), so
   * 13 test cases each measured by one of 5 metrics are 13 evaluations. `passed + failed + errored` equals it.
   */
  readonly evaluations: number
  /** Evaluations that scored at or above their threshold. */
  readonly passed: number
  /** Evaluations that scored below their threshold, including those of {@link expectedFailures}. */
  readonly failed: number
  /**
   * Of {@link failed}, the evaluations asserted with `.not`, so their failing was the expected outcome (the
   * assertion held). `failed - expectedFailures` evaluations failed where they were expected to pass.
   */
  readonly expectedFailures: number
  /** Evaluations whose metric could not be computed (judge failure, bad test case, …). */
  readonly errored: number
  /** Assertions that did not hold, including `.not` assertions on a passing metric and the rejected ones. */
  readonly failedAssertions: number
  /**
   * Assertions rejected before anything was measured (not a metric, not a test case, a bad option): listed with
   * the failed ones (error code `ASSERTION_REJECTED`), but not counted in {@link evaluations}.
   */
  readonly rejected: number
  /** USD over the evaluations whose cost is known; `null` when none is. */
  readonly costUsd: number | null
  /** Evaluations whose cost is unknown (a judge model without a price). */
  readonly unpricedEvaluations: number
  /**
   * The same number as {@link unpricedEvaluations}, under its old name.
   * @deprecated Read `unpricedEvaluations`. Removed in 0.2.0.
   */
  readonly unpricedMetrics: number
  /**
   * Present when the judge answered 429 during the run: how often (each paused every worker for the server's
   * Retry-After), and the run's adaptive limit on judge calls in flight at the end.
   */
  readonly rateLimits?: RateLimitSummary | undefined
}

export type { RateLimitSummary } from '@judgetree/core/runtime'

/** The JSON report file's content. */
export interface JudgetreeReport {
  readonly version: 1
  readonly runner: 'vitest' | 'jest'
  /** The shard this run covered (`vitest --shard=index/count`), or null for a whole run. */
  readonly shard: { readonly index: number; readonly count: number } | null
  readonly summary: JudgetreeRunSummary
  readonly tests: readonly JudgetreeReportTest[]
  /** This run against the baseline; present when the reporter has a `baseline`. */
  readonly baseline?: JudgetreeReportBaseline | undefined
}

/**
 * Builds the report of a run from the tests that evaluated metrics, given in the order of their positions in
 * their files. Every surface lists what it lists in the report's order, which depends on the suite alone, never
 * on which worker, project or shard finished first: by project, then file, then the test's position in its file
 * (kept from `tests`), then the order in which the test called `toPassMetric`.
 */
export function buildReport(
  runner: JudgetreeReport['runner'],
  tests: readonly JudgetreeReportTest[],
  shard: JudgetreeReport['shard'] = null,
): JudgetreeReport {
  const withEvaluations = tests
    .filter((test) => test.evaluations.length > 0)
    // Array.prototype.sort is stable: tests of one file keep their given order.
    .sort((a, b) => compareText(a.project, b.project) || compareText(a.file, b.file))
    .map((test) => ({ ...test, evaluations: [...test.evaluations].sort((a, b) => a.assertion - b.assertion) }))
  return {
    version: 1,
    runner,
    shard,
    summary: summarize(withEvaluations.flatMap((test) => test.evaluations)),
    tests: withEvaluations,
  }
}

/** Sums the evaluations of a run. */
export function summarize(all: readonly JudgetreeRecord[]): JudgetreeRunSummary {
  const records = all.filter((record) => record.error?.code !== ASSERTION_REJECTED)
  const priced = records.filter((record) => record.usage.costUsd !== null)
  const sum = (pick: (record: JudgetreeRecord) => number): number =>
    records.reduce((total, record) => total + pick(record), 0)
  // A token detail (cached prompt, reasoning) is summed when some judge call reported it, and left out otherwise.
  const detail = (pick: (record: JudgetreeRecord) => number | undefined): number | undefined =>
    records.some((record) => pick(record) !== undefined) ? sum((record) => pick(record) ?? 0) : undefined
  const cachedPromptTokens = detail((record) => record.usage.cachedPromptTokens)
  const reasoningTokens = detail((record) => record.usage.reasoningTokens)
  return {
    evaluations: records.length,
    metrics: records.length,
    passed: records.filter((record) => record.error === null && record.success).length,
    failed: records.filter((record) => record.error === null && !record.success).length,
    expectedFailures: records.filter((record) => record.error === null && !record.success && record.negated).length,
    errored: records.filter((record) => record.error !== null).length,
    failedAssertions: all.filter((record) => !record.assertionPassed).length,
    rejected: all.length - records.length,
    judgeCalls: sum((record) => record.usage.judgeCalls),
    cachedCalls: sum((record) => record.usage.cachedCalls),
    promptTokens: sum((record) => record.usage.promptTokens),
    completionTokens: sum((record) => record.usage.completionTokens),
    ...(cachedPromptTokens === undefined ? {} : { cachedPromptTokens }),
    ...(reasoningTokens === undefined ? {} : { reasoningTokens }),
    costUsd: priced.length === 0 && records.length > 0 ? null : priced.reduce((t, r) => t + (r.usage.costUsd ?? 0), 0),
    unpricedEvaluations: records.length - priced.length,
    unpricedMetrics: records.length - priced.length,
  }
}

/** By UTF-16 code units, like a file listing sorted in the C locale: the same on every machine and locale. */
function compareText(a: string, b: string): number {
  if (a === b) return 0
  return a < b ? -1 : 1
}
