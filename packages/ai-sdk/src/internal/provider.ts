// What aiSdkJudge knows about AI SDK providers: where they send calls, which return logprobs and how, which failures
// the AI SDK retries, where they read their key, and how they say a sampling setting was not applied.
import { ConfigurationError, type TokenLogprob } from '@judgetree/core'
import {
  type CallBudget,
  type JudgeSecrets,
  readTokenLogprobs,
  type TransportCompletion,
  type TransportFailure,
} from '@judgetree/core/runtime'
import { APICallError, JSONParseError, RetryError, TypeValidationError } from 'ai'
import type { LanguageModelObject } from './language-model.js'

/** The AI SDK's first wait before a retry (then doubled each time), kept so that behaviour matches its docs. */
export const FIRST_RETRY_DELAY_MS = 2_000

/** True for the providers of `@ai-sdk/openai` (`openai.chat`, `openai.responses`), the ones that return logprobs. */
export function returnsLogprobs(provider: string): boolean {
  return provider === 'openai' || provider.startsWith('openai.')
}

/** The token logprobs in `providerMetadata.openai.logprobs`: one list (Chat Completions) or one per text (Responses). */
export function readLogprobs(providerMetadata: unknown): TokenLogprob[] | undefined {
  const raw = (providerMetadata as { openai?: { logprobs?: unknown } } | undefined)?.openai?.logprobs
  const { logprobs } = Array.isArray(raw) ? readTokenLogprobs(raw.flat()) : { logprobs: undefined }
  return logprobs?.length ? logprobs : undefined
}

/** An error the AI SDK retries (429, 5xx, connection failures, the AI Gateway's), or a 2xx body cut short. */
export function isRetryable(error: unknown): boolean {
  if (APICallError.isInstance(error)) return error.isRetryable || isTruncatedBody(error)
  return error instanceof Error && (error as { isRetryable?: unknown }).isRetryable === true
}

const isSuccess = (error: APICallError) => error.statusCode !== undefined && error.statusCode < 300

/** A 2xx answer whose body is not complete JSON: the connection was cut, or a proxy truncated it. */
export function isTruncatedBody(error: unknown): error is APICallError {
  return APICallError.isInstance(error) && isSuccess(error) && JSONParseError.isInstance(error.cause)
}

/** A 2xx response the provider refused because its logprobs did not match its schema (not a body cut short). */
export function malformedLogprobs(error: APICallError): boolean {
  const logprobs = /"logprobs"\s*:\s*\{/.test(error.responseBody ?? '')
  return isSuccess(error) && TypeValidationError.isInstance(error.cause) && logprobs
}

/** The API root, when the provider shows it: `@ai-sdk/openai` and OpenAI-compatible models build URLs with it. */
export function urlOf(model: LanguageModelObject): URL | undefined {
  const config = (model as { config?: { url?: unknown } }).config
  if (typeof config?.url !== 'function') return undefined
  try {
    return new URL(String(config.url({ modelId: model.modelId, path: '' })))
  } catch {
    return undefined
  }
}

/** The host and path calls go to; a URL with credentials is refused up front, as fetch would quote its password. */
export function endpointOf(model: LanguageModelObject, where: string): string | undefined {
  const url = urlOf(model)
  if (url === undefined) return undefined
  const endpoint = `${url.host}${url.pathname.replace(/\/+$/, '')}`
  if (url.username === '' && url.password === '') return endpoint
  throw new ConfigurationError(
    `${where} has a baseURL with credentials before its host (${url.protocol}//***@${endpoint}): fetch refuses ` +
      "such a URL for every call. Take them out of the URL and pass the key as the provider's `apiKey` (it goes in " +
      "the Authorization header), or in the provider's `headers` option.",
  )
}

// Where the common providers read their key, for the 401 hint; others get the generic wording.
const KEY_SOURCES: Readonly<Record<string, string>> = {
  openai: 'OPENAI_API_KEY, or createOpenAI({ apiKey })',
  azure: 'AZURE_API_KEY, or createAzure({ apiKey })',
  anthropic: 'ANTHROPIC_API_KEY, or createAnthropic({ apiKey })',
  google: 'GOOGLE_GENERATIVE_AI_API_KEY, or createGoogle({ apiKey })',
  mistral: 'MISTRAL_API_KEY, or createMistral({ apiKey })',
}

/** Where `provider` reads its API key, for the advice after a 401. */
export function keySource(provider: string): string {
  const family = provider.split('.')[0] ?? ''
  const known = Object.hasOwn(KEY_SOURCES, family) ? KEY_SOURCES[family] : undefined
  return known ?? "its environment variable, or the apiKey given to the provider's create function"
}

type Warning = { type: string; feature?: string; setting?: string; details?: string; message?: string }

/**
 * The sampling settings a result's warnings say were not applied: `unsupported` (specification v3 and v4) or
 * `unsupported-setting` (v2) naming `temperature`, or the `other` warning @ai-sdk/openai gives for dropped logprobs.
 */
export function settingsIgnoredOf(warnings: readonly Warning[] | undefined): TransportCompletion['settingsIgnored'] {
  const ignored = (warnings ?? []).flatMap((warning) => {
    const name = warning.feature ?? warning.setting ?? ''
    const detail = warning.details ?? warning.message ?? `${name} is not supported`
    if (warning.type === 'other') return /^(top)?logprobs\b/i.test(detail) ? [{ setting: 'logprobs', detail }] : []
    if (warning.type !== 'unsupported' && warning.type !== 'unsupported-setting') return []
    if (name === 'temperature') return [{ setting: 'temperature', detail }]
    return /^(top)?logprobs$/i.test(name) ? [{ setting: 'logprobs', detail }] : []
  })
  const once = ignored.filter((entry, index) => ignored.findIndex((e) => e.setting === entry.setting) === index)
  return once.length === 0 ? undefined : (once as TransportCompletion['settingsIgnored'])
}

// `openai('…')` of @ai-sdk/openai calls the Responses API, which OpenAI-compatible servers rarely speak: their 404
// usually means the model should have been made with `openai.chat('…')`.
const RESPONSES_NOT_FOUND =
  "`openai('…')` and `openai.responses('…')` call the Responses API (/responses); a server that speaks only Chat " +
  "Completions (Ollama, vLLM, LM Studio, most OpenAI-compatible servers) needs `openai.chat('…')` instead."

/** The advice both AI SDK judges give after a failure: the network, a cut body, the key, the model, a rate limit. */
export function providerAdvice(provider: string, notFound: string) {
  return {
    unreachable: "Check the network and the provider's baseURL.",
    cutShort: '. Raise maxRetries if it keeps happening.',
    unauthorized: `Check the API key the provider sends: ${keySource(provider)}.`,
    notFound: provider === 'openai.responses' ? `${notFound} ${RESPONSES_NOT_FOUND}` : notFound,
    rateLimited: (retries: string) =>
      `Still rate limited ${retries}: lower the concurrency, raise maxRetries or check your quota.`,
  }
}

/**
 * How an AI SDK judge names itself in errors and learns the key its provider sends: the official providers keep their
 * headers as `config.headers`, a function reading the key when called.
 */
export function providerSecrets(model: unknown, where: string, secrets: JudgeSecrets) {
  return {
    where: () => where,
    secrets: () => secrets.all,
    refreshSecrets: () => secrets.refresh((model as { config?: { headers?: unknown } }).config?.headers),
  }
}

/**
 * What both AI SDK judges' `classify` settle first: a call past its time budget, and a body cut short; otherwise the
 * error under the AI SDK's RetryError (`last`) and the retries made, for the judge to classify.
 */
export function firstClassified(
  error: unknown,
  call: Parameters<CallBudget['timedOut']>[0],
  budget: CallBudget,
):
  | { readonly failure: TransportFailure }
  | { readonly last: unknown; readonly retries: number; readonly skipped: string | undefined } {
  const timedOut = budget.timedOut(call)
  if (timedOut !== undefined) return { failure: timedOut }
  const last = RetryError.isInstance(error) ? error.lastError : error
  const { retries, skipped } = budget.retriesOf(call)
  if (isTruncatedBody(last)) {
    const what = ` answered HTTP ${last.statusCode} with a truncated body (not valid JSON)`
    return { failure: { kind: 'cut-short', what, retries, skipped, cause: last } }
  }
  return { last, retries, skipped }
}
