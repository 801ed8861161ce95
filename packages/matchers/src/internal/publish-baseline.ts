import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { type TerminalNote, type Tone, writeFileAtomically } from '@judgetree/core/runtime'
import {
  type BaselineComparison,
  type BaselineFile,
  type BaselineStatus,
  baselineOf,
  baselineSymbol,
  type CollectedFile,
  changeLocation,
  compareWithBaseline,
  describeChange,
  type RefreshedBaseline,
  type RunScope,
  refreshBaseline,
  renderBaselineChange,
  renderBaselineCounts,
} from './baseline.js'
import { parseBaseline } from './baseline-file.js'
import { withFileLock } from './file-lock.js'
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
  /** Printed before the summary line: a regression in red, an improvement in green, what did not run dim. */
  readonly lines: readonly TerminalNote[]
  readonly markdown: string
  /** Set when the run must fail: what to print last. */
  readonly failure: string | undefined
}

const MAX_LINES = 20

/**
 * Compares the run with its baseline, or refreshes the baseline (JUDGETREE_UPDATE_BASELINE); never throws for a bad
 * or unwritable file. `collected` is every test file the run collected, with its tests (see RunScope).
 */
export function publishBaseline(
  report: JudgetreeReport,
  {
    root,
    options,
    env,
    collected,
  }: { root: string; options: JudgetreeReporterOptions; env: NodeJS.ProcessEnv; collected: readonly CollectedFile[] },
): BaselineOutcome | undefined {
  const configured = options.baseline
  if (configured === undefined) return undefined
  const file = resolve(root, configured)
  const update = ['1', 'true', 'yes'].includes((env[UPDATE_BASELINE_ENV] ?? '').toLowerCase())
  const tolerance = toleranceOf(options.failOnRegression)
  const current = baselineOf(report)
  const scope: RunScope = { files: collected, fileExists: (test) => existsSync(resolve(root, test)) }
  const { previous, error } = readBaseline(file, configured)
  const comparison = previous && compareWithBaseline(current, previous, { file: configured, tolerance, scope })
  const lines: TerminalNote[] = comparison ? comparisonLines(comparison) : []
  const base = { file: configured, comparison: comparison ?? null, error }

  if (update) {
    if (report.shard !== null) {
      const shard = `${report.shard?.index}/${report.shard?.count}`
      lines.push(
        `judgetree: baseline not written: this run is shard ${shard}. Set ${UPDATE_BASELINE_ENV}=1 on the run that ` +
          "merges the shards' reports (vitest --merge-reports) or on an unsharded run.",
      )
      return { section: { ...base, status: 'not-written', failedRun: false }, lines, markdown: '', failure: undefined }
    }
    let written: { refreshed: RefreshedBaseline; replaced: 'nothing' | 'baseline' | 'unreadable' }
    try {
      written = writeBaseline(file, configured, current, scope)
    } catch (problem) {
      const message = `could not write the baseline ${configured}: ${(problem as Error).message}`
      lines.push(`judgetree: warning: ${message}`)
      const section = { ...base, status: 'not-written' as const, error: message, failedRun: false }
      return { section, lines, markdown: `${comparisonMarkdown(section)}\n`, failure: undefined }
    }
    lines.push(writtenLine(configured, written.refreshed, written.replaced))
    const section = { ...base, status: 'written' as const, failedRun: false }
    return { section, lines, markdown: `${comparisonMarkdown(section)}\n`, failure: undefined }
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
    // A chance of passing that fell while the score held is a regression too: then the line says so.
    const regressed = comparison.changes.filter((change) => change.status === 'regressed')
    const chanceOnly = regressed.some(
      (change) => change.passProbabilityChange !== undefined && Math.abs(change.scoreChange ?? 0) <= tolerance,
    )
    const what = chanceOnly
      ? count === 1
        ? 'score or P(pass)'
        : 'scores or P(pass)'
      : count === 1
        ? 'score'
        : 'scores'
    failure =
      `judgetree: failOnRegression: ${count} ${what} fell below the baseline` +
      `${tolerance > 0 ? ` by more than ${tolerance}` : ''}; the run fails. If the new scores are right, accept them ` +
      `with ${UPDATE_BASELINE_ENV}=1.`
  }
  if (failure !== undefined) lines.push({ text: failure, tone: 'fail' })
  const status = error !== null ? 'unreadable' : previous === undefined ? 'missing' : 'compared'
  const section = { ...base, status, failedRun: failure !== undefined } as const
  return { section, lines, markdown: `${comparisonMarkdown(section)}\n`, failure }
}

function readBaseline(file: string, configured: string): { previous: BaselineFile | undefined; error: string | null } {
  if (!existsSync(file)) return { previous: undefined, error: null }
  try {
    return { previous: parseBaseline(readFileSync(file, 'utf8')), error: null }
  } catch (problem) {
    return { previous: undefined, error: `the baseline ${configured} cannot be read: ${(problem as Error).message}` }
  }
}

/**
 * Refreshes the file under its lock, from the file as it is then: a run that updated it since this run first read it
 * keeps its entries (two runs updating at once each keep the other's).
 */
function writeBaseline(file: string, configured: string, current: BaselineFile, scope: RunScope) {
  return withFileLock(file, () => {
    const { previous, error } = readBaseline(file, configured)
    const refreshed = refreshBaseline(current, previous, scope)
    writeFileAtomically(file, `${JSON.stringify(refreshed.content, null, 2)}\n`)
    const replaced = previous !== undefined ? 'baseline' : error !== null ? 'unreadable' : 'nothing'
    return { refreshed, replaced } as const
  })
}

/** `judgetree: baseline updated: b.json (19 evaluations: 3 from this run, 16 kept unchanged …, 1 dropped …)` */
function writtenLine(
  configured: string,
  refreshed: RefreshedBaseline,
  replaced: 'nothing' | 'baseline' | 'unreadable',
) {
  const total = `${refreshed.content.entries.length} evaluations`
  if (replaced === 'unreadable') {
    return `judgetree: baseline rewritten (the old one could not be read): ${configured} (${total})`
  }
  if (replaced === 'nothing') return `judgetree: baseline written: ${configured} (${total})`
  const dropped = refreshed.dropped === 0 ? '' : `, ${refreshed.dropped} dropped (their tests no longer exist)`
  return (
    `judgetree: baseline updated: ${configured} (${total}: ${refreshed.fromRun} from this run, ` +
    `${refreshed.kept} kept unchanged from tests that did not run${dropped})`
  )
}

function toleranceOf(failOnRegression: JudgetreeReporterOptions['failOnRegression']): number {
  return typeof failOnRegression === 'object' && failOnRegression !== null ? failOnRegression.tolerance : 0
}

function comparisonLines(comparison: BaselineComparison): TerminalNote[] {
  const lines: TerminalNote[] = [
    `judgetree: against the baseline ${comparison.file}: ${renderBaselineCounts(comparison.counts)}`,
  ]
  for (const change of comparison.changes.slice(0, MAX_LINES)) {
    const text = `  ${renderBaselineChange(change)}`
    const tone = CHANGE_TONES[change.status]
    lines.push(tone === undefined ? text : { text, tone })
  }
  if (comparison.changes.length > MAX_LINES) {
    lines.push(`  … and ${comparison.changes.length - MAX_LINES} more in the JSON report`)
  }
  return lines
}

/** How a change's line is coloured in a terminal: worse red, better green, what did not run dim. */
const CHANGE_TONES: Record<BaselineStatus, Tone | undefined> = {
  regressed: 'fail',
  'new-failure': 'fail',
  improved: 'pass',
  'new-pass': 'pass',
  missing: 'dim',
  'not-run': 'dim',
  unchanged: undefined,
  new: undefined,
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
