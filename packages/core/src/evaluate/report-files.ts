import { extname } from 'node:path'
import { type WrittenTo, writeFileAtomically } from '../internal/write-file.js'
import { SURFACES, type Surface } from '../report/index.js'
import { drawDag } from '../report/picture.js'
import type { EvaluationResult, EvaluationRun } from '../report/run.js'
import type { EvaluationSummary } from '../report/summary.js'

/** What writing evaluate()'s report files did: the files written, and one line for each that could not be. */
export interface WrittenReport {
  readonly written: readonly string[]
  readonly failures: readonly string[]
}

/**
 * Writes evaluate()'s run through the surfaces that go to files: the JSON report to `file`, and beside it (same
 * name, `.html`) the HTML summary with a picture of each failure's walked DAG. The HTML goes beside a regular file only: a device or a stream (`/dev/null`,
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
  const surfaces: readonly Surface[] = Object.values(SURFACES)
  let run: EvaluationRun = { kind: 'evaluation', summary, results, pictures: new Map(), notes: [] }
  let to: WrittenTo | undefined
  for (const surface of surfaces.filter((each) => each.to === 'report-file')) {
    const text = surface.render(run)
    if (text === undefined) continue
    try {
      to = write(file, text)
      written.push(file)
    } catch (error) {
      failures.push(`could not write the ${surface.what} ${file} (${describeFailure(error)})`)
      return { written, failures }
    }
  }
  if (to !== 'file') return { written, failures }
  const beside = surfaces.filter((each) => each.to.startsWith('.'))
  if (beside.length > 0) run = { ...run, pictures: await picturesOf(results) }
  const base = extname(file) === '.json' ? file.slice(0, -'.json'.length) : file
  for (const surface of beside) {
    const text = surface.render(run)
    if (text === undefined) continue
    const path = `${base}${surface.to}`
    try {
      write(path, text)
      written.push(path)
    } catch (error) {
      failures.push(`could not write the ${surface.what} ${path} (${describeFailure(error)})`)
    }
  }
  return { written, failures }
}

function describeFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message === '' ? String(error) : message
}

/** The picture of each failure's walked DAG, for the surfaces beside the report. */
async function picturesOf(results: readonly EvaluationResult[]): Promise<Map<EvaluationResult, string>> {
  const pictures = new Map<EvaluationResult, string>()
  for (const entry of results.filter(({ result }) => !result.success)) {
    const picture = await drawDag(entry.metric, entry.result.trace, entry.result.success)
    if (picture !== undefined) pictures.set(entry, picture)
  }
  return pictures
}
