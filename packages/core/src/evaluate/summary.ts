import { withoutAdvice } from '../errors.js'
import { oneLineSafe, terminalSafe } from '../internal/safe-text.js'
import type { ConversationalMetric, MetricResult, MetricUsage, SingleTurnMetric } from '../metric/types.js'
import { addUsage, NO_USAGE } from '../metric/usage.js'
import { formatScore } from '../trace/render.js'

/** A metric evaluate() can run: single-turn metrics measure LLMTestCases, conversational ones conversations. */
export type EvaluationMetric = SingleTurnMetric | ConversationalMetric

/** One measured (test case, metric) pair. */
export interface EvaluationResult<TestCase = unknown> {
  readonly testCase: TestCase
  /** The test case's position in the list given to evaluate(). */
  readonly index: number
  readonly metric: EvaluationMetric
  readonly result: MetricResult
}

/** Totals for one metric over every test case it measured. */
export interface MetricSummary {
  readonly name: string
  readonly measured: number
  readonly passed: number
  readonly failed: number
  readonly errored: number
  /** Mean score of the measurements that produced one; undefined when none did. */
  readonly meanScore: number | undefined
  readonly usage: MetricUsage
}

/** Totals of an evaluate() run. */
export interface EvaluationSummary {
  /**
   * Evaluations made: one per (test case, metric) pair whose kinds match, so 5 metrics over 13 test cases are up
   * to 65. `passed + failed + errored` equals it.
   */
  readonly evaluations: number
  /**
   * The same number as {@link evaluations}, under its old name.
   * @deprecated Read `evaluations`. Kept so scripts and readers of the JSON file do not break; removed in 0.2.0.
   */
  readonly metrics: number
  readonly passed: number
  readonly failed: number
  readonly errored: number
  /** Pairs left out because a single-turn metric met a conversation or a conversational metric a single turn. */
  readonly skipped: number
  readonly judgeCalls: number
  readonly cachedCalls: number
  readonly promptTokens: number
  readonly completionTokens: number
  /** USD; undefined when some judge call's price is unknown. */
  readonly costUsd: number | undefined
  readonly durationMs: number
  readonly byMetric: readonly MetricSummary[]
  /**
   * Present when the judge answered 429 during the run (through the default judge runtime): how often, and the
   * adaptive limit on judge calls in flight at the end.
   */
  readonly rateLimits?: { readonly rateLimited: number; readonly concurrency: number } | undefined
}

/** Sums results per run and per metric (metrics in the order given). */
export function summarise(
  results: readonly EvaluationResult[],
  metrics: readonly EvaluationMetric[],
  skipped: number,
  durationMs: number,
  rateLimits?: EvaluationSummary['rateLimits'],
): EvaluationSummary {
  let usage = NO_USAGE
  for (const { result } of results) usage = addUsage(usage, result.usage)
  const byMetric = metrics.map((metric) => {
    const own = results.filter((entry) => entry.metric === metric).map((entry) => entry.result)
    const scored = own.filter((result) => !result.error)
    return {
      name: metric.name,
      measured: own.length,
      passed: own.filter(isPass).length,
      failed: own.filter(isFail).length,
      errored: own.length - scored.length,
      meanScore:
        scored.length === 0 ? undefined : scored.reduce((sum, result) => sum + result.score, 0) / scored.length,
      usage: own.reduce((sum, result) => addUsage(sum, result.usage), NO_USAGE),
    }
  })
  const all = results.map((entry) => entry.result)
  return {
    evaluations: all.length,
    metrics: all.length,
    passed: all.filter(isPass).length,
    failed: all.filter(isFail).length,
    errored: all.filter((result) => result.error).length,
    skipped,
    ...usage,
    durationMs,
    byMetric,
    ...(rateLimits === undefined || rateLimits.rateLimited === 0 ? {} : { rateLimits }),
  }
}

const MAX_LISTED = 20

/**
 * The plain-text report printed after evaluate(): a table per metric, the problems, then one summary line. Safe to
 * print (see `terminalSafe`): a test case's name or a judge's message cannot act in a terminal or a CI log.
 */
export function renderEvaluationSummary(summary: EvaluationSummary, results: readonly EvaluationResult[]): string {
  const header = ['metric', 'measured', 'passed', 'failed', 'errored', 'mean score', 'judge calls', 'tokens', 'cost']
  const rows = summary.byMetric.map(({ name, measured, passed, failed, errored, meanScore, usage }) => [
    name,
    ...[measured, passed, failed, errored].map(formatCount),
    meanScore === undefined ? '–' : formatScore(meanScore),
    `${formatCount(usage.judgeCalls)} (${formatCount(usage.cachedCalls)} cached)`,
    formatCount(usage.promptTokens + usage.completionTokens),
    formatCost(usage.costUsd),
  ])
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)))
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join('  ')
      .trimEnd()
  const lines = [line(header), ...rows.map(line)]
  const problems = results.filter((entry) => !entry.result.success)
  if (problems.length > 0) lines.push('', ...problems.slice(0, MAX_LISTED).map(describeProblem))
  if (problems.length > MAX_LISTED) lines.push(`… and ${problems.length - MAX_LISTED} more`)
  // A problem of the environment (no API key) fails every measurement the same way: how to fix it is said once.
  for (const [advice, count] of environmentAdvice(problems)) {
    lines.push('', `a problem of the environment failed ${formatCount(count)} measurements; fix: ${advice}`)
  }
  if (summary.skipped > 0) {
    lines.push('', `${formatCount(summary.skipped)} pairs skipped: a metric only measures test cases of its kind.`)
  }
  lines.push('', renderEvaluationLine(summary))
  return terminalSafe(lines.join('\n'))
}

/**
 * `judgetree: 12 evaluations, 10 passed, 1 failed, 1 errored · 37 judge calls (5 cached) · 12,345 tokens · $0.0123`.
 * The line is for people; programs read the returned (or written) `summary`.
 */
export function renderEvaluationLine(summary: EvaluationSummary): string {
  const tokens = summary.promptTokens + summary.completionTokens
  const skipped = summary.skipped > 0 ? `, ${formatCount(summary.skipped)} skipped` : ''
  const evaluations = `${formatCount(summary.evaluations)} evaluation${summary.evaluations === 1 ? '' : 's'}`
  return (
    `judgetree: ${evaluations}, ${formatCount(summary.passed)} passed, ` +
    `${formatCount(summary.failed)} failed, ${formatCount(summary.errored)} errored${skipped} · ` +
    `${formatCount(summary.judgeCalls)} judge calls (${formatCount(summary.cachedCalls)} cached) · ` +
    `${formatCount(tokens)} tokens · ${formatCost(summary.costUsd)}${renderRateLimits(summary)}`
  )
}

/** ` · rate-limited 12 times; concurrency settled at 6`: said once per run, and only when a 429 came. */
function renderRateLimits(summary: EvaluationSummary): string {
  const limits = summary.rateLimits
  if (limits === undefined) return ''
  const times = limits.rateLimited === 1 ? 'once' : `${formatCount(limits.rateLimited)} times`
  return ` · rate-limited ${times}; concurrency settled at ${limits.concurrency}`
}

/** `$0.0123` below a dollar, `$12.35` above; `cost unknown` when a model has no price. */
export function formatCost(costUsd: number | undefined): string {
  if (costUsd === undefined) return 'cost unknown'
  return `$${costUsd.toFixed(costUsd < 1 ? 4 : 2)}`
}

/** `12,345`, the same on every machine whatever its locale. */
export function formatCount(count: number): string {
  return String(Math.round(count)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

function describeProblem({ index, testCase, result }: EvaluationResult): string {
  const name = (testCase as { name?: unknown } | null)?.name
  // A name is the dataset's: on one line, so each problem is one line whatever the name holds.
  const label = `case ${index}${typeof name === 'string' && name !== '' ? ` "${oneLineSafe(name)}"` : ''}`
  if (result.error) {
    const { message, advice } = result.error
    return `✗ ${label} · ${result.name}: error: ${firstLine(advice === undefined ? message : withoutAdvice(message, advice))}`
  }
  return `✗ ${label} · ${result.name}: score ${formatScore(result.score)} < threshold ${formatScore(result.threshold)}`
}

/** Each advice of an environment problem among the failed measurements, with how many it failed, in order. */
function environmentAdvice(problems: readonly EvaluationResult[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const { result } of problems) {
    const advice = result.error?.advice
    if (advice !== undefined) counts.set(advice, (counts.get(advice) ?? 0) + 1)
  }
  return counts
}

function firstLine(text: string): string {
  const first = text.split('\n')[0] ?? ''
  return first.length > 200 ? `${first.slice(0, 200)}…` : first
}

function isPass(result: MetricResult): boolean {
  return !result.error && result.success
}

function isFail(result: MetricResult): boolean {
  return !result.error && !result.success
}
