// The retry loop of a transport whose SDK leaves some failures to it: OpenAIJudge retries a body cut short (its SDK
// reads the body outside its own loop), @judgetree/ai-sdk retries what the AI SDK would. A 429 for a judge that
// sets `rateLimitRetries` is the runtime's, which pauses every worker; a malformed answer is the protocol's re-ask.
import { MeasurementAbortedError } from '../errors.js'

/** What happened before a call failed, for its message: filled in by withRetries as it goes. */
export interface CallHistory {
  /** Retries made so far. */
  retries: number
  /** The wait of a retry that was not made because it would have ended after the deadline (timeoutMs). */
  skippedWaitMs?: number | undefined
  /** The failure of the attempt before the current one. */
  earlier?: unknown
}

export interface RetryOptions {
  readonly maxRetries: number
  readonly retryable: (error: unknown) => boolean
  /** The wait before retry number `retry` (0-based). */
  readonly delayMs: (error: unknown, retry: number) => number
  /** The measurement's signal (and any timeout): a wait ends when it aborts. */
  readonly signal?: AbortSignal | undefined
  /** When the call must be over, as a Date.now() value: a retry whose wait ends later is not made. */
  readonly deadline?: number | undefined
  readonly history?: CallHistory | undefined
}

/** `call`, with up to `maxRetries` retries of the failures `retryable` accepts, each after `delayMs`. */
export async function withRetries<R>(call: () => Promise<R>, options: RetryOptions): Promise<R> {
  const history = options.history ?? { retries: 0 }
  for (;;) {
    try {
      return await call()
    } catch (error) {
      const { signal, deadline } = options
      if (signal?.aborted || !options.retryable(error) || history.retries >= options.maxRetries) throw error
      const wait = options.delayMs(error, history.retries)
      if (deadline !== undefined && Date.now() + wait >= deadline) {
        history.skippedWaitMs = wait
        throw error
      }
      history.earlier = error
      await sleep(wait, signal)
      history.retries += 1
    }
  }
}

/** Waits `ms`, or rejects with MeasurementAbortedError as soon as `signal` aborts; never keeps the process alive. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(new MeasurementAbortedError(signal.reason))
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(new MeasurementAbortedError(signal?.reason))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    timer.unref?.()
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
