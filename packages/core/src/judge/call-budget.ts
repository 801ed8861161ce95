// The retries and the timeout of a transport whose SDK leaves both to it (its own retries off, as @judgetree/ai-sdk
// sets them): every attempt within one timeoutMs, exponential backoff or the server's Retry-After, no retry whose
// wait would outlast the call, and a failure worded from what happened rather than from the options.
import type { TransportFailure } from './failures.js'
import type { TransportCall } from './structured-judge.js'
import { type CallHistory, withRetries } from './transport-retries.js'

/** A Retry-After honoured: under a minute, or under the backoff it replaces (as the AI SDK does). */
const MAX_RETRY_AFTER_MS = 60_000

/** A call the budget runs: a judge protocol's TransportCall, or a decision protocol's DecisionCall. */
export type BudgetedCall = Pick<TransportCall, 'signal'>

/** How a transport's calls are retried and bounded. */
export interface CallBudgetOptions {
  /** Milliseconds one call, its retries included, may take. */
  readonly timeoutMs: number
  readonly maxRetries: number
  /** The failures worth another attempt (429, 5xx, connection errors, bodies cut short). */
  readonly retryable: (error: unknown) => boolean
  /** The wait before the first retry, doubled for each retry after it. */
  readonly firstDelayMs: number
  /** The wait a failure's server asked for (its Retry-After), if any. */
  readonly retryAfterMs?: ((error: unknown) => number | undefined) | undefined
}

/** The calls of one transport: runs each within its budget, and remembers what happened for `classify`. */
export class CallBudget {
  readonly #options: CallBudgetOptions
  readonly #calls = new WeakMap<BudgetedCall, { history: CallHistory; timeout: AbortSignal }>()

  constructor(options: CallBudgetOptions) {
    this.#options = options
  }

  /**
   * The warning to give once, when the judge is made, if retries are wanted but none could start in time (the first
   * wait is as long as the whole call); `backoff` names whose backoff it is.
   */
  noRetryWarning(where: string, backoff: string): string | undefined {
    const { maxRetries, timeoutMs, firstDelayMs } = this.#options
    if (maxRetries === 0 || timeoutMs > firstDelayMs) return undefined
    return (
      `judgetree: ${where} has timeoutMs ${timeoutMs}, no longer than the first retry's wait ` +
      `(${firstDelayMs} ms, ${backoff}): a failed call is never retried, since the retry would start after the call ` +
      `was abandoned. Raise timeoutMs above ${firstDelayMs} ms, or pass maxRetries: 0.`
    )
  }

  /** Runs `attempt` with the retries, each given a signal that ends with the call's signal or at timeoutMs. */
  run<R>(call: BudgetedCall, attempt: (signal: AbortSignal) => Promise<R>): Promise<R> {
    const { timeoutMs, maxRetries, retryable, firstDelayMs, retryAfterMs } = this.#options
    const deadline = Date.now() + timeoutMs
    const timeout = AbortSignal.timeout(timeoutMs)
    const signal = call.signal === undefined ? timeout : AbortSignal.any([call.signal, timeout])
    const history: CallHistory = { retries: 0 }
    this.#calls.set(call, { history, timeout })
    const delayMs = (error: unknown, retry: number) => {
      const backoff = firstDelayMs * 2 ** retry
      const asked = retryAfterMs?.(error)
      return asked !== undefined && (asked < MAX_RETRY_AFTER_MS || asked < backoff) ? asked : backoff
    }
    return withRetries(() => attempt(signal), { maxRetries, retryable, delayMs, signal, deadline, history })
  }

  /** The timeout failure when timeoutMs (not the measurement's signal) ended `call`. */
  timedOut(call: BudgetedCall): TransportFailure | undefined {
    const made = this.#calls.get(call)
    if (made === undefined || !made.timeout.aborted || call.signal?.aborted) return undefined
    const { retries, earlier } = made.history
    if (retries === 0 || earlier === undefined) return { kind: 'timeout', retries: retries || undefined }
    return { kind: 'timeout', retries, earlier: earlier instanceof Error ? earlier.message : String(earlier) }
  }

  /** The retries `call` made, and why it made no more when a retry would have started after timeoutMs. */
  retriesOf(call: BudgetedCall): { readonly retries: number; readonly skipped: string | undefined } {
    const history = this.#calls.get(call)?.history ?? { retries: 0 }
    const wait = history.skippedWaitMs
    return {
      retries: history.retries,
      skipped:
        wait === undefined
          ? undefined
          : `It was not retried: the next retry was due in ${Math.round(wait)} ms, after timeoutMs ` +
            `(${this.#options.timeoutMs} ms) would have ended the call. Raise timeoutMs above the wait, or pass ` +
            'maxRetries: 0.',
    }
  }
}
