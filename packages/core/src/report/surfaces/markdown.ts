import { terminalSafe } from '../../internal/safe-text.js'
import { formatScore } from '../../trace/render.js'
import { environmentProblems, failedEvaluations, negation, problemHeading, scoreCell, testTitle } from '../failures.js'
import { renderJuryLines } from '../jury-summary.js'
import { ASSERTION_REJECTED } from '../record.js'
import type { RunnerReport } from '../run.js'
import { plural, renderFooter } from '../summary.js'
import type { Surface } from '../surface.js'

/** The CI step summary (`$GITHUB_STEP_SUMMARY`) of a runner's run, followed by the baseline's rows. */
export const markdown: Surface = {
  what: 'step summary',
  to: 'step-summary',
  render: (run) => (run.kind === 'runner' ? `${renderMarkdown(run.report)}\n${run.appendix ?? ''}` : undefined),
}

/**
 * GitHub shows a step summary of up to 1 MiB, and none of a larger one: the failed evaluations' trees stop well short
 * of it, leaving room for the baseline's rows and for other reports of the same step.
 */
const FAILURES_BUDGET = 512 * 1024

/**
 * The Markdown appended to `$GITHUB_STEP_SUMMARY`: totals, a table of evaluations, the failed ones' trees, and for the
 * first `maxPictures` failed DAG evaluations a Mermaid picture of the walked DAG, which GitHub draws. Safe for the CI
 * log it is part of (see `terminalSafe`); a test name's blank lines cannot end the `<details>` block.
 */
export function renderMarkdown(report: RunnerReport, maxRows = 100, maxPictures = 5): string {
  const lines = [`## judgetree${report.shard ? ` (shard ${report.shard.index}/${report.shard.count})` : ''}`, '']
  lines.push(escapeHtml(renderFooter(report.summary).replace(/^judgetree: /, '')), '')
  // As the closing summary: each jury's agreement and its jurors' calls (their verdicts are in each tree).
  const juries = renderJuryLines(report.tests.flatMap((test) => test.evaluations))
  if (juries.length > 0) lines.push(...juries.map((line) => `- ${escapeHtml(line).replace(/\s+/g, ' ')}`), '')
  const all = report.tests.flatMap((test) => test.evaluations.map((record) => ({ test, record })))
  if (all.length > 0) {
    lines.push('| | metric | score | threshold | test |', '| --- | --- | --- | --- | --- |')
    for (const { test, record } of all.slice(0, maxRows)) {
      const cells = [
        record.assertionPassed ? '✅' : '❌',
        record.negated ? `${record.name} (.not)` : record.name,
        record.error?.code === ASSERTION_REJECTED ? 'rejected' : record.error ? 'error' : scoreCell(record),
        formatScore(record.threshold),
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
  lines.push(...renderFailures(report, FAILURES_BUDGET - bytes(lines), maxPictures))
  return terminalSafe(lines.join('\n'))
}

/**
 * Each failed evaluation in a collapsed block, its tree and, for the first `maxPictures` DAG ones, the Mermaid chart of
 * its walk; stopped before `budget` bytes, saying how many were left out.
 */
function renderFailures(report: RunnerReport, budget: number, maxPictures: number): string[] {
  const lines: string[] = []
  const failed = failedEvaluations(report)
  let left = budget
  let pictures = 0
  for (const [shown, { test, record }] of failed.entries()) {
    const picture = record.mermaid !== undefined && pictures < maxPictures ? record.mermaid : undefined
    const block = [
      // One line: a blank line in a test name would end the HTML block, and Markdown would follow.
      `<details><summary>❌ ${escapeHtml(`${record.summary} — ${testTitle(test)}${negation(record)}`.replace(/\s+/g, ' '))}</summary>`,
      '',
      '```text',
      inFence(record.text),
      '```',
      '',
      ...(picture === undefined ? [] : ['```mermaid', inFence(picture), '```', '']),
      '</details>',
      '',
    ]
    left -= bytes(block)
    if (left < 0) {
      lines.push(`…and ${plural(failed.length - shown, 'more failed evaluation')} in the JSON report.`, '')
      break
    }
    lines.push(...block)
    if (picture !== undefined) pictures += 1
  }
  const undrawn = failed.filter(({ record }) => record.mermaid !== undefined).length - pictures
  if (undrawn > 0) {
    lines.push(
      `The walked DAG is drawn for the first ${plural(pictures, 'failed DAG evaluation')}; ${undrawn} more ${undrawn === 1 ? 'has its' : 'have theirs'} in the JSON report (\`mermaid\`).`,
      '',
    )
  }
  return lines
}

function bytes(lines: readonly string[]): number {
  return lines.reduce((total, line) => total + Buffer.byteLength(line) + 1, 0)
}

/** Text for a fenced block: a fence inside it would close the block early. */
function inFence(text: string): string {
  return text.replaceAll('```', "'''")
}

function tableCell(text: string): string {
  return escapeHtml(text).replaceAll('|', '\\|').replace(/\s+/g, ' ')
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
}
