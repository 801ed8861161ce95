import { MeasurementAbortedError } from '../errors.js'
import { AdaptiveLimit } from './adaptive-limit.js'

/** A slot in a {@link CallGate}; report how the call ended, exactly once. */
export interface GateSlot {
  /** The call ended without a 429. */
  succeeded(): void
  /** The call got a 429: fewer slots, and no call starts for `pauseMs`. */
  rateLimited(pauseMs: number): void
}

/**
 * The process's queue of judge calls: an adaptive number in flight, an optional even spacing of starts, and a pause
 * after a 429. A waiter that gives up leaves the line at once, and a timer exists only while someone waits on it,
 * so nothing here keeps a process alive after its calls have ended.
 *
 * Every judge call passes through here, tens of thousands a second with an instant judge, so the line is a linked
 * list of waiters that are their own abort listeners, and a slot is one object: no closures, Set iterators or
 * option bags per call (with 64 measurements in flight they cost the engine ~15%, mostly in garbage collection).
 */
export class CallGate {
  readonly limit: AdaptiveLimit
  readonly #spacingMs: number
  /** The line, oldest first; a waiter is in it from acquire() until it starts or gives up. */
  #first: Waiter | undefined
  #last: Waiter | undefined
  #waiting = 0
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
    return this.#waiting
  }

  /** Milliseconds until calls may start again after a 429; 0 when they may now. */
  get pauseLeftMs(): number {
    return Math.max(0, this.#pausedUntil - performance.now())
  }

  /**
   * A slot now, when one is free and nobody waits (and `signal` has not aborted); otherwise undefined, and the
   * caller waits in {@link acquire}. Spares a call that need not wait a promise and a turn of the microtask queue.
   */
  tryAcquire(signal?: AbortSignal): GateSlot | undefined {
    if (this.#waiting > 0 || signal?.aborted) return undefined
    const now = performance.now()
    return this.#canStartAt(now) ? this.#start(now) : undefined
  }

  /** Waits for a slot; rejects with MeasurementAbortedError (and leaves the line) when `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<GateSlot> {
    if (signal?.aborted) return Promise.reject(new MeasurementAbortedError(signal.reason))
    const now = this.tryAcquire(signal)
    if (now !== undefined) return Promise.resolve(now)
    return new Promise<GateSlot>((resolve, reject) => {
      const waiter = new Waiter(this, resolve, reject, signal)
      if (this.#last === undefined) this.#first = waiter
      else {
        this.#last.next = waiter
        waiter.previous = this.#last
      }
      this.#last = waiter
      this.#waiting += 1
      signal?.addEventListener('abort', waiter, ONCE)
      this.#pump()
    })
  }

  /** No call starts before `ms` from now (calls in flight carry on). */
  pauseFor(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, performance.now() + ms)
    this.#pump()
  }

  /** A waiter whose signal aborted leaves the line; the calls behind it may start now. */
  leave(waiter: Waiter): void {
    this.#unlink(waiter)
    this.#pump()
  }

  /** A slot's call ended: without a 429 (`pauseMs` undefined), or with one that pauses new starts for `pauseMs`. */
  ended(epoch: number, pauseMs: number | undefined): void {
    this.#running -= 1
    if (pauseMs === undefined) {
      this.limit.succeeded()
      this.#pump()
    } else {
      this.limit.rateLimitedAt(epoch)
      this.pauseFor(pauseMs)
    }
  }

  #canStartAt(now: number): boolean {
    return this.#running < this.limit.current && now >= this.#pausedUntil && now >= this.#nextStartAt
  }

  #start(now: number): GateSlot {
    this.#running += 1
    this.#nextStartAt = Math.max(this.#nextStartAt, now) + Math.max(this.#spacingMs, this.limit.spacingMs)
    this.limit.started(now)
    return new Slot(this, this.limit.epoch)
  }

  #unlink(waiter: Waiter): void {
    const { previous, next } = waiter
    if (previous === undefined) this.#first = next
    else previous.next = next
    if (next === undefined) this.#last = previous
    else next.previous = previous
    waiter.previous = undefined
    waiter.next = undefined
    this.#waiting -= 1
  }

  #pump(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer)
      this.#timer = undefined
    }
    while (this.#first !== undefined && this.#running < this.limit.current) {
      const now = performance.now()
      const wait = Math.max(this.#pausedUntil, this.#nextStartAt) - now
      if (wait > 0) {
        // Only while someone waits: a pause nobody waits on is just a time, and keeps no process alive.
        this.#timer = setTimeout(() => this.#pump(), wait)
        return
      }
      const waiter = this.#first
      this.#unlink(waiter)
      waiter.signal?.removeEventListener('abort', waiter)
      waiter.resolve(this.#start(now))
    }
  }
}

const ONCE = { once: true } as const

/** A call waiting in a {@link CallGate}'s line; it listens for its signal's abort itself (`handleEvent`). */
class Waiter {
  previous: Waiter | undefined
  next: Waiter | undefined
  readonly #gate: CallGate
  readonly resolve: (slot: GateSlot) => void
  readonly #reject: (error: unknown) => void
  readonly signal: AbortSignal | undefined

  constructor(
    gate: CallGate,
    resolve: (slot: GateSlot) => void,
    reject: (error: unknown) => void,
    signal: AbortSignal | undefined,
  ) {
    this.#gate = gate
    this.resolve = resolve
    this.#reject = reject
    this.signal = signal
  }

  handleEvent(): void {
    this.#gate.leave(this)
    this.#reject(new MeasurementAbortedError(this.signal?.reason))
  }
}

/** A started call's slot: reports its end to the gate once, with the limit's epoch at its start. */
class Slot implements GateSlot {
  readonly #gate: CallGate
  readonly #epoch: number
  #ended = false

  constructor(gate: CallGate, epoch: number) {
    this.#gate = gate
    this.#epoch = epoch
  }

  succeeded(): void {
    if (this.#ended) return
    this.#ended = true
    this.#gate.ended(this.#epoch, undefined)
  }

  rateLimited(pauseMs: number): void {
    if (this.#ended) return
    this.#ended = true
    this.#gate.ended(this.#epoch, pauseMs)
  }
}
