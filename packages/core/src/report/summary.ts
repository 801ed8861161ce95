import { agreementOf } from '../metric/jury-usage.js'
import type { MetricResult, MetricUsage } from '../metric/types.js'
import { addUsage, NO_USAGE } from '../metric/usage.js'
import { type Palette, PLAIN } from './colour.js'
import type { EvaluationMetric, EvaluationResult } from './run.js'

/** What the run's judge runtime or coordinator saw of the judge's rate limits. */
export interface RateLimitSummary {
  /** How often the judge answered 429 during the run. */
  readonly rateLimited: number
  /** The adaptive limit on judge calls in flight at the end of the run. */
  readonly concurrency: number
}

/**
 * The totals of one run, whoever ran it: a Vitest or Jest run through the reporter, or evaluate(). The fields
 * only one kind of run has are optional here and required in its own summary (JudgetreeRunSummary for runners,
 * {@link EvaluationSummary} for evaluate()); the footer prints each one when it is there.
 */
export interface RunSummary extends Omit<MetricUsage, 'costUsd'> {
  /** Evaluations made: one per metric measuring one test case. `passed + failed + errored` equals it. */
  readonly evaluations: number
  /**
   * The same number as {@link evaluations}, under its old name.
   * @deprecated Read `evaluations`. Kept so scripts and readers of the JSON files do not break; removed in 0.2.0.
   */
  readonly metrics: number
  readonly passed: number
  /** Runners: including the evaluations of `expectedFailures`. */
  readonly failed: number
  readonly errored: number
  /** Runners: of `failed`, the evaluations asserted with `.not`, whose failing was the expected outcome. */
  readonly expectedFailures?: number | undefined
  /** evaluate(): pairs left out because a metric met a test case of the other kind. */
  readonly skipped?: number | undefined
  /** Runners: assertions rejected before anything was measured (a bad option), not counted as evaluations. */
  readonly rejected?: number | undefined
  /** USD; unknown (`null`, or undefined in evaluate()'s returned summary) as described by each run's summary. */
  readonly costUsd: number | null | undefined
  /** Evaluations whose cost is unknown (a judge model without a price). */
  readonly unpricedEvaluations?: number | undefined
  /** Present when the judge answered 429 during the run. */
  readonly rateLimits?: RateLimitSummary | undefined
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
  /** With a jury: the share of the metric's jury decisions all its jurors agreed on (`usage.jurors` has each one's calls). */
  readonly agreement?: number | undefined
}

/** Totals of an evaluate() run. */
export interface EvaluationSummary extends RunSummary {
  /**
   * Evaluations made: one per (test case, metric) pair whose kinds match, so 5 metrics over 13 test cases are up
   * to 65. `passed + failed + errored` equals it.
   */
  readonly evaluations: number
  /** Pairs left out because a single-turn metric met a conversation or a conversational metric a single turn. */
  readonly skipped: number
  /** USD; undefined when some judge call's price is unknown. */
  readonly costUsd: number | undefined
  readonly durationMs: number
  readonly byMetric: readonly MetricSummary[]
  /**
   * Present when the judge answered 429 during the run (through the default judge runtime): how often, and the
   * adaptive limit on judge calls in flight at the end.
   */
  readonly rateLimits?: RateLimitSummary | undefined
}

/** Sums evaluate()'s results per run and per metric (metrics in the order given). */
export function summarise(
  results: readonly EvaluationResult[],
  metrics: readonly EvaluationMetric[],
  skipped: number,
  durationMs: number,
  rateLimits?: RateLimitSummary,
): EvaluationSummary {
  let usage = NO_USAGE
  for (const { result } of results) usage = addUsage(usage, result.usage)
  const byMetric = metrics.map((metric) => {
    const own = results.filter((entry) => entry.metric === metric).map((entry) => entry.result)
    const scored = own.filter((result) => !result.error)
    const usage = own.reduce((sum, result) => addUsage(sum, result.usage), NO_USAGE)
    return {
      name: metric.name,
      measured: own.length,
      passed: own.filter(isPass).length,
      failed: own.filter(isFail).length,
      errored: own.length - scored.length,
      meanScore:
        scored.length === 0 ? undefined : scored.reduce((sum, result) => sum + result.score, 0) / scored.length,
      usage,
      ...agreementOf(usage),
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
    unpricedEvaluations: all.filter((result) => result.usage.costUsd === undefined).length,
    durationMs,
    byMetric,
    ...(rateLimits === undefined || rateLimits.rateLimited === 0 ? {} : { rateLimits }),
  }
}

/**
 * The closing line of every run (the Vitest and Jest reporters, evaluate()), e.g. `judgetree: 3 evaluations,
 * 2 passed, 1 failed, 0 errored · 7 judge calls (0 cached) · 1234 tokens · $0.0012`, with the tokens' details when
 * a reasoning model reported some (`1234 tokens (200 cached input, 300 reasoning)`). Evaluations that failed
 * under `.not` are named (`1 failed (1 expected by .not)`), skipped pairs and rejected assertions counted
 * (`, 3 skipped`, `, 1 rejected`), unpriced
 * evaluations added to a known cost (`$0.0012 (+ 1 evaluation unpriced)`), and 429s said once. The line is for
 * people; programs read the summary. With a `palette`, the counts are coloured: passes green, failures and errors
 * red, skipped pairs dim. Its text is judgetree's own, safe to print as it is.
 */
export function renderFooter(summary: RunSummary, palette: Palette = PLAIN): string {
  const expected = summary.expectedFailures ?? 0
  // Counts that are not zero take their tone; evaluations that failed as `.not` expected are no failure of the run.
  const tone = (count: number, text: string, paint: (text: string) => string) => (count > 0 ? paint(text) : text)
  const failed = tone(
    summary.failed - expected,
    expected > 0 ? `${summary.failed} failed (${expected} expected by .not)` : `${summary.failed} failed`,
    palette.fail,
  )
  const skipped = (summary.skipped ?? 0) > 0 ? `, ${palette.dim(`${summary.skipped} skipped`)}` : ''
  const rejected = (summary.rejected ?? 0) > 0 ? `, ${palette.fail(`${summary.rejected} rejected`)}` : ''
  const calls = plural(summary.judgeCalls, 'judge call')
  const tokens = plural(summary.promptTokens + summary.completionTokens, 'token') + formatTokenDetails(summary)
  return (
    `judgetree: ${plural(summary.evaluations, 'evaluation')}, ${tone(summary.passed, `${summary.passed} passed`, palette.pass)}, ` +
    `${failed}, ${tone(summary.errored, `${summary.errored} errored`, palette.fail)}${skipped}${rejected} · ` +
    `${calls} (${summary.cachedCalls} cached) · ${tokens} · ${renderCost(summary)}${renderRateLimits(summary)}`
  )
}

/** ` · rate-limited 12 times; concurrency settled at 6`, once per run; empty when no 429 came. */
export function renderRateLimits(summary: { readonly rateLimits?: RateLimitSummary | undefined }): string {
  const limits = summary.rateLimits
  if (limits === undefined || limits.rateLimited === 0) return ''
  const times = limits.rateLimited === 1 ? 'once' : `${limits.rateLimited} times`
  return ` · rate-limited ${times}; concurrency settled at ${limits.concurrency}`
}

/** `$0.0123`; `cost unknown` when a model has no price. */
export function formatCost(costUsd: number | null | undefined): string {
  if (costUsd === undefined || costUsd === null) return 'cost unknown'
  return `$${costUsd.toFixed(4)}`
}

/** `12,345`, the same on every machine whatever its locale: for tables and progress, where columns line up. */
export function formatCount(count: number): string {
  return String(Math.round(count)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

/**
 * ` (56 cached input, 78 reasoning)` after a token count: the prompt tokens read from the provider's prompt cache
 * and the completion tokens spent reasoning, each only when there are some; empty for models that report neither.
 */
export function formatTokenDetails(usage: {
  readonly cachedPromptTokens?: number | null | undefined
  readonly reasoningTokens?: number | null | undefined
}): string {
  const details = [
    (usage.cachedPromptTokens ?? 0) > 0 ? `${formatCount(usage.cachedPromptTokens ?? 0)} cached input` : '',
    (usage.reasoningTokens ?? 0) > 0 ? `${formatCount(usage.reasoningTokens ?? 0)} reasoning` : '',
  ].filter((detail) => detail !== '')
  return details.length === 0 ? '' : ` (${details.join(', ')})`
}

/** `1 evaluation`, `3 evaluations`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

function renderCost(summary: RunSummary): string {
  const cost = formatCost(summary.costUsd)
  const unpriced = summary.unpricedEvaluations ?? 0
  if (summary.costUsd === undefined || summary.costUsd === null || unpriced === 0) return cost
  return `${cost} (+ ${plural(unpriced, 'evaluation')} unpriced)`
}

function isPass(result: MetricResult): boolean {
  return !result.error && result.success
}

function isFail(result: MetricResult): boolean {
  return !result.error && !result.success
}
