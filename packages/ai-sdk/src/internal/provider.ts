// What aiSdkJudge knows about AI SDK providers: where they send calls, which return logprobs and how, and which
// failures the AI SDK retries, after how long.
import { ConfigurationError, type TokenLogprob } from '@judgetree/core'
import { readTokenLogprobs, retryAfterOf } from '@judgetree/core/runtime'
import { APICallError, JSONParseError } from 'ai'
import type { LanguageModelObject } from './validate.js'

/** The largest `top_logprobs` OpenAI accepts. */
export const MAX_TOP_LOGPROBS = 20
/** The AI SDK's first wait before a retry (then doubled each time), kept so that behaviour matches its docs. */
export const FIRST_RETRY_DELAY_MS = 2_000
/** A Retry-After the SDK would honour: under a minute, or under its own backoff. */
const MAX_RETRY_AFTER_MS = 60_000

/** True for the providers of `@ai-sdk/openai` (`openai.chat`, `openai.responses`), the ones that return logprobs. */
export function returnsLogprobs(provider: string): boolean {
  return provider === 'openai' || provider.startsWith('openai.')
}

/**
 * The token logprobs in `providerMetadata.openai.logprobs`: a flat list from Chat Completions, one list per output
 * text from the Responses API. Undefined when there are none or when anything in them is not a token logprob: read
 * by core's reader, as OpenAIJudge reads them.
 */
export function readLogprobs(providerMetadata: unknown): TokenLogprob[] | undefined {
  const raw = (providerMetadata as { openai?: { logprobs?: unknown } } | undefined)?.openai?.logprobs
  if (!Array.isArray(raw)) return undefined
  const { logprobs } = readTokenLogprobs(
    (raw as unknown[]).flatMap((entry) => (Array.isArray(entry) ? entry : [entry])),
  )
  return logprobs === undefined || logprobs.length === 0 ? undefined : logprobs
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
  const asked = APICallError.isInstance(error) ? retryAfterOf(error.responseHeaders) : undefined
  if (asked !== undefined && (asked < MAX_RETRY_AFTER_MS || asked < backoff)) return asked
  return backoff
}

/** fetch refuses a URL with credentials at every call, and its message quotes the password: refused up front. */
export function refuseCredentialsInURL(model: LanguageModelObject): void {
  const url = urlOf(model)
  if (url === undefined || (url.username === '' && url.password === '')) return
  throw new ConfigurationError(
    `The judge model "${model.modelId}" (AI SDK provider ${model.provider}) has a baseURL with credentials before ` +
      `its host (${url.protocol}//***@${url.host}${url.pathname.replace(/\/+$/, '')}): fetch refuses such a URL for ` +
      "every call. Take them out of the URL and pass the key as the provider's `apiKey` (it goes in the " +
      "Authorization header), or in the provider's `headers` option.",
  )
}

/**
 * The API root, when the provider shows it: `@ai-sdk/openai` and OpenAI-compatible models build their URLs with
 * `config.url`.
 */
export function urlOf(model: LanguageModelObject): URL | undefined {
  const config = (model as { config?: { url?: unknown } }).config
  if (typeof config?.url !== 'function') return undefined
  try {
    return new URL(String(config.url({ modelId: model.modelId, path: '' })))
  } catch {
    return undefined
  }
}
