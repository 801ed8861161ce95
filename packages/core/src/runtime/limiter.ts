import PQueue from 'p-queue'
import { JudgeCallError, MeasurementAbortedError } from '../errors.js'
import { acquireSlot, CoordinatorUnavailableError, type Lease } from './coordinator-client.js'

/** Options of {@link CallLimiter}. */
export interface CallLimiterOptions {
  /** Calls in flight at once in this process. */
  readonly concurrency: number
  /** Calls started per minute in this process, spaced evenly. */
  readonly requestsPerMinute?: number | undefined
  /** Where to ask for a slot shared with other processes; read at the first call. */
  readonly coordinatorUrl?: (() => string | undefined) | undefined
  readonly warn: (message: string) => void
}

/** The longest pause a Retry-After may impose; longer asks are capped, as the OpenAI SDK caps them. */
const MAX_PAUSE_MS = 60_000

/**
 * Bounds judge calls, not test cases: a p-queue with the process's concurrency and rate, plus a slot from the
 * run's coordinator when one is set. A 429 that survived the SDK's retries pauses the queue for its Retry-After.
 */
export class CallLimiter {
  readonly #queue: PQueue
  readonly #options: CallLimiterOptions
  /** The coordinator's URL; null when there is none (or it is unreachable); undefined until the first call. */
  #coordinator: string | null | undefined
  #pausedUntil = 0
  #resume: NodeJS.Timeout | undefined

  constructor(options: CallLimiterOptions) {
    this.#options = options
    const rpm = options.requestsPerMinute
    // One start per 60/rpm seconds: even spacing never bursts a whole minute's budget into the first second.
    this.#queue = new PQueue({
      concurrency: options.concurrency,
      ...(rpm === undefined ? {} : { intervalCap: 1, interval: 60_000 / rpm }),
    })
  }

  /** Calls waiting for a slot in this process. */
  get queued(): number {
    return this.#queue.size
  }

  /** Calls running in this process. */
  get inFlight(): number {
    return this.#queue.pending
  }

  /** Runs `call` once a slot is free; a call still waiting when `signal` aborts never starts. */
  run<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const queue = this.#queue
    if (signal?.aborted) return Promise.reject(new MeasurementAbortedError(signal.reason))
    // p-queue starts a task inside add() when a slot is free: such a call never waits, so needs no abort listener.
    const startsNow =
      queue.size === 0 &&
      queue.pending < this.#options.concurrency &&
      !queue.isPaused &&
      this.#options.requestsPerMinute === undefined
    if (signal === undefined || startsNow) return queue.add(() => this.#withSlot(call, signal))
    // Our own listener rather than p-queue's `signal` option: p-queue would add two per call, and Node's
    // EventTarget listeners cost more than all the rest of the queue's bookkeeping. A call whose caller gave up
    // while it waited still takes its turn, but returns at once without calling the judge.
    return new Promise<T>((resolve, reject) => {
      let settled = false
      const onAbort = (): void => {
        settled = true
        reject(new MeasurementAbortedError(signal.reason))
      }
      signal.addEventListener('abort', onAbort, { once: true })
      queue
        .add(() => {
          signal.removeEventListener('abort', onAbort)
          return settled ? Promise.resolve(undefined) : this.#withSlot(call, signal)
        })
        .then(
          (value) => {
            if (!settled) resolve(value as T)
          },
          (error: unknown) => {
            if (!settled) reject(error)
          },
        )
    })
  }

  /** Stops starting calls for `ms` (calls already running carry on). */
  pauseFor(ms: number): void {
    const until = performance.now() + Math.min(ms, MAX_PAUSE_MS)
    if (until <= this.#pausedUntil) return
    this.#pausedUntil = until
    this.#queue.pause()
    clearTimeout(this.#resume)
    this.#resume = setTimeout(() => this.#queue.start(), until - performance.now())
  }

  async #withSlot<T>(call: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    if (this.#coordinator === undefined) this.#coordinator = this.#options.coordinatorUrl?.() ?? null
    const lease = this.#coordinator === null ? undefined : await this.#lease(this.#coordinator, signal)
    try {
      return await call()
    } catch (error) {
      if (error instanceof JudgeCallError && error.status === 429 && error.retryAfterMs !== undefined) {
        this.#rateLimited(error.retryAfterMs)
      }
      throw error
    } finally {
      lease?.release()
    }
  }

  #rateLimited(retryAfterMs: number): void {
    if (performance.now() + retryAfterMs > this.#pausedUntil) {
      this.#options.warn(
        `judgetree: the judge is still rate limited (HTTP 429) after its retries; pausing judge calls in this ` +
          `process for ${formatSeconds(Math.min(retryAfterMs, MAX_PAUSE_MS))} as the server asked.`,
      )
    }
    this.pauseFor(retryAfterMs)
  }

  async #lease(url: string, signal: AbortSignal | undefined): Promise<Lease | undefined> {
    try {
      return await acquireSlot(url, signal)
    } catch (error) {
      if (!(error instanceof CoordinatorUnavailableError)) throw error
      if (this.#coordinator !== null) {
        this.#coordinator = null
        this.#options.warn(
          `judgetree: ${error.message}, so this process limits its judge calls on its own ` +
            `(${this.#options.concurrency} at once) instead of sharing the run's limit.`,
        )
      }
      return undefined
    }
  }
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`
}
