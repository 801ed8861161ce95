import { createHash } from 'node:crypto'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { JudgetreeRecord } from './record.js'
import type { ProvidedOptions } from './vitest-options.js'

/** The parts of a Vitest test task the matcher reads and writes; the same in Vitest 3.2, 4 and 5. */
export interface TestTask {
  /** Vitest's id of the test, the same in every run (a digest of its project, file and name). */
  readonly id?: string | undefined
  readonly name: string
  readonly concurrent?: boolean | undefined
  readonly result?: { readonly state?: string } | undefined
  readonly meta: object
  readonly context?:
    | {
        /** The attachment exists since Vitest 3.2; its body is base64 unless `bodyEncoding` says otherwise. */
        annotate?: (message: string, type?: string, attachment?: AnnotationAttachment) => Promise<unknown>
        /** Vitest 3.2+: aborts when the test times out, on `--bail` and on Ctrl+C. */
        readonly signal?: AbortSignal | undefined
        /** Vitest (internal): whether the test has used its context's `expect`. */
        readonly _local?: boolean | undefined
      }
    | undefined
}

/**
 * A file attached to an annotation: the HTML report and the UI show an image inline, anything else as a download.
 * Either its content (`body`, base64) or a file Vitest copies into its attachments folder (`path`).
 */
export type AnnotationAttachment =
  | { readonly contentType: string; readonly body: string }
  | { readonly contentType: string; readonly path: string }

/** Where the structured records live in `task.meta`; reporters read `testCase.meta().judgetree`. */
export const META_KEY = 'judgetree'

/**
 * The type of judgetree's annotations, for every verdict: JUnit writes it as the property's name
 * (`<property name="judgetree" value="FAIL …">`), the terminal as the group's title, and GitHub Actions turns a
 * type of its own into a notice titled `judgetree`. Not `error`: a metric that scored below its threshold is a
 * failure, not an error, and the failed test already carries GitHub's error annotation.
 */
export const ANNOTATION_TYPE = 'judgetree'

/**
 * Puts an evaluation on its test: the structured record in `meta.judgetree`; the readable text under a
 * top-level `judgetree: <metric>` key (with ` (n)` after it for the test's n-th `toPassMetric` call, n > 1),
 * which the HTML report and UI print as-is in a `<pre>`, layout intact; and, when a report other than the terminal
 * reads annotations (`options.annotate`), for a failed assertion (for every one with `annotatePassing`), an
 * annotation whose message is the summary line and reason (the failure message already carries the tree) and whose
 * attachment, when `picture` draws one, is the SVG picture of the walked DAG (or of a relevancy metric's verdicts),
 * which the HTML report and the UI show inline (and, attached as a file, open full size from the picture's link).
 */
export async function attachRecord(
  test: TestTask,
  record: JudgetreeRecord,
  options: ProvidedOptions,
  picture?: () => Promise<string | undefined>,
): Promise<void> {
  storeRecord(test, record)
  // A test that already finished (its assertion was not awaited) can no longer be annotated.
  if (test.result?.state !== 'run' || typeof test.context?.annotate !== 'function') return
  // Only the terminal would show it, below a failure that opens with the same lines.
  if (options.annotate === false) return
  if (record.assertionPassed && !options.annotatePassing) return
  // A problem of the environment (no API key) is in the failure, and its fix is printed once after the run.
  if (record.error?.advice !== undefined && options.reporter === true) return
  const type = ANNOTATION_TYPE
  // The summary line and the reason (or error): the failure message already carries the tree, and every reporter
  // that shows annotations shows that message too; the full text stays in the meta and the JSON report.
  const [summary = '', second] = record.text.split('\n')
  const brief = second === undefined ? summary : `${summary}\n${briefLine(second, record.error?.code)}`
  const svg = options.pictures === true ? await picture?.() : undefined
  const annotate = test.context.annotate.bind(test.context)
  if (svg === undefined || test.result?.state !== 'run') {
    await annotate(brief, type)
    return
  }
  if (options.pictureFiles === true && fitsFileName(brief)) {
    const file = pictureFile(test, record.assertion)
    try {
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, svg)
      await annotate(brief, type, { contentType: SVG, path: file })
      return
    } catch {
      // Not copied (a file name or path too long for this system, a full disk): the picture goes inline below.
    } finally {
      rmSync(file, { force: true })
    }
    if (test.result?.state !== 'run') return
  }
  try {
    await annotate(brief, type, { contentType: SVG, body: Buffer.from(svg).toString('base64') })
  } catch (error) {
    // A runner that refuses attachments (before Vitest 3.2) still gets the brief; the tree is in the meta.
    if (!(error instanceof TypeError)) throw error
    await annotate(brief, type)
  }
}

const SVG = 'image/svg+xml'

/**
 * Where the picture of a test's assertion is written for Vitest to copy. The same place in every run: Vitest names the
 * copy by a digest of this path and never empties its attachments folder, so a new place each run would add a file
 * to it each run.
 */
function pictureFile(test: TestTask, assertion: number): string {
  const key = createHash('sha256')
    .update(`${test.id ?? test.name}\n${assertion}`)
    .digest('hex')
    .slice(0, 24)
  return join(tmpdir(), 'judgetree-pictures', `${key}.svg`)
}

/**
 * Whether Vitest can name the copy of a picture after this annotation message: it names the file
 * `<message>-<40 hex digits>.svg`, the message's runs of ASCII punctuation and spaces as one `-`, and most file
 * systems allow 255 bytes for a name.
 */
function fitsFileName(message: string): boolean {
  const name = message.replace(/[^-0-9A-Za-z\u{80}-\u{10FFFF}]+/gu, '-')
  return Buffer.byteLength(name) + '-'.length + 40 + '.svg'.length <= 255
}

/**
 * Stores the record in the test's meta, synchronously: Vitest sends the meta with each update of the test, and
 * never again after the last, so what is not there when the test is reported may be lost. One record per
 * assertion: a record for the same assertion replaces the stored one. Warns (once per file) when the record is
 * likely on the wrong test: see {@link misattribution}.
 */
export function storeRecord(test: TestTask, record: JudgetreeRecord): void {
  const meta = test.meta as Record<string, unknown>
  const records = Array.isArray(meta[META_KEY]) ? (meta[META_KEY] as JudgetreeRecord[]) : []
  const replaced = records.find((stored) => stored.assertion === record.assertion)
  const problem = misattribution(test, replaced, record)
  if (problem !== undefined && !warned) {
    warned = true
    console.warn(
      `judgetree: warning: ${problem}. Under test.concurrent the global \`expect\` is bound to whichever test ` +
        "started last, so results land on the wrong test or are lost. Use the test context's expect: " +
        "test.concurrent('…', async ({ expect }) => { await expect(testCase).toPassMetric(metric) }).",
    )
  }
  meta[textKey(record)] = record.text
  // In the order the test called the matcher, whatever order the evaluations finished in. Set last (after every
  // readable text) because the HTML report and the UI list the meta in key order: the text first, the JSON below.
  delete meta[META_KEY]
  meta[META_KEY] = [...records.filter((stored) => stored !== replaced), record].sort(
    (a, b) => a.assertion - b.assertion,
  )
}

/** Set once this file's tests were warned about the global `expect` under test.concurrent. */
let warned = false

/**
 * Why a record is likely stored on the wrong test: a concurrent test that never used its context's `expect` got it
 * (Vitest binds the global one to the test that started last), or it replaces the record of the same assertion for
 * another test case, which only a second test's assertion counted on this one does.
 */
function misattribution(
  test: TestTask,
  replaced: JudgetreeRecord | undefined,
  record: JudgetreeRecord,
): string | undefined {
  const before = replaced?.testCase?.digest
  const after = record.testCase?.digest
  if (before !== undefined && after !== undefined && before !== after) {
    return (
      `the record of toPassMetric() call #${record.assertion} of test "${test.name}" was replaced by one for ` +
      `another test case (${before} → ${after})`
    )
  }
  if (test.concurrent === true && test.context?._local === false) {
    return `a concurrent test called toPassMetric() through the global \`expect\`, which gave its result to "${test.name}"`
  }
  return undefined
}

/** Named by the assertion's position in its test, not by finishing order: `judgetree: Tone`, `judgetree: Tone (2)`. */
function textKey(record: JudgetreeRecord): string {
  const key = `judgetree: ${record.name}`
  return record.assertion === 1 ? key : `${key} (${record.assertion})`
}

/**
 * The annotation's second line, whole unless it is an error cut at its line's end (`… does not match the schema:`,
 * its detail on the lines below): then the error's first full sentence, or its code and that line.
 */
function briefLine(line: string, code: string | undefined): string {
  if (code === undefined || !line.startsWith('error: ') || /[.!?)]$/.test(line)) return line
  const sentence = /^error: .*?[.!?](?=\s|$)/.exec(line)?.[0]
  return sentence ?? `error ${code}: ${line.slice('error: '.length)}`
}
