import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import {
  type BaselineComparison,
  type BaselineFile,
  baselineOf,
  baselineSymbol,
  changeLocation,
  compareWithBaseline,
  describeChange,
  parseBaseline,
  refreshBaseline,
  renderBaselineChange,
  renderBaselineCounts,
} from './baseline.js'
import type { JudgetreeReporterOptions } from './reporter-options.js'
import type { JudgetreeReport } from './run-report.js'

/** The environment variable that writes or refreshes the baseline, as `-u` does snapshots. */
export const UPDATE_BASELINE_ENV = 'JUDGETREE_UPDATE_BASELINE'

/** What the JSON report says about the baseline. */
export interface JudgetreeReportBaseline {
  /** The baseline file, as configured. */
  readonly file: string
  /** `compared`; `missing` (no file yet); `unreadable` (see `error`); `written` (JUDGETREE_UPDATE_BASELINE). */
  readonly status: 'compared' | 'missing' | 'unreadable' | 'written' | 'not-written'
  /** This run against the baseline; null when there was none to compare with. */
  readonly comparison: BaselineComparison | null
  /** Why the baseline could not be read or written. */
  readonly error: string | null
  /** `failOnRegression` failed the run. */
  readonly failedRun: boolean
}

/** The baseline part of a run's output: the report's section, terminal lines, Markdown and the run's failure. */
export interface BaselineOutcome {
  readonly section: JudgetreeReportBaseline
  /** Printed before the summary line. */
  readonly lines: readonly string[]
  readonly markdown: string
  /** Set when the run must fail: what to print last. */
  readonly failure: string | undefined
  /** The file to write and what, when updating. */
  readonly write: { readonly file: string; readonly content: BaselineFile } | undefined
}

const MAX_LINES = 20

/** Compares the run with its baseline, or prepares the refreshed baseline; never throws for a bad file. */
export function checkBaseline(
  report: JudgetreeReport,
  { root, options, env }: { root: string; options: JudgetreeReporterOptions; env: NodeJS.ProcessEnv },
): BaselineOutcome | undefined {
  const configured = options.baseline
  if (configured === undefined) return undefined
  const file = resolve(root, configured)
  const update = ['1', 'true', 'yes'].includes((env[UPDATE_BASELINE_ENV] ?? '').toLowerCase())
  const tolerance = toleranceOf(options.failOnRegression)
  const current = baselineOf(report)
  const partial = report.shard !== null
  let previous: BaselineFile | undefined
  let error: string | null = null
  if (existsSync(file)) {
    try {
      previous = parseBaseline(readFileSync(file, 'utf8'))
    } catch (problem) {
      error = `the baseline ${configured} cannot be read: ${(problem as Error).message}`
    }
  }
  const comparison = previous && compareWithBaseline(current, previous, { file: configured, tolerance, partial })
  const lines = comparison ? comparisonLines(comparison) : []
  const base = { file: configured, comparison: comparison ?? null, error }

  if (update) {
    if (partial) {
      const shard = `${report.shard?.index}/${report.shard?.count}`
      lines.push(
        `judgetree: baseline not written: this run is shard ${shard}. Set ${UPDATE_BASELINE_ENV}=1 on the run that ` +
          "merges the shards' reports (vitest --merge-reports) or on an unsharded run.",
      )
      return {
        section: { ...base, status: 'not-written', failedRun: false },
        lines,
        markdown: '',
        failure: undefined,
        write: undefined,
      }
    }
    const content = refreshBaseline(current, previous)
    const verb = previous ? 'updated' : error ? 'rewritten (the old one could not be read)' : 'written'
    lines.push(`judgetree: baseline ${verb}: ${configured} (${content.entries.length} evaluations)`)
    const section = { ...base, status: 'written' as const, failedRun: false }
    return {
      section,
      lines,
      markdown: `${comparisonMarkdown(section)}\n`,
      failure: undefined,
      write: { file, content },
    }
  }

  let failure: string | undefined
  if (error !== null) {
    lines.push(`judgetree: warning: ${error}. Fix the file, or write a new one with ${UPDATE_BASELINE_ENV}=1.`)
    if (options.failOnRegression) {
      failure = `judgetree: failOnRegression is on and ${error}: the run fails, since it cannot be compared.`
    }
  } else if (previous === undefined) {
    lines.push(`judgetree: no baseline at ${configured} yet: run with ${UPDATE_BASELINE_ENV}=1 to write one.`)
  } else if (options.failOnRegression && comparison && comparison.counts.regressed > 0) {
    const count = comparison.counts.regressed
    failure =
      `judgetree: failOnRegression: ${count} ${count === 1 ? 'score' : 'scores'} fell below the baseline` +
      `${tolerance > 0 ? ` by more than ${tolerance}` : ''}; the run fails. If the new scores are right, accept them ` +
      `with ${UPDATE_BASELINE_ENV}=1.`
  }
  if (failure !== undefined) lines.push(failure)
  const status = error !== null ? 'unreadable' : previous === undefined ? 'missing' : 'compared'
  const section = { ...base, status, failedRun: failure !== undefined } as const
  return { section, lines, markdown: `${comparisonMarkdown(section)}\n`, failure, write: undefined }
}

function toleranceOf(failOnRegression: JudgetreeReporterOptions['failOnRegression']): number {
  return typeof failOnRegression === 'object' && failOnRegression !== null ? failOnRegression.tolerance : 0
}

function comparisonLines(comparison: BaselineComparison): string[] {
  const lines = [`judgetree: against the baseline ${comparison.file}: ${renderBaselineCounts(comparison.counts)}`]
  lines.push(...comparison.changes.slice(0, MAX_LINES).map((change) => `  ${renderBaselineChange(change)}`))
  if (comparison.changes.length > MAX_LINES) {
    lines.push(`  … and ${comparison.changes.length - MAX_LINES} more in the JSON report`)
  }
  return lines
}

/** The step summary's baseline section. */
function comparisonMarkdown(section: JudgetreeReportBaseline, maxRows = 100): string {
  const lines = [`### Baseline \`${section.file}\``, '']
  if (section.error !== null) lines.push(`⚠️ ${tableCell(section.error)}`, '')
  if (section.status === 'missing')
    lines.push(`No baseline yet: run with \`${UPDATE_BASELINE_ENV}=1\` to write one.`, '')
  if (section.status === 'written') lines.push('Written from this run.', '')
  const comparison = section.comparison
  if (comparison) {
    lines.push(renderBaselineCounts(comparison.counts), '')
    if (comparison.changes.length > 0) {
      lines.push('| | change | test |', '| --- | --- | --- |')
      for (const change of comparison.changes.slice(0, maxRows)) {
        const cells = [baselineSymbol(change), describeChange(change), changeLocation(change)]
        lines.push(`| ${cells.map(tableCell).join(' | ')} |`)
      }
      if (comparison.changes.length > maxRows)
        lines.push('', `…and ${comparison.changes.length - maxRows} more in the JSON report.`)
      lines.push('')
    }
  }
  if (section.failedRun) lines.push('❌ `failOnRegression` failed the run.', '')
  return lines.join('\n')
}

function tableCell(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('|', '\\|')
    .replace(/\s+/g, ' ')
}
