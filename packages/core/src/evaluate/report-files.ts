import { extname } from 'node:path'
import type { DeepAcyclicGraph } from '../dag/graph.js'
import { type WrittenTo, writeFileAtomically } from '../internal/write-file.js'
import { toRecord } from '../report/record.js'
import { type EvaluationPictures, renderEvaluationHtml } from './html-report.js'
import type { EvaluationResult, EvaluationSummary } from './summary.js'

type Renderer = (dot: string) => string

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
  const failures = results.filter((entry) => !entry.result.success && dagOf(entry) !== undefined)
  if (failures.length === 0) return pictures
  const render = await loadRenderer()
  if (render === undefined) return pictures
  for (const entry of failures) {
    try {
      pictures.set(entry, render((dagOf(entry) as DeepAcyclicGraph).toDot({ trace: entry.result.trace })))
    } catch {
      // A picture is a convenience: the failure's tree, printed below it, says everything.
    }
  }
  return pictures
}

function dagOf(entry: EvaluationResult): DeepAcyclicGraph | undefined {
  const dag = (entry.metric as { dag?: DeepAcyclicGraph }).dag
  return typeof dag?.toDot === 'function' && entry.result.trace.nodes.length > 0 ? dag : undefined
}

/**
 * Graphviz compiled to WebAssembly, an optional peer dependency (`@viz-js/viz`; @judgetree/matchers brings it):
 * without it the HTML summary has every tree but no pictures.
 */
async function loadRenderer(): Promise<Renderer | undefined> {
  try {
    const viz = await import('@viz-js/viz')
    const instance = await viz.instance()
    return (dot) => instance.renderString(dot, { format: 'svg' })
  } catch {
    return undefined
  }
}
