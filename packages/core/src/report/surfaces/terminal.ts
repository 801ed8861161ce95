import { calibrationText } from '../../calibrate/summary.js'
import { withoutAdvice } from '../../errors.js'
import { oneLineSafe, terminalSafe } from '../../internal/safe-text.js'
import { formatScore } from '../../trace/render.js'
import { noteLine, type Palette, PLAIN, paintSafe, type TerminalNote } from '../colour.js'
import { environmentProblems, failedEvaluations, failureLine, problemHeading, testTitle } from '../failures.js'
import { renderJuryLines } from '../jury-summary.js'
import { ASSERTION_REJECTED } from '../record.js'
import type { EvaluationResult, RunnerReport } from '../run.js'
import {
  type EvaluationSummary,
  formatCost,
  formatCount,
  formatTokenDetails,
  plural,
  renderFooter,
} from '../summary.js'
import type { Surface } from '../surface.js'

/** What a run prints when it ends: the failures, the problems of the environment, the notes and the footer. */
export const terminal: Surface = {
  what: 'summary',
  to: 'print',
  render: (run, palette = PLAIN) => {
    if (run.kind === 'runner') return renderRunOutput(run.report, run.notes, palette)
    if (run.kind === 'calibration') return calibrationText(run.calibration, palette)
    return [renderEvaluationSummary(run.summary, run.results, palette), ...run.notes.map(terminalSafe)].join('\n')
  },
}

/**
 * What the reporter prints after a run: each failed evaluation's line under its test, notes, then the summary line,
 * coloured by `palette` (failures red, passes green). Safe to print (see `terminalSafe`): test names, judges'
 * reasons and baseline entries cannot act in a CI log.
 */
export function renderRunOutput(
  report: RunnerReport,
  notes: readonly TerminalNote[] = [],
  palette: Palette = PLAIN,
): string {
  const failed = failedEvaluations(report)
  const lines: string[] = []
  if (failed.length > 0) {
    // One line each: the runner has just printed each failure's tree in its error, once is enough.
    // A rejected assertion (a bad option) measured nothing: it is not a failed evaluation.
    const rejected = failed.filter(({ record }) => record.error?.code === ASSERTION_REJECTED).length
    const counts = [
      failed.length > rejected ? plural(failed.length - rejected, 'failed evaluation') : undefined,
      rejected > 0 ? plural(rejected, 'rejected assertion') : undefined,
    ]
    lines.push(palette.fail(`judgetree: ${counts.filter((count) => count !== undefined).join(', ')}`))
    for (const { test, record } of failed) {
      lines.push(
        `  ${palette.fail('✗')} ${paintSafe(`${testTitle(test).replace(/\s+/g, ' ')} · ${failureLine(record)}`)}`,
      )
    }
    lines.push('')
  }
  for (const problem of environmentProblems(report)) {
    lines.push(
      paintSafe(`judgetree: ${problemHeading(problem)}`, palette.fail),
      `  ${paintSafe(problem.message)}`,
      `  fix: ${paintSafe(problem.advice)}`,
      '',
    )
  }
  const evaluations = report.tests.flatMap((test) => test.evaluations)
  lines.push(
    ...notes.map((note) => noteLine(note, palette)),
    ...renderJuryLines(evaluations).map((line) => paintSafe(line)),
    renderFooter(report.summary, palette),
  )
  return lines.join('\n')
}

const MAX_LISTED = 20

/**
 * The report printed after evaluate(): a table per metric, the problems, then one summary line, coloured by
 * `palette`. Safe to print (see `terminalSafe`): a test case's name or a judge's message cannot act in a terminal or
 * a CI log.
 */
export function renderEvaluationSummary(
  summary: EvaluationSummary,
  results: readonly EvaluationResult[],
  palette: Palette = PLAIN,
): string {
  const header = ['metric', 'measured', 'passed', 'failed', 'errored', 'mean score', 'judge calls', 'tokens', 'cost']
  const rows = summary.byMetric.map(({ name, measured, passed, failed, errored, meanScore, usage }) => [
    terminalSafe(name),
    ...[measured, passed, failed, errored].map(formatCount),
    meanScore === undefined ? '–' : formatScore(meanScore),
    `${formatCount(usage.judgeCalls)} (${formatCount(usage.cachedCalls)} cached)`,
    formatCount(usage.promptTokens + usage.completionTokens) + formatTokenDetails(usage),
    formatCost(usage.costUsd),
  ])
  // Passes green, failures and errors red, where there are some: coloured after padding, so the columns line up.
  const paints = [undefined, undefined, palette.pass, palette.fail, palette.fail]
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)))
  const line = (cells: readonly string[], paint: boolean) =>
    cells
      .map((cell, column) => {
        const padded = column === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[column] ?? 0)
        const tone = paint && cell !== '0' ? paints[column] : undefined
        return tone === undefined ? padded : tone(padded)
      })
      .join('  ')
      .trimEnd()
  const lines = [line(header, false), ...rows.map((row) => line(row, true))]
  const juries = renderJuryLines(results.map(({ result }) => result))
  if (juries.length > 0) lines.push('', ...juries.map((jury) => paintSafe(jury)))
  const problems = results.filter((entry) => !entry.result.success)
  if (problems.length > 0)
    lines.push('', ...problems.slice(0, MAX_LISTED).map((problem) => describeProblem(problem, palette)))
  if (problems.length > MAX_LISTED) lines.push(`… and ${problems.length - MAX_LISTED} more`)
  // A problem of the environment (no API key) fails every measurement the same way: how to fix it is said once.
  for (const [advice, count] of environmentAdvice(problems)) {
    lines.push(
      '',
      `${palette.fail(`a problem of the environment failed ${formatCount(count)} measurements`)}; fix: ${paintSafe(advice)}`,
    )
  }
  if (summary.skipped > 0) {
    lines.push(
      '',
      palette.dim(`${formatCount(summary.skipped)} pairs skipped: a metric only measures test cases of its kind.`),
    )
  }
  lines.push('', renderFooter(summary, palette))
  return lines.join('\n')
}

function describeProblem({ index, testCase, result }: EvaluationResult, palette: Palette): string {
  const name = (testCase as { name?: unknown } | null)?.name
  // A name is the dataset's: on one line, so each problem is one line whatever the name holds.
  const label = `case ${index}${typeof name === 'string' && name !== '' ? ` "${oneLineSafe(name)}"` : ''}`
  if (result.error) {
    const { message, advice } = result.error
    const error = firstLine(advice === undefined ? message : withoutAdvice(message, advice))
    return `${palette.fail('✗')} ${paintSafe(`${label} · ${result.name}: error: ${error}`)}`
  }
  return (
    `${palette.fail('✗')} ` +
    paintSafe(
      `${label} · ${result.name}: score ${formatScore(result.score)} < threshold ${formatScore(result.threshold)}`,
    )
  )
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
