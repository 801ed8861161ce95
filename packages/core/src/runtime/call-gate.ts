import { MeasurementAbortedError } from '../errors.js'
import { AdaptiveLimit } from './adaptive-limit.js'

/** A slot in a {@link CallGate}; report how the call ended, exactly once. */
export interface GateSlot {
  /** The call ended without a 429. */
  succeeded(): void
  /** The call got a 429: fewer slots, and no call starts for `pauseMs`. */
  rateLimited(pauseMs: number): void
}

interface Waiter {
  readonly start: (slot: GateSlot) => void
}

/**
 * The process's queue of judge calls: an adaptive number in flight, an optional even spacing of starts, and a pause
 * after a 429. A waiter that gives up leaves the line at once, and a timer exists only while someone waits on it,
 * so nothing here keeps a process alive after its calls have ended.
 */
export class CallGate {
  readonly limit: AdaptiveLimit
  readonly #spacingMs: number
  readonly #waiters = new Set<Waiter>()
  #running = 0
  #nextStartAt = 0
  #pausedUntil = 0
  #timer: NodeJS.Timeout | undefined

  constructor(options: { concurrency: number; requestsPerMinute?: number | undefined }) {
    this.limit = new AdaptiveLimit(options.concurrency)
    this.#spacingMs = options.requestsPerMinute === undefined ? 0 : 60_000 / options.requestsPerMinute
  }

  get running(): number {
    return this.#running
  }

  get waiting(): number {
    return this.#waiters.size
  }

  /** Milliseconds until calls may start again after a 429; 0 when they may now. */
  get pauseLeftMs(): number {
    return Math.max(0, this.#pausedUntil - performance.now())
  }

  /** Waits for a slot; rejects with MeasurementAbortedError (and leaves the line) when `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<GateSlot> {
    if (signal?.aborted) return Promise.reject(new MeasurementAbortedError(signal.reason))
    if (this.#waiters.size === 0 && this.#canStartNow()) return Promise.resolve(this.#start())
    return new Promise<GateSlot>((resolve, reject) => {
      const onAbort = (): void => {
        this.#waiters.delete(waiter)
        this.#pump()
        reject(new MeasurementAbortedError(signal?.reason))
      }
      const waiter: Waiter = {
        start: (slot) => {
          signal?.removeEventListener('abort', onAbort)
          resolve(slot)
        },
      }
      this.#waiters.add(waiter)
      signal?.addEventListener('abort', onAbort, { once: true })
      this.#pump()
    })
  }

  /** No call starts before `ms` from now (calls in flight carry on). */
  pauseFor(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, performance.now() + ms)
    this.#pump()
  }

  #canStartNow(): boolean {
    const now = performance.now()
    return this.#running < this.limit.current && now >= this.#pausedUntil && now >= this.#nextStartAt
  }

  #start(): GateSlot {
    this.#running += 1
    const now = performance.now()
    this.#nextStartAt = Math.max(this.#nextStartAt, now) + Math.max(this.#spacingMs, this.limit.spacingMs)
    this.limit.started(now)
    const epoch = this.limit.epoch
    let ended = false
    const end = (): boolean => {
      if (ended) return false
      ended = true
      this.#running -= 1
      return true
    }
    return {
      succeeded: () => {
        if (!end()) return
        this.limit.succeeded()
        this.#pump()
      },
      rateLimited: (pauseMs) => {
        if (!end()) return
        this.limit.rateLimitedAt(epoch)
        this.pauseFor(pauseMs)
      },
    }
  }

  #pump(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    while (this.#waiters.size > 0 && this.#running < this.limit.current) {
      const now = performance.now()
      const wait = Math.max(this.#pausedUntil, this.#nextStartAt) - now
      if (wait > 0) {
        // Only while someone waits: a pause nobody waits on is just a time, and keeps no process alive.
        this.#timer = setTimeout(() => this.#pump(), wait)
        return
      }
      const [waiter] = this.#waiters
      this.#waiters.delete(waiter as Waiter)
      ;(waiter as Waiter).start(this.#start())
    }
  }
}
