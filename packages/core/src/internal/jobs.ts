import { errorAt, MeasurementAbortedError } from '../errors.js'

/** Waits for a promise this measurement does not own, giving up (but not cancelling it) when `signal` aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  if (signal.aborted) return Promise.reject(new MeasurementAbortedError(signal.reason))
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new MeasurementAbortedError(signal.reason))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/** How one of several independent jobs ended. */
export type Settled<R> = { readonly ok: true; readonly value: R } | { readonly ok: false; readonly error: unknown }

/**
 * Runs one job per item, concurrently or one at a time. The first failure cancels the jobs still running, so a
 * broken judge costs one call, not one per item. Results keep the items' order.
 */
export async function runJobs<I, R>(
  items: readonly I[],
  concurrently: boolean,
  signal: AbortSignal | undefined,
  job: (item: I, signal: AbortSignal) => Promise<R>,
): Promise<Settled<R>[]> {
  const stop = new AbortController()
  const onAbort = () => stop.abort(signal?.reason)
  if (signal?.aborted) onAbort()
  else signal?.addEventListener('abort', onAbort, { once: true })
  const run = async (item: I): Promise<Settled<R>> => {
    try {
      if (stop.signal.aborted) throw new MeasurementAbortedError(stop.signal.reason)
      return { ok: true, value: await job(item, stop.signal) }
    } catch (error) {
      if (!stop.signal.aborted) stop.abort(error)
      return { ok: false, error }
    }
  }
  try {
    if (concurrently) return await Promise.all(items.map(run))
    const settled: Settled<R>[] = []
    for (const item of items) settled.push(await run(item))
    return settled
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
}

/**
 * The error that explains a failed batch: the first real failure in item order, not the cancellations it caused,
 * named with the item it happened at (`where(index)`). A cancellation alone is reported as it is.
 */
export function batchError(settled: readonly Settled<unknown>[], where: (index: number) => string): unknown {
  const failures = settled.flatMap((entry, index) => (entry.ok ? [] : [{ error: entry.error, index }]))
  const real = failures.find((failure) => !(failure.error instanceof MeasurementAbortedError))
  if (real) return errorAt(real.error, where(real.index))
  return failures[0]?.error
}
