import { terminalSafe } from '../internal/safe-text.js'
import { paletteFor } from '../report/colour.js'
import { SURFACES, type Surface } from '../report/index.js'
import type { Run } from '../report/run.js'
import type { OutputStream } from './progress-bar.js'

/** The code of the process warning used when even `stderr` cannot say that the summary was not printed. */
export const SUMMARY_NOT_PRINTED = 'JUDGETREE_SUMMARY_NOT_PRINTED'

/**
 * Prints the closing summary of evaluate() or calibrate() on `stream`. Printing is the last step of a run whose
 * results (and report files) already exist, so a stream that fails must not cost the caller those: a `write` that
 * throws, or a Node stream that fails afterwards (EPIPE once the reader of a pipe went away), is reported, never
 * swallowed, as one line on `stderr` that names the failure and says where the results are. When `stderr` fails as
 * well, the line becomes a process warning (code `JUDGETREE_SUMMARY_NOT_PRINTED`), which Node prints on its own.
 *
 * @param what who printed, for the warning: `evaluate()`, `calibrate()`.
 * @param kept what the caller still has, for the warning: `the results are returned as usual`.
 */
export function printSummary(
  stream: OutputStream,
  text: string,
  stderr: OutputStream,
  what: string,
  kept: string,
): void {
  printSafe(stream, terminalSafe(text), stderr, what, kept)
}

/** {@link printSummary} for text that is safe to print already (see `paintSafe`): a coloured line keeps its colour. */
function printSafe(stream: OutputStream, text: string, stderr: OutputStream, what: string, kept: string): void {
  writeReportingFailure(stream, text, (error) => {
    const warning = terminalSafe(`judgetree: ${what} could not print its summary (${describeFailure(error)}); ${kept}.`)
    writeReportingFailure(stderr, `${warning}\n`, () => {
      process.emitWarning(warning, { code: SUMMARY_NOT_PRINTED })
    })
  })
}

/**
 * Prints what the run's `print` surfaces render (see SURFACES), coloured when `stream` takes colour (see
 * `colourEnabled`), and reports a failed write as {@link printSummary} does.
 */
export function printRun(run: Run, stream: OutputStream, stderr: OutputStream, what: string, kept: string): void {
  const surfaces: readonly Surface[] = Object.values(SURFACES)
  const palette = paletteFor(stream)
  const printed = surfaces.flatMap((surface) => (surface.to === 'print' ? (surface.render(run, palette) ?? []) : []))
  if (printed.length > 0) printSafe(stream, `${printed.join('\n')}\n`, stderr, what, kept)
}

/** The code of the process warning used when `stderr` cannot say that a report file was not written. */
export const REPORT_NOT_WRITTEN = 'JUDGETREE_REPORT_NOT_WRITTEN'

/** Says one line on `stderr`; if `stderr` fails, the line becomes a process warning with `code`, which Node prints. */
export function tell(stderr: OutputStream, line: string, code: string): void {
  writeReportingFailure(stderr, `${line}\n`, () => {
    process.emitWarning(line, { code })
  })
}

/**
 * Writes `text`, calling `failed` once if the write throws or, for a Node stream, fails later. The error listener
 * stays only until the write is flushed, so a long-lived stream such as process.stdout does not collect listeners.
 */
function writeReportingFailure(stream: OutputStream, text: string, failed: (error: unknown) => void): void {
  let reported = false
  const fail = (error: unknown): void => {
    if (reported) return
    reported = true
    failed(error)
  }
  const emitter = stream as Partial<NodeJS.EventEmitter> & {
    write(text: string, done?: (error?: Error | null) => void): unknown
  }
  const listens = typeof emitter.once === 'function' && typeof emitter.removeListener === 'function'
  if (!listens) {
    try {
      stream.write(text)
    } catch (error) {
      fail(error)
    }
    return
  }
  // A Node stream reports a failed write twice, to the callback and as an 'error' event, and an 'error' event no one
  // listens to crashes the process: the listener stays after a failure, and goes once the text is flushed.
  emitter.once?.('error', fail)
  try {
    emitter.write(text, (error) => {
      if (error) fail(error)
      else emitter.removeListener?.('error', fail)
    })
  } catch (error) {
    fail(error)
  }
}

function describeFailure(error: unknown): string {
  if (error instanceof Error) return error.message === '' ? error.name : error.message
  return String(error)
}
