import { appendFileSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import {
  lastCoordinatorStats,
  type Palette,
  PLAIN,
  type RunnerRun,
  SURFACES,
  type Surface,
  terminalSafe,
  writeFileAtomically,
} from '@judgetree/core/runtime'
import type { CollectedFile } from './baseline.js'
import { publishBaseline } from './publish-baseline.js'
import { DEFAULT_REPORT_FILE, type JudgetreeReporterOptions } from './reporter-options.js'
import type { JudgetreeReport } from './run-report.js'

/**
 * Prints the run's failed evaluations and summary, writes the JSON report and the GitHub step summary, and compares
 * the run with its baseline (or writes it). Returns why the run must fail when `failOnRegression` says so.
 */
export function publishReport(
  collected: JudgetreeReport,
  {
    root,
    options,
    print,
    palette = PLAIN,
    files = [],
  }: {
    root: string
    options: JudgetreeReporterOptions
    print: (text: string) => void
    /** Colours the printed lines; plain unless the reporter's stream takes colour (see `paletteFor`). */
    palette?: Palette
    /**
     * The test files the run collected, which tells the baseline which of its entries' tests did not run; with none,
     * every entry whose file exists counts as not run (kept).
     */
    files?: readonly CollectedFile[]
  },
): { failure: string | undefined } {
  const report = withRateLimits(collected)
  const baseline =
    report.summary.evaluations === 0
      ? undefined
      : publishBaseline(report, { root, options, env: process.env, collected: files })
  const full = baseline === undefined ? report : { ...report, baseline: baseline.section }
  const file = reportFile(root, options.outputFile, report.shard)
  const surfaces: readonly Surface[] = Object.values(SURFACES)
  const run: RunnerRun = {
    kind: 'runner',
    report: full,
    notes: [],
    // The baseline's rows quote its file's entries, which a pull request may have written.
    appendix: baseline ? terminalSafe(baseline.markdown) : '',
  }
  // Whatever happened to the baseline, the run's own report is written; a report that cannot be (a full disk, a pipe
  // no one reads) is a warning in the output, never an error that would cut the run's closing summary.
  const written: string[] = []
  let writtenTo: ReturnType<typeof writeFileAtomically> | undefined
  for (const surface of surfaces.filter((each) => each.to === 'report-file' && file !== undefined)) {
    const text = surface.render(run)
    if (text === undefined || file === undefined) continue
    try {
      writtenTo = writeFileAtomically(file, text)
      written.push(`judgetree: JSON ${surface.what} in ${displayPath(root, file)}`)
    } catch (error) {
      written.push(
        `judgetree: warning: could not write the JSON ${surface.what} ${displayPath(root, file)}: ${(error as Error).message}`,
      )
    }
  }
  for (const surface of surfaces.filter((each) => each.to.startsWith('.') && writtenTo === 'file')) {
    const text = surface.render(run)
    if (text === undefined || file === undefined) continue
    const beside = `${file.endsWith('.json') ? file.slice(0, -'.json'.length) : file}${surface.to}`
    try {
      writeFileAtomically(beside, text)
      written.push(`judgetree: ${surface.what} in ${displayPath(root, beside)}`)
    } catch (error) {
      written.push(
        `judgetree: warning: could not write the ${surface.what} ${displayPath(root, beside)}: ${(error as Error).message}`,
      )
    }
  }
  const lines = baseline?.lines ?? []
  if (report.summary.evaluations === 0 && report.summary.rejected === 0) {
    for (const warning of written.filter((line) => line.startsWith('judgetree: warning:'))) print(`\n${warning}\n`)
    return { failure: undefined }
  }
  const closing: RunnerRun = { ...run, notes: [...lines, ...written] }
  for (const surface of surfaces.filter((each) => each.to === 'print')) {
    const text = surface.render(closing, palette)
    if (text !== undefined) print(`\n${text}\n`)
  }
  const stepSummary = process.env.GITHUB_STEP_SUMMARY
  for (const surface of surfaces.filter((each) => each.to === 'step-summary')) {
    const text = surface.render(closing)
    if (text !== undefined && options.githubSummary !== false && stepSummary) appendFileSync(stepSummary, text)
  }
  return { failure: baseline?.failure }
}

/** The run's 429s, said once: the coordinator this process started for the run counted them for every worker. */
function withRateLimits(report: JudgetreeReport): JudgetreeReport {
  const stats = lastCoordinatorStats()
  if (stats === undefined || stats.rateLimited === 0) return report
  const rateLimits = { rateLimited: stats.rateLimited, concurrency: stats.currentConcurrency }
  return { ...report, summary: { ...report.summary, rateLimits } }
}

function reportFile(
  root: string,
  outputFile: string | false | undefined,
  shard: JudgetreeReport['shard'],
): string | undefined {
  if (outputFile === false) return undefined
  const file = resolve(root, outputFile ?? DEFAULT_REPORT_FILE)
  if (shard === null) return file
  const suffix = `.shard-${shard.index}-of-${shard.count}`
  return file.endsWith('.json') ? `${file.slice(0, -'.json'.length)}${suffix}.json` : `${file}${suffix}`
}

/** Relative to the project root when the file is inside it. */
function displayPath(root: string, file: string): string {
  const shown = relative(root, file)
  return shown.startsWith('..') ? file : shown
}
