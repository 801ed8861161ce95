import { JudgeCallError } from '../errors.js'
import { CallGate, type GateSlot } from './call-gate.js'
import { MAX_PAUSE_MS } from './coordinator.js'
import { acquireSlot, CoordinatorUnavailableError, type Lease } from './coordinator-client.js'

/** Options of {@link CallLimiter}. */
export interface CallLimiterOptions {
  /** Calls in flight at once in this process; the most the adaptive limit allows. */
  readonly concurrency: number
  /** Calls started per minute in this process, spaced evenly. */
  readonly requestsPerMinute?: number | undefined
  /** Where to ask for a slot shared with other processes; read at the first call. */
  readonly coordinatorUrl?: (() => string | undefined) | undefined
  readonly warn: (message: string) => void
}

/** What the limiter saw of rate limits since it was created. */
export interface RateLimitStats {
  /** 429s this process got (each one paused the run: this process, or every worker through the coordinator). */
  readonly rateLimited: number
  /** This process's limit now; with a coordinator, the run's limit is the coordinator's. */
  readonly concurrency: number
}

/**
 * Bounds judge calls, not test cases: this process's gate (adaptive concurrency, rate, pause), plus a slot from the
 * run's coordinator when one is set. A call that gets a 429 is retried here rather than by the SDK, after the pause
 * the server asked for, which the coordinator imposes on every worker of the run.
 */
export class CallLimiter {
  readonly #gate: CallGate
  readonly #options: CallLimiterOptions
  /** The coordinator's URL; null when there is none (or it is unreachable); undefined until the first call. */
  #coordinator: string | null | undefined

  constructor(options: CallLimiterOptions) {
    this.#options = options
    this.#gate = new CallGate(options)
  }

  /** Calls waiting for a slot in this process. */
  get queued(): number {
    return this.#gate.waiting
  }

  /** Calls running in this process. */
  get inFlight(): number {
    return this.#gate.running
  }

  get rateLimits(): RateLimitStats {
    return { rateLimited: this.#gate.limit.rateLimited, concurrency: this.#gate.limit.current }
  }

  /** 429s seen by every limiter of this process, and the limit that applied after the latest. */
  static get processRateLimits(): RateLimitStats {
    return { rateLimited: processTally.rateLimited, concurrency: processTally.concurrency() }
  }

  /**
   * Runs `call` once a slot is free; a call still waiting when `signal` aborts never starts. A call that fails with
   * a 429 is run again, at most `rateLimitRetries` times, each after the pause the server asked for (else an
   * exponential backoff, as the OpenAI SDK's).
   */
  async run<T>(call: () => Promise<T>, signal?: AbortSignal, rateLimitRetries = 0): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const local = this.#gate.tryAcquire(signal) ?? (await this.#gate.acquire(signal))
      // Known to be null after the first call when there is no coordinator: no lease, and no await for one.
      const lease = this.#coordinator === null ? undefined : await this.#leaseFor(local, signal)
      let value: T
      try {
        value = await call()
      } catch (error) {
        if (!isRateLimit(error)) {
          lease?.release()
          local.succeeded()
          throw error
        }
        const pauseMs = Math.min(error.retryAfterMs ?? backoffMs(attempt), MAX_PAUSE_MS)
        const concurrency = await rateLimited(local, lease, pauseMs)
        processTally.rateLimited += 1
        processTally.concurrency = concurrency ?? (() => this.#gate.limit.current)
        if (attempt >= rateLimitRetries || signal?.aborted) throw error
        continue
      }
      lease?.release()
      local.succeeded()
      return value
    }
  }

  /** A slot from the run's coordinator, if there is one; frees the local slot when asking for it fails. */
  async #leaseFor(local: GateSlot, signal: AbortSignal | undefined): Promise<Lease | undefined> {
    if (this.#coordinator === undefined) this.#coordinator = this.#options.coordinatorUrl?.() ?? null
    try {
      return this.#coordinator === null ? undefined : await this.#lease(this.#coordinator, signal)
    } catch (error) {
      local.succeeded()
      throw error
    }
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

/**
 * A call got a 429. With a coordinator, the run's limit and pause live there, and this process's gate only bounds
 * its own calls; on its own, the gate adapts. Answers how to read the limit that now applies (undefined: the gate's).
 */
async function rateLimited(
  local: GateSlot,
  lease: Lease | undefined,
  pauseMs: number,
): Promise<(() => number) | undefined> {
  if (lease === undefined) {
    local.rateLimited(pauseMs)
    return undefined
  }
  // Noted before the slot is freed, so no worker's next call can slip in ahead of the pause.
  const { concurrency } = await lease.rateLimited(pauseMs)
  local.succeeded()
  return concurrency === undefined ? undefined : () => concurrency
}

/** Every limiter of the process adds its 429s here, for evaluate()'s summary line. */
const processTally: { rateLimited: number; concurrency: () => number } = { rateLimited: 0, concurrency: () => 0 }

function isRateLimit(error: unknown): error is JudgeCallError {
  return error instanceof JudgeCallError && error.status === 429
}

/** The OpenAI SDK's backoff when the server names no wait: 0.5 s doubling to 8 s, less up to 25% jitter. */
function backoffMs(attempt: number): number {
  return Math.min(500 * 2 ** attempt, 8_000) * (1 - Math.random() * 0.25)
}
