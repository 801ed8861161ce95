// Reading the body of an answer the SDK accepted. The SDK reads it outside its retry loop and without its timeout,
// so a reset, a stall or a truncated body mid-response is caught here, told apart, and retried by OpenAIJudge.
import type { ChatCompletion } from 'openai/resources/chat/completions'
import { MeasurementAbortedError } from '../errors.js'
import { rootMessage } from './failures.js'
import { withRetries } from './transport-retries.js'

/** The first wait before retrying a body that was cut short; doubled each retry, capped at BODY_RETRY_MAX_MS. */
const BODY_RETRY_BASE_MS = 200
const BODY_RETRY_MAX_MS = 4_000

/** A failure while reading a 200 answer's body: the connection was cut, or the body is not (complete) JSON. */
export class BodyFailure extends Error {
  readonly kind: 'reset' | 'stalled' | 'truncated' | 'not-json'
  readonly detail: string
  constructor(kind: BodyFailure['kind'], detail: string) {
    super(`${kind}: ${detail}`)
    this.kind = kind
    this.detail = detail
  }

  /** What happened, continuing a sentence after the judge's name (a TransportFailure's `what`). */
  get what(): string {
    if (this.kind === 'reset') {
      return `: the connection was reset mid-response, while the answer was being read (${this.detail})`
    }
    if (this.kind === 'stalled') return ` stopped sending the answer mid-body: ${this.detail}`
    const body = this.kind === 'truncated' ? 'truncated body' : 'body that is not JSON'
    return ` sent a ${body} (not valid JSON: ${this.detail})`
  }
}

/** Reads and parses the body of an answer the SDK accepted (status 2xx), telling a cut connection from bad JSON. */
export async function readCompletionBody(
  response: Response,
  signal: AbortSignal | undefined,
  body: AbortController,
  timeoutMs: number,
): Promise<{ completion: ChatCompletion } | { failure: BodyFailure }> {
  let stalled = false
  const timer = setTimeout(() => {
    stalled = true
    body.abort(new Error(`no more of the body within ${timeoutMs} ms`))
  }, timeoutMs)
  timer.unref?.()
  let text: string
  try {
    text = await response.text()
  } catch (error) {
    if (signal?.aborted) throw new MeasurementAbortedError(signal.reason)
    if (stalled)
      return { failure: new BodyFailure('stalled', `nothing more arrived within ${timeoutMs} ms (timeoutMs)`) }
    return { failure: new BodyFailure('reset', rootMessage(error)) }
  } finally {
    clearTimeout(timer)
  }
  try {
    return { completion: JSON.parse(text) as ChatCompletion }
  } catch {
    // The parser's message quotes the body, which a hostile server may fill with the key: only sizes are shown.
    const looksLikeJson = /^\s*[{[]/.test(text)
    const size = `${text.length} characters${response.headers.get('content-length') === null ? '' : ` of ${response.headers.get('content-length')} announced`}`
    return { failure: new BodyFailure(looksLikeJson ? 'truncated' : 'not-json', size) }
  }
}

/** Exponential backoff with jitter for retrying a body that was cut short. */
export function bodyRetryDelay(retry: number): number {
  const base = Math.min(BODY_RETRY_BASE_MS * 2 ** retry, BODY_RETRY_MAX_MS)
  return base * (0.75 + Math.random() * 0.25)
}

/** What the `openai` SDK returns for a request (an APIPromise, of any major), its body read by the caller. */
export interface SdkRequest {
  asResponse(): Promise<Response>
}

/**
 * One request with the SDK's retries for failures before the answer and ours for failures while reading it: the SDK
 * reads the body outside its retry loop, so a connection reset mid-body or a truncated body would otherwise end the
 * measurement at the first occurrence. Both are retried up to maxRetries times, with backoff. `send` is given the
 * signal to pass the SDK: it also ends when the body takes longer than `timeoutMs` (the SDK's own timeout ends when
 * the headers arrive).
 */
export function postReadingBody<Answer>(
  send: (signal: AbortSignal) => SdkRequest,
  options: { readonly signal: AbortSignal | undefined; readonly timeoutMs: number; readonly maxRetries: number },
): Promise<Answer> {
  const { signal, timeoutMs } = options
  const attempt = async () => {
    const body = new AbortController()
    const relay = (): void => body.abort(signal?.reason)
    signal?.addEventListener('abort', relay, { once: true })
    try {
      const response = await send(body.signal).asResponse()
      const read = await readCompletionBody(response, signal, body, timeoutMs)
      if ('failure' in read) throw read.failure
      return read.completion as Answer
    } finally {
      signal?.removeEventListener('abort', relay)
    }
  }
  const retryable = (error: unknown) => error instanceof BodyFailure
  return withRetries(attempt, {
    maxRetries: options.maxRetries,
    retryable,
    delayMs: (_, retry) => bodyRetryDelay(retry),
    signal,
  })
}
