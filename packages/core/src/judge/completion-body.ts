// Reading the body of an answer the SDK accepted. The SDK reads it outside its retry loop and without its timeout,
// so a reset, a stall or a truncated body mid-response is caught here, told apart, and retried by OpenAIJudge.
import type { ChatCompletion } from 'openai/resources/chat/completions'
import { MeasurementAbortedError } from '../errors.js'
import { rootMessage } from './failures.js'

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
