import { withoutAdvice } from '@judgetree/core'
import {
  adviceOf,
  plural,
  type RateLimitSummary,
  type RunSummary,
  renderFooter,
  terminalSafe,
} from '@judgetree/core/runtime'
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
    costUsd: priced.length === 0 && records.length > 0 ? null : priced.reduce((t, r) => t + (r.usage.costUsd ?? 0), 0),
    unpricedEvaluations: records.length - priced.length,
    unpricedMetrics: records.length - priced.length,
  }
}

/**
 * What the reporter prints after a run: each failed evaluation's line under its test, notes, then the summary line.
 * Safe to print (see `terminalSafe`): test names, judges' reasons and baseline entries cannot act in a CI log.
 */
export function renderRunOutput(report: JudgetreeReport, notes: readonly string[] = []): string {
  const failed = failedEvaluations(report)
  const lines: string[] = []
  if (failed.length > 0) {
    // One line each: the runner has just printed each failure's tree in its error, once is enough.
    lines.push(`judgetree: ${plural(failed.length, 'failed evaluation')}`)
    for (const { test, record } of failed) {
      lines.push(`  ✗ ${testTitle(test).replace(/\s+/g, ' ')} · ${failureLine(record)}`)
    }
    lines.push('')
  }
  for (const problem of environmentProblems(report)) {
    lines.push(`judgetree: ${problemHeading(problem)}`, `  ${problem.message}`, `  fix: ${problem.advice}`, '')
  }
  lines.push(...notes, renderFooter(report.summary))
  return terminalSafe(lines.join('\n'))
}

/** A problem of the run's environment (no API key, a refused key) and the evaluations it failed. */
interface EnvironmentProblem {
  /** The first failed evaluation's error message, without the advice. */
  readonly message: string
  readonly code: string
  readonly advice: string
  readonly evaluations: number
}

/**
 * The problems of the environment that failed evaluations, each once, in the order of the first evaluation they
 * failed: every test without an API key fails with the same one, and how to fix it is said here only.
 */
export function environmentProblems(report: JudgetreeReport): EnvironmentProblem[] {
  const byAdvice = new Map<string, EnvironmentProblem>()
  for (const { record } of failedEvaluations(report)) {
    const advice = adviceOf(record)
    if (advice === undefined) continue
    const known = byAdvice.get(advice)
    if (known !== undefined) {
      byAdvice.set(advice, { ...known, evaluations: known.evaluations + 1 })
      continue
    }
    const error = record.error ?? record.trials?.find((trial) => trial.error?.advice === advice)?.error
    const message = shorten(withoutAdvice(error?.message ?? '', advice), 400)
    byAdvice.set(advice, { message, code: error?.code ?? '', advice, evaluations: 1 })
  }
  return [...byAdvice.values()]
}

function problemHeading(problem: EnvironmentProblem): string {
  return `a problem of the environment failed ${plural(problem.evaluations, 'evaluation')} (${problem.code}):`
}

/**
 * A failed evaluation in one line: metric, score against threshold, and what decided it (the judgement and the
 * verdict it chose, for a DAG; the reason's start otherwise), e.g.
 * `Playful Chatbot: score 0.3 < threshold 0.7 · “Playful?” → false`.
 */
export function failureLine(record: JudgetreeRecord): string {
  const name = record.negated ? `${record.name} (.not)` : record.name
  if (record.error) {
    // An environment problem is said once, below the list, for all the evaluations it failed.
    if (record.error.advice !== undefined)
      return `${name}: error ${record.error.code}, a problem of the environment (below)`
    return `${name}: error ${record.error.code}: ${shorten(record.error.message)}`
  }
  const comparison = record.negated
    ? `score ${scoreCell(record)} ≥ threshold ${record.threshold}, expected to fail`
    : `score ${scoreCell(record)} < threshold ${record.threshold}`
  const decided = decidingVerdict(record) ?? (record.reason ? shorten(record.reason) : undefined)
  return decided === undefined ? `${name}: ${comparison}` : `${name}: ${comparison} · ${decided}`
}

/** The verdict leaf that gave the score (the lowest, when parallel branches reached several) and its judgement. */
function decidingVerdict(record: JudgetreeRecord): string | undefined {
  // Records merged from another version's blob report may lack parts: no trace, no verdict to name.
  const nodes = (record.trace as JudgetreeRecord['trace'] | undefined)?.nodes ?? []
  const leaves = nodes.filter((node) => node.role === 'verdict' && node.status === 'ran' && node.score !== undefined)
  const leaf = leaves.reduce<(typeof leaves)[number] | undefined>(
    (lowest, node) => (lowest === undefined || (node.score ?? 0) < (lowest.score ?? 0) ? node : lowest),
    undefined,
  )
  if (leaf === undefined) return undefined
  const parents = nodes.filter((node) => node.children.includes(leaf.id) || node.alsoUnder?.includes(leaf.id))
  const parent = parents.find((node) => String(node.verdict) === leaf.text) ?? parents[0]
  if (parent === undefined) return undefined
  return `“${shorten(parent.label ?? parent.text, 50)}” → ${leaf.text}`
}

/** The first line (a CR or a Unicode line break ends it too), cut to `limit` characters. */
function shorten(text: string, limit = 80): string {
  const line = text.split(/\r\n|[\n\r\u2028\u2029\u0085]/)[0] ?? ''
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line
}

/**
 * The Markdown appended to `$GITHUB_STEP_SUMMARY`: totals, a table of evaluations, the failed ones' trees. Safe for
 * the CI log it is part of (see `terminalSafe`); a test name's blank lines cannot end the `<details>` block.
 */
export function renderMarkdown(report: JudgetreeReport, maxRows = 100): string {
  const lines = [`## judgetree${report.shard ? ` (shard ${report.shard.index}/${report.shard.count})` : ''}`, '']
  lines.push(escapeHtml(renderFooter(report.summary).replace(/^judgetree: /, '')), '')
  const all = report.tests.flatMap((test) => test.evaluations.map((record) => ({ test, record })))
  if (all.length > 0) {
    lines.push('| | metric | score | threshold | test |', '| --- | --- | --- | --- | --- |')
    for (const { test, record } of all.slice(0, maxRows)) {
      const cells = [
        record.assertionPassed ? '✅' : '❌',
        record.negated ? `${record.name} (.not)` : record.name,
        record.error?.code === ASSERTION_REJECTED ? 'rejected' : record.error ? 'error' : scoreCell(record),
        String(record.threshold),
        testTitle(test),
      ]
      lines.push(`| ${cells.map(tableCell).join(' | ')} |`)
    }
    if (all.length > maxRows) lines.push('', `…and ${all.length - maxRows} more in the JSON report.`)
    lines.push('')
  }
  for (const problem of environmentProblems(report)) {
    lines.push(
      `**${escapeHtml(problemHeading(problem))}**`,
      '',
      '```text',
      inFence(problem.message),
      inFence(`fix: ${problem.advice}`),
      '```',
      '',
    )
  }
  for (const { test, record } of failedEvaluations(report)) {
    lines.push(
      // One line: a blank line in a test name would end the HTML block, and Markdown would follow.
      `<details><summary>❌ ${escapeHtml(`${record.summary} — ${testTitle(test)}${negation(record)}`.replace(/\s+/g, ' '))}</summary>`,
      '',
      '```text',
      inFence(record.text),
      '```',
      '',
      '</details>',
      '',
    )
  }
  return terminalSafe(lines.join('\n'))
}

/** Text for a fenced block: a fence inside it would close the block early. */
function inFence(text: string): string {
  return text.replaceAll('```', "'''")
}

/** The score, and for trials how many passed and the range of their scores, e.g. `0.64 (3/5 trials, 0.2–0.9)`. */
function scoreCell(record: JudgetreeRecord): string {
  const { trials, spread } = record
  if (trials === undefined || spread === undefined) return String(record.score)
  const passed = trials.filter((trial) => trial.success).length
  const round = (score: number) => String(Math.round(score * 1000) / 1000)
  const range = spread.min === spread.max ? round(spread.min) : `${round(spread.min)}–${round(spread.max)}`
  return `${round(record.score)} (${passed}/${trials.length} trials passed, ${range})`
}

function failedEvaluations(report: JudgetreeReport) {
  return report.tests.flatMap((test) =>
    test.evaluations.filter((record) => !record.assertionPassed).map((record) => ({ test, record })),
  )
}

/** `tests/chat.test.ts > greets`, after the project as Vitest labels it when there is one: `|web| tests/…`. */
function testTitle(test: JudgetreeReportTest): string {
  const title = `${test.file} > ${test.name}`
  return test.project === '' ? title : `|${test.project}| ${title}`
}

/** A `.not` assertion fails when the metric passes: the header says so, since the text then reads PASS. */
function negation(record: JudgetreeRecord): string {
  return record.negated ? ' (.not: expected the metric to fail)' : ''
}

/** By UTF-16 code units, like a file listing sorted in the C locale: the same on every machine and locale. */
function compareText(a: string, b: string): number {
  if (a === b) return 0
  return a < b ? -1 : 1
}

function tableCell(text: string): string {
  return escapeHtml(text).replaceAll('|', '\\|').replace(/\s+/g, ' ')
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
}
