import { setMaxListeners } from 'node:events'
import { MeasurementAbortedError } from '../errors.js'
import type { MetricResult } from '../metric/types.js'
import { type EvaluationProgress, type OutputStream, ProgressBar, ProgressTally } from './progress-bar.js'

/** How {@link runMeasurements} runs its measurements, and who hears of each. */
export interface MeasuringOptions {
  /** Measurements in flight at once. */
  readonly concurrency: number
  /** The caller's signal: stops starting measurements and cancels those in flight. */
  readonly signal: AbortSignal | undefined
  /** Draw a progress bar on `stderr`. @default stderr is a terminal and CI is not set */
  readonly progress: boolean | undefined
  readonly stderr: OutputStream
  /** The run's `performance.now()` at its start, for the elapsed time. */
  readonly started: number
  /** Hears of each result with the totals so far; a callback of the caller's, so it may throw. */
  readonly onResult?: ((at: number, result: MetricResult, progress: EvaluationProgress) => void) | undefined
}

/**
 * The measuring loop of evaluate() and calibrate(): `count` measurements by a pool of workers, a progress bar, and
 * cancellation. Resolves with every result in order; rejects with MeasurementAbortedError when the caller's signal
 * aborts, and with the error of a callback (`onResult`, the bar's stream) that throws, after cancelling the
 * measurements in flight so that no judge call is paid for behind the rejection.
 */
export async function runMeasurements(
  count: number,
  measure: (at: number, signal: AbortSignal) => Promise<MetricResult>,
  options: MeasuringOptions,
): Promise<MetricResult[]> {
  // Every measurement listens for the abort: on a signal of our own, so the caller's gets one listener and Node
  // does not warn about a leak when hundreds of measurements are in flight.
  const stop = new AbortController()
  setMaxListeners(0, stop.signal)
  const caller = options.signal
  const onAbort = (): void => stop.abort(caller?.reason)
  if (caller?.aborted) onAbort()
  else caller?.addEventListener('abort', onAbort, { once: true })
  const signal = stop.signal
  const showBar = options.progress ?? (options.stderr.isTTY === true && !process.env.CI)
  const bar = showBar ? new ProgressBar(options.stderr) : undefined
  const tally = new ProgressTally(count, options.started)
  const results: MetricResult[] = new Array(count)

  let next = 0
  const worker = async (): Promise<void> => {
    while (!signal.aborted && next < count) {
      const at = next++
      const result = await measure(at, signal)
      // After a cancellation (the caller's, or a callback that threw) the run rejects: no more progress reports.
      if (signal.aborted) return
      results[at] = result
      const progress = tally.add(result)
      try {
        bar?.update(progress)
        options.onResult?.(at, result, progress)
      } catch (error) {
        stop.abort(error)
        throw error
      }
    }
  }
  try {
    await Promise.all(Array.from({ length: Math.min(options.concurrency, count) }, worker))
  } finally {
    bar?.finish()
    caller?.removeEventListener('abort', onAbort)
  }
  if (signal.aborted) throw new MeasurementAbortedError(signal.reason)
  return results
}
