import { formatScore, renderResult } from '../../trace/render.js'
import { renderJuryLines } from '../jury-summary.js'
import { escapeMarkup as escapeHtml, svgElement } from '../picture.js'
import type { EvaluationResult } from '../run.js'
import { type EvaluationSummary, formatCost, formatCount, formatTokenDetails } from '../summary.js'
import type { Surface } from '../surface.js'

/** An SVG picture of a failure's walked DAG, by result; missing when the metric has no DAG or Graphviz is absent. */
export type EvaluationPictures = ReadonlyMap<EvaluationResult, string>

/** evaluate()'s run as one self-contained HTML page, beside its JSON report. */
export const html: Surface = {
  what: 'HTML summary',
  to: '.html',
  render: (run) =>
    run.kind === 'evaluation' ? renderEvaluationHtml(run.summary, run.results, run.pictures) : undefined,
}

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #18181b }
h1 { font-size: 1.4rem } h2 { font-size: 1.15rem; margin-top: 2rem } h3 { font-size: 1rem; margin-bottom: .25rem }
table { border-collapse: collapse } th, td { padding: .3rem .7rem; border-bottom: 1px solid #e4e4e7; text-align: right }
th:first-child, td:first-child { text-align: left }
.totals { display: flex; gap: 2rem; flex-wrap: wrap } .totals div { font-size: 1.3rem } .totals span { display: block; font-size: .8rem; color: #71717a }
.pass { color: #15803d } .fail { color: #b91c1c }
pre { background: #f4f4f5; padding: .75rem; overflow-x: auto; font: 12px/1.4 ui-monospace, Menlo, Consolas, monospace }
figure { margin: .5rem 0 } figure svg { max-width: 100%; height: auto }
`

/**
 * evaluate()'s run as one self-contained HTML page (inline CSS and SVG, nothing fetched): the totals (pass rate,
 * judge calls, tokens, cost), a table per metric, each jury's agreement and jurors' calls, and each failure with its score, reason, trace tree and, where
 * one was drawn, the picture of its walked DAG.
 */
export function renderEvaluationHtml(
  summary: EvaluationSummary,
  results: readonly EvaluationResult[],
  pictures: EvaluationPictures = new Map(),
): string {
  const scored = summary.passed + summary.failed + summary.errored
  const passRate = scored === 0 ? '–' : `${Math.round((summary.passed / scored) * 100)}%`
  const totals = [
    [passRate, 'pass rate'],
    [`${formatCount(summary.passed)} / ${formatCount(scored)}`, 'passed'],
    [formatCount(summary.failed), 'failed'],
    [formatCount(summary.errored), 'errored'],
    [`${formatCount(summary.judgeCalls)} (${formatCount(summary.cachedCalls)} cached)`, 'judge calls'],
    [formatCount(summary.promptTokens + summary.completionTokens) + formatTokenDetails(summary), 'tokens'],
    [formatCost(summary.costUsd), 'cost'],
  ]
  const rows = summary.byMetric.map((metric) =>
    [
      metric.name,
      ...[metric.measured, metric.passed, metric.failed, metric.errored].map(formatCount),
      metric.meanScore === undefined ? '–' : formatScore(metric.meanScore),
      formatCount(metric.usage.judgeCalls),
      formatCost(metric.usage.costUsd),
    ].map((cell) => `<td>${escapeHtml(cell)}</td>`),
  )
  const juries = renderJuryLines(results.map(({ result }) => result))
  const failures = results.filter((entry) => !entry.result.success)
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>judgetree: ${summary.passed} of ${scored} passed</title><style>${STYLE}</style></head><body>`,
    '<h1>judgetree evaluation</h1>',
    `<div class="totals">${totals.map(([value, label]) => `<div>${escapeHtml(value ?? '')}<span>${label}</span></div>`).join('')}</div>`,
    '<h2>Metrics</h2>',
    '<table><thead><tr><th>metric</th><th>measured</th><th>passed</th><th>failed</th><th>errored</th><th>mean score</th><th>judge calls</th><th>cost</th></tr></thead>',
    `<tbody>${rows.map((cells) => `<tr>${cells.join('')}</tr>`).join('')}</tbody></table>`,
    // As the terminal summary: each jury's agreement and its jurors' calls (their verdicts are in each tree).
    ...juries.map((line) => `<p>${escapeHtml(line)}</p>`),
    failures.length === 0
      ? '<h2 class="pass">Every measurement passed</h2>'
      : `<h2 class="fail">Failures (${failures.length})</h2>`,
    ...failures.map((entry) => renderFailure(entry, pictures.get(entry))),
    summary.skipped > 0
      ? `<p>${formatCount(summary.skipped)} pairs skipped: a metric only measures test cases of its kind.</p>`
      : '',
    '</body></html>',
    '',
  ].join('\n')
}

function renderFailure(entry: EvaluationResult, picture: string | undefined): string {
  const name = (entry.testCase as { name?: unknown } | null)?.name
  const label = `case ${entry.index}${typeof name === 'string' && name !== '' ? ` “${name}”` : ''} · ${entry.result.name}`
  const figure = picture === undefined ? '' : `<figure>${svgElement(picture)}</figure>`
  return `<section><h3 class="fail">${escapeHtml(label)}</h3>${figure}<pre>${escapeHtml(renderResult(entry.result))}</pre></section>`
}
