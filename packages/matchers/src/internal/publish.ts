import { appendFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, relative, resolve } from 'node:path'
import { DEFAULT_REPORT_FILE, type JudgetreeReporterOptions } from './reporter-options.js'
import { type JudgetreeReport, renderMarkdown, renderRunOutput } from './run-report.js'

/** Prints the run's failed evaluations and summary, writes the JSON report and the GitHub step summary. */
export function publishReport(
  report: JudgetreeReport,
  { root, options, print }: { root: string; options: JudgetreeReporterOptions; print: (text: string) => void },
): void {
  const file = reportFile(root, options.outputFile, report.shard)
  if (file !== undefined) writeJsonAtomically(file, report)
  if (report.summary.metrics === 0 && report.summary.rejected === 0) return
  const notes = file === undefined ? [] : [`judgetree: JSON report in ${displayPath(root, file)}`]
  print(`\n${renderRunOutput(report, notes)}\n`)
  const stepSummary = process.env.GITHUB_STEP_SUMMARY
  if (options.githubSummary !== false && stepSummary) appendFileSync(stepSummary, `${renderMarkdown(report)}\n`)
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

/** Write to a temporary file, then rename: a reader never sees half a report. */
function writeJsonAtomically(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true })
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`)
  renameSync(temporary, file)
}
