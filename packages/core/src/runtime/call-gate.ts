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
 * list of waiters, and a slot is one object: no closures, Set iterators or option bags per call (with 64
 * measurements in flight they cost the engine ~15%, mostly in garbage collection). The gate listens to each signal
 * once, not once per call: Node's addEventListener and removeEventListener cost more than the rest of a queued call,
 * and a walk's calls share its signal.
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
  /** The signals of waiters so far that the gate listens to (once each, for as long as the signal lives). */
  readonly #listening = new WeakSet<AbortSignal>()
  readonly #onAbort = { handleEvent: (event: Event) => this.#abortWaitersOf(event.target as AbortSignal) }

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
      const waiter = new Waiter(resolve, reject, signal)
      if (this.#last === undefined) this.#first = waiter
      else {
        this.#last.next = waiter
        waiter.previous = this.#last
      }
      this.#last = waiter
      this.#waiting += 1
      if (signal !== undefined && !this.#listening.has(signal)) {
        this.#listening.add(signal)
        signal.addEventListener('abort', this.#onAbort, ONCE)
      }
      this.#pump()
    })
  }

  /** No call starts before `ms` from now (calls in flight carry on). */
  pauseFor(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, performance.now() + ms)
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

  /** The waiters whose signal aborted leave the line, rejected in line order; the calls behind them may start now. */
  #abortWaitersOf(signal: AbortSignal): void {
    const left: Waiter[] = []
    for (let waiter = this.#first; waiter !== undefined; ) {
      const next = waiter.next
      if (waiter.signal === signal) {
        this.#unlink(waiter)
        left.push(waiter)
      }
      waiter = next
    }
    for (const waiter of left) waiter.reject(new MeasurementAbortedError(signal.reason))
    this.#pump()
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
      waiter.resolve(this.#start(now))
    }
  }
}

const ONCE = { once: true } as const

/** A call waiting in a {@link CallGate}'s line. */
class Waiter {
  previous: Waiter | undefined
  next: Waiter | undefined
  readonly resolve: (slot: GateSlot) => void
  readonly reject: (error: unknown) => void
  readonly signal: AbortSignal | undefined

  constructor(resolve: (slot: GateSlot) => void, reject: (error: unknown) => void, signal: AbortSignal | undefined) {
    this.resolve = resolve
    this.reject = reject
    this.signal = signal
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
