import { MeasurementAbortedError } from '../errors.js'
import type { JudgeResponse } from '../judge/types.js'

/** What a shared call produced, and whether that came from the cache. */
export interface SharedOutcome {
  readonly response: JudgeResponse<unknown>
  readonly fromCache: boolean
}

/**
 * One judge call that every identical request in flight waits on, so a process never pays twice for one answer.
 * The first waiter still waiting when a model answers is billed; the others get the answer marked `cached`.
 * The call is cancelled only when every waiter has given up.
 */
export class SharedCall {
  readonly #controller = new AbortController()
  readonly #outcome: Promise<SharedOutcome>
  #waiting = 0
  #billed = false

  constructor(run: (signal: AbortSignal) => Promise<SharedOutcome>) {
    this.#outcome = run(this.#controller.signal)
    // Waiters observe the outcome; this keeps a call everyone abandoned from rejecting unobserved.
    this.#outcome.catch(() => {})
  }

  /** Resolves once the call has ended, however it ended. */
  get settled(): Promise<void> {
    return this.#outcome.then(
      () => undefined,
      () => undefined,
    )
  }

  /** Waits for the answer on behalf of one request, giving up alone when its own signal aborts. */
  join<T>(signal: AbortSignal | undefined): Promise<JudgeResponse<T>> {
    if (signal?.aborted) return Promise.reject(new MeasurementAbortedError(signal.reason))
    this.#waiting += 1
    return new Promise<JudgeResponse<T>>((resolve, reject) => {
      let done = false
      const onAbort = (): void => {
        if (done) return
        done = true
        this.#waiting -= 1
        if (this.#waiting === 0) this.#controller.abort(signal?.reason)
        reject(new MeasurementAbortedError(signal?.reason))
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.#outcome.then(
        ({ response, fromCache }) => {
          if (done) return
          done = true
          signal?.removeEventListener('abort', onAbort)
          if (fromCache || this.#billed) {
            resolve({ ...response, cached: true } as JudgeResponse<T>)
          } else {
            this.#billed = true
            resolve(response as JudgeResponse<T>)
          }
        },
        (error: unknown) => {
          if (done) return
          done = true
          signal?.removeEventListener('abort', onAbort)
          reject(error)
        },
      )
    })
  }
}
