// aiSdkJudge's retries: the AI SDK's policy (what it retries, its backoff, the server's Retry-After), run here rather
// than inside generateText, so that a truncated 200 body is retried too and every failure message can say what
// actually happened (how many retries were made, or that the next one would have come after timeoutMs).
import { MeasurementAbortedError } from '@judgetree/core'
import { APICallError, JSONParseError } from 'ai'

/** The AI SDK's first wait before a retry (then doubled each time), kept so that behaviour matches its docs. */
export const FIRST_RETRY_DELAY_MS = 2_000
/** A Retry-After the SDK would honour: under a minute, or under its own backoff. */
const MAX_RETRY_AFTER_MS = 60_000

/** What happened before a call failed, for its message: filled in by withRetries as it goes. */
export interface CallHistory {
  /** Retries made so far. */
  retries: number
  /** The wait of a retry that was not made because it would have ended after timeoutMs. */
  skippedWaitMs?: number | undefined
  /** The failure of the attempt before the current one. */
  earlier?: unknown
}

/**
 * `call`, with up to `maxRetries` retries of what the AI SDK retries and of truncated bodies, after the SDK's
 * backoff. A retry whose wait would end after `deadline` (timeoutMs) is not made: `history` says so, and how many
 * retries were, for the error's message.
 */
export async function withRetries<R>(
  call: () => Promise<R>,
  { maxRetries, deadline, signal, history }: RetryOptions,
): Promise<R> {
  for (;;) {
    try {
      return await call()
    } catch (error) {
      if (signal.aborted || !isRetryable(error) || history.retries >= maxRetries) throw error
      const wait = retryDelayMs(error, history.retries)
      if (Date.now() + wait >= deadline) {
        history.skippedWaitMs = wait
        throw error
      }
      history.earlier = error
      await sleep(wait, signal)
      history.retries += 1
    }
  }
}

interface RetryOptions {
  readonly maxRetries: number
  /** When timeoutMs ends the call, as a Date.now() value. */
  readonly deadline: number
  /** The measurement's signal and the timeout together: a wait ends when either aborts. */
  readonly signal: AbortSignal
  readonly history: CallHistory
}

/** An error the AI SDK retries (429, 5xx, connection failures), or a 2xx body cut short before its JSON ended. */
export function isRetryable(error: unknown): boolean {
  if (APICallError.isInstance(error)) return error.isRetryable || isTruncatedBody(error)
  // Other AI SDK errors that carry the flag, such as the AI Gateway's.
  return error instanceof Error && (error as { isRetryable?: unknown }).isRetryable === true
}

/** A 2xx answer whose body is not complete JSON: the connection was cut, or a proxy truncated it. */
export function isTruncatedBody(error: unknown): error is APICallError {
  return (
    APICallError.isInstance(error) &&
    error.statusCode !== undefined &&
    error.statusCode >= 200 &&
    error.statusCode < 300 &&
    JSONParseError.isInstance(error.cause)
  )
}

/** The wait before retry number `retry` (0-based): the SDK's exponential backoff, or the server's Retry-After. */
export function retryDelayMs(error: unknown, retry: number): number {
  const backoff = FIRST_RETRY_DELAY_MS * 2 ** retry
  const asked = APICallError.isInstance(error) ? retryAfterMs(error.responseHeaders) : undefined
  if (asked !== undefined && (asked < MAX_RETRY_AFTER_MS || asked < backoff)) return asked
  return backoff
}

/** The wait a 429 or 503 asked for: retry-after-ms, then retry-after (seconds or a date). */
export function retryAfterMs(headers: Record<string, string> | undefined): number | undefined {
  const ms = Number.parseFloat(headers?.['retry-after-ms'] ?? '')
  if (Number.isFinite(ms) && ms >= 0) return ms
  const header = headers?.['retry-after']
  if (!header) return undefined
  const seconds = Number.parseFloat(header)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

/** Waits `ms`, or rejects as soon as `signal` aborts; never keeps the process alive. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new MeasurementAbortedError(signal.reason))
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(new MeasurementAbortedError(signal.reason))
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    timer.unref?.()
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
