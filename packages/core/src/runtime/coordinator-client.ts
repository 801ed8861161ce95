import { request as httpRequest } from 'node:http'
import { MeasurementAbortedError } from '../errors.js'

/** One slot held at a coordinator; release it exactly when the judge call ends. */
export interface Lease {
  release(): void
}

/** The coordinator could not be reached or answered oddly: callers fall back to their local limit. */
export class CoordinatorUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'CoordinatorUnavailableError'
  }
}

/**
 * Waits at the coordinator for a slot. The request stays open while the slot is held; closing it releases the
 * slot, which is also what happens when this process dies.
 */
export function acquireSlot(url: string, signal?: AbortSignal): Promise<Lease> {
  if (signal?.aborted) return Promise.reject(new MeasurementAbortedError(signal.reason))
  return new Promise<Lease>((resolve, reject) => {
    let settled = false
    const settle = (outcome: () => void): void => {
      if (settled) return
      settled = true
      signal?.removeEventListener('abort', onAbort)
      outcome()
    }
    // A fresh connection per slot: a pooled socket would outlive the lease and hold it.
    const req = httpRequest(`${url}/acquire`, { method: 'POST', agent: false })
    const onAbort = (): void => {
      req.destroy()
      settle(() => reject(new MeasurementAbortedError(signal?.reason)))
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    req.on('error', (error) => {
      settle(() =>
        reject(new CoordinatorUnavailableError(`the coordinator at ${url} is unreachable`, { cause: error })),
      )
    })
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        req.destroy()
        settle(() => reject(new CoordinatorUnavailableError(`the coordinator at ${url} answered ${res.statusCode}`)))
        return
      }
      res.once('data', () => settle(() => resolve({ release: () => req.destroy() })))
      res.once('end', () => {
        settle(() => reject(new CoordinatorUnavailableError(`the coordinator at ${url} closed before granting`)))
      })
      res.on('error', () => {})
    })
    req.end()
  })
}
