import { extname } from 'node:path'
import { type WrittenTo, writeFileAtomically } from '../internal/write-file.js'
import { drawDag } from '../report/picture.js'
import { toRecord } from '../report/record.js'
import type { EvaluationResult } from '../report/run.js'
import type { EvaluationSummary } from '../report/summary.js'
import { type EvaluationPictures, renderEvaluationHtml } from './html-report.js'

/** What writing evaluate()'s report files did: the files written, and one line for each that could not be. */
export interface WrittenReport {
  readonly written: readonly string[]
  readonly failures: readonly string[]
}

/**
 * Writes evaluate()'s run to `file` as JSON, and beside it (same name, `.html`) the HTML summary with a picture of
 * each failure's walked DAG. The HTML goes beside a regular file only: a device or a stream (`/dev/null`,
 * `/dev/stdout`, a pipe) has no "beside", so it gets the JSON alone. Never throws: a file that cannot be written (a
 * full disk, a folder it may not write in, a pipe no one reads) is one line of `failures` saying which and why, so
 * the run's results are never lost to it.
 */
export async function writeEvaluationReport(
  file: string,
  summary: EvaluationSummary,
  results: readonly EvaluationResult[],
  write: (file: string, text: string) => WrittenTo = writeFileAtomically,
): Promise<WrittenReport> {
  const written: string[] = []
  const failures: string[] = []
  const json = {
    summary,
    results: results.map(({ index, testCase, metric, result }) => ({
      index,
      testCase,
      metric: metric.name,
      result: toRecord(result),
    })),
  }
  let to: WrittenTo
  try {
    to = write(file, `${JSON.stringify(json, plainValues, 2)}\n`)
    written.push(file)
  } catch (error) {
    failures.push(`could not write the report ${file} (${describeFailure(error)})`)
    return { written, failures }
  }
  if (to !== 'file') return { written, failures }
  const html = `${extname(file) === '.json' ? file.slice(0, -'.json'.length) : file}.html`
  try {
    write(html, renderEvaluationHtml(summary, results, await picturesOf(results)))
    written.push(html)
  } catch (error) {
    failures.push(`could not write the HTML summary ${html} (${describeFailure(error)})`)
  }
  return { written, failures }
}

function describeFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message === '' ? String(error) : message
}

/** The summary's unknown cost as `null` (JSON.stringify would drop the key); results are records already. */
function plainValues(key: string, value: unknown): unknown {
  return value === undefined && key === 'costUsd' ? null : value
}

async function picturesOf(results: readonly EvaluationResult[]): Promise<EvaluationPictures> {
  const pictures = new Map<EvaluationResult, string>()
  for (const entry of results.filter(({ result }) => !result.success)) {
    const picture = await drawDag(entry.metric, entry.result.trace)
    if (picture !== undefined) pictures.set(entry, picture)
  }
  return pictures
}
