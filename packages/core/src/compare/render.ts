// A comparison as the terminal shows it, and as `judgetree compare --json` prints it.
import { formatStatistic } from '../calibrate/summary.js'
import { oneLineSafe } from '../internal/safe-text.js'
import { chanceMove, scoreMove } from '../report/score-move.js'
import { formatCost, formatCount, formatTokenDetails } from '../report/summary.js'
import type { ComparisonFigures, EvaluationComparison, ReportComparison } from './compare-reports.js'
import { type ComparedRun, type RunTotals, shortName } from './read-run.js'

/** How many flips a comparison may have: a count, or a share of the evaluations compared. */
export type FlipLimit = { readonly count: number } | { readonly fraction: number }

/** `3`, `0.05` or `5%`; undefined when `text` is none of these. */
export function parseFlipLimit(text: string): FlipLimit | undefined {
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(text)
  if (percent) {
    const fraction = Number(percent[1]) / 100
    return fraction <= 1 ? { fraction } : undefined
  }
  if (/^\d+$/.test(text)) return { count: Number(text) }
  if (/^0?\.\d+$/.test(text)) return { fraction: Number(text) }
  return undefined
}

/** Whether the comparison has more flips than the limit allows. */
export function exceedsFlipLimit(comparison: ReportComparison, limit: FlipLimit): boolean {
  return 'count' in limit ? comparison.flips > limit.count : comparison.flips > limit.fraction * comparison.compared
}

/** `5` or `5%`, as the user wrote the limit. */
export function describeFlipLimit(limit: FlipLimit): string {
  return 'count' in limit ? String(limit.count) : `${Math.round(limit.fraction * 10000) / 100}%`
}

/** The comparison as lines of text, safe for a terminal and a CI log. */
export function renderComparison(comparison: ReportComparison): string {
  const { before, after } = comparison
  const lines = [`judgetree compare: ${oneLineSafe(shortName(before.files))} → ${oneLineSafe(shortName(after.files))}`]
  const errored =
    comparison.errored === 0 ? '' : `, ${comparison.compared} compared (${comparison.errored} errored in a run)`
  lines.push(`  ${comparison.evaluations.length} evaluations in both runs${errored}: ${figuresText(comparison)}`)
  // Flips first (to fail, then to pass), then errors, then the largest score changes; report order among equals.
  const changed = comparison.evaluations
    .filter(
      (evaluation) =>
        evaluation.scoreChange !== 0 ||
        (evaluation.flippedNodes?.length ?? 0) > 0 ||
        chanceMove(evaluation.before.passProbability, evaluation.after.passProbability) !== undefined,
    )
    .sort((a, b) => rankOf(a) - rankOf(b) || Math.abs(b.scoreChange ?? 0) - Math.abs(a.scoreChange ?? 0))
  for (const evaluation of changed) {
    lines.push(`  ${symbolOf(evaluation)} ${oneLineSafe(evaluation.label)}: ${changeText(evaluation)}`)
    for (const node of evaluation.flippedNodes ?? []) {
      lines.push(
        `      ${node.id} “${oneLineSafe(node.label)}”: ${oneLineSafe(node.before)} → ${oneLineSafe(node.after)}`,
      )
    }
  }
  const unchanged = comparison.evaluations.length - changed.length
  if (unchanged > 0) lines.push(`  ${unchanged} unchanged`)
  if (comparison.byMetric.length > 1) {
    lines.push('  by metric:')
    for (const figures of comparison.byMetric) {
      lines.push(`    ${oneLineSafe(figures.metric)}: ${figures.compared} compared · ${figuresText(figures)}`)
    }
  }
  lines.push(`  before: ${totalsText(before)}`, `  after:  ${totalsText(after)}`)
  for (const [side, labels] of [
    ['only in the before run', comparison.onlyBefore],
    ['only in the after run', comparison.onlyAfter],
  ] as const) {
    if (labels.length === 0) continue
    lines.push(`  ${side} (${labels.length}):`)
    for (const label of labels) lines.push(`    ${oneLineSafe(label)}`)
  }
  return lines.join('\n')
}

function rankOf(evaluation: EvaluationComparison): number {
  return evaluation.flip === 'to-fail' ? 0 : evaluation.flip === 'to-pass' ? 1 : evaluation.scoreChange === null ? 2 : 3
}

/** `2 flips (1 to fail, 1 to pass) · Cohen's kappa 0.667 · mean |score change| 0.15` */
function figuresText(figures: ComparisonFigures): string {
  const flips =
    figures.flips === 0
      ? '0 flips'
      : `${figures.flips} ${figures.flips === 1 ? 'flip' : 'flips'} (${figures.toFail} to fail, ${figures.toPass} to pass)`
  return [
    flips,
    `Cohen's kappa ${formatStatistic(figures.kappa)}`,
    `mean |score change| ${formatStatistic(figures.meanAbsoluteScoreChange)}`,
  ].join(' · ')
}

/** `✗` now fails, `✓` now passes, `▼` lower, `▲` higher, `!` errored in a run, `~` same score, a node flipped. */
function symbolOf(evaluation: EvaluationComparison): string {
  if (evaluation.scoreChange === null) return '!'
  if (evaluation.flip === 'to-fail') return '✗'
  if (evaluation.flip === 'to-pass') return '✓'
  return evaluation.scoreChange < 0 ? '▼' : evaluation.scoreChange > 0 ? '▲' : '~'
}

/** `0.9 → 0.6 (−0.3), now fails`; `0.5 → error`; with a chance of passing that moved, `… · P(pass) 0.93 → 0.72`. */
function changeText({ before, after, scoreChange, flip }: EvaluationComparison): string {
  const moved = scoreMove(before.score, after.score, scoreChange, flip)
  const chance = chanceMove(before.passProbability, after.passProbability)
  return chance === undefined ? moved : `${moved} · ${chance}`
}

/** `40 judge calls (12 cached) · 12,345 tokens · $0.0123`, or that the source does not record them. */
function totalsText(run: ComparedRun): string {
  const totals: RunTotals | null = run.totals
  if (totals === null) return `${run.evaluations.length} evaluations (a baseline: no calls, tokens or cost recorded)`
  const tokens = totals.promptTokens + totals.completionTokens
  return [
    `${run.evaluations.length} evaluations`,
    `${formatCount(totals.judgeCalls)} judge calls (${formatCount(totals.cachedCalls)} cached)`,
    `${formatCount(tokens)} tokens${formatTokenDetails(totals)}`,
    formatCost(totals.costUsd),
  ].join(' · ')
}

/** The comparison as JSON for scripts: every figure, evaluation and flipped node; undefined figures as null. */
export function comparisonJson(comparison: ReportComparison, limit?: FlipLimit): string {
  const side = (run: ComparedRun) => ({
    files: run.files,
    kind: run.kind,
    evaluations: run.evaluations.length,
    totals: run.totals,
  })
  const figures = (value: ComparisonFigures) => ({
    compared: value.compared,
    flips: value.flips,
    toFail: value.toFail,
    toPass: value.toPass,
    kappa: value.kappa ?? null,
    meanAbsoluteScoreChange: value.meanAbsoluteScoreChange ?? null,
  })
  const json = {
    before: side(comparison.before),
    after: side(comparison.after),
    ...figures(comparison),
    errored: comparison.errored,
    ...(limit === undefined
      ? {}
      : { maxFlips: { limit: describeFlipLimit(limit), exceeded: exceedsFlipLimit(comparison, limit) } }),
    byMetric: comparison.byMetric.map((entry) => ({ metric: entry.metric, ...figures(entry) })),
    evaluations: comparison.evaluations,
    onlyBefore: comparison.onlyBefore,
    onlyAfter: comparison.onlyAfter,
  }
  return JSON.stringify(json, null, 2)
}
