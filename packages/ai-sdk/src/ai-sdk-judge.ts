// aiSdkJudge: the judge protocol of @judgetree/core over any Vercel AI SDK language model. This file is the
// transport: one generateText call per request (with the AI SDK's retry policy), and its failures classified.
import { ConfigurationError, JudgeCallError, JudgeOutputError, type ModelPrice } from '@judgetree/core'
import {
  answerExcerpt,
  type CallHistory,
  JudgeSecrets,
  type JudgeTransport,
  retryAfterOf,
  StructuredJudge,
  type TransportCall,
  type TransportFailure,
  withRetries,
} from '@judgetree/core/runtime'
import {
  APICallError,
  generateText,
  LoadAPIKeyError,
  NoObjectGeneratedError,
  Output,
  RetryError,
  TypeValidationError,
  UnsupportedFunctionalityError,
} from 'ai'
import {
  FIRST_RETRY_DELAY_MS,
  isRetryable,
  isTruncatedBody,
  MAX_TOP_LOGPROBS,
  readLogprobs,
  refuseCredentialsInURL,
  retryDelayMs,
  returnsLogprobs,
  urlOf,
} from './internal/provider.js'
import { assertLanguageModel, type LanguageModelObject, validateOptions } from './internal/validate.js'

/** Options of {@link aiSdkJudge}. */
export interface AiSdkJudgeOptions {
  /** @default 0 */
  temperature?: number | undefined
  /** Milliseconds one judge call (the SDK's retries included) may take before it is abandoned. @default 60_000 */
  timeoutMs?: number | undefined
  /**
   * Retries for 429, 5xx, connection errors and truncated bodies, with the AI SDK's backoff (2 s, then doubled, or the
   * server's Retry-After). A retry that would start after `timeoutMs` is not made, and the error says so.
   * @default 2 (the SDK's default)
   */
  maxRetries?: number | undefined
  /**
   * Secrets to take out of every answer, error, report and cache entry, besides the key the provider sends (which
   * aiSdkJudge reads from the provider's request headers): for example a token your own `fetch` adds, or the key of
   * a model wrapped in middleware, whose headers are not visible. Each must be 8 characters or more. @default []
   */
  secrets?: readonly string[] | undefined
  /** Prices added to (or overriding) DEFAULT_MODEL_PRICES and registerModelPrices, keyed by model id. @default {} */
  pricing?: Readonly<Record<string, ModelPrice>> | undefined
  /**
   * Provider options passed to every call, e.g. `{ anthropic: { thinking: { type: 'disabled' } } }`; part of the cache
   * key, so never put secrets here. @default {}
   */
  providerOptions?: Readonly<Record<string, Readonly<Record<string, unknown>>>> | undefined
  /**
   * Also writes the answer's JSON schema into the prompt, for providers that get JSON mode but not the schema (the
   * SDK then warns that `responseFormat` is unsupported, e.g. `@ai-sdk/openai-compatible` without
   * `supportsStructuredOutputs`). Part of the cache key. @default false
   */
  schemaInPrompt?: boolean | undefined
  /**
   * What to do when the provider cannot hold answers to the JSON schema: `'auto'` writes the schema into the prompt
   * instead (for the whole model when the provider does not take schemas, for one schema when the server refuses it),
   * warns once and marks every result made that way; `'required'` makes it an error instead. @default 'auto'
   */
  structuredOutputs?: 'auto' | 'required' | undefined
  /** Where the one warning per fallback goes (never stdout). @default console.warn */
  warn?: ((message: string) => void) | undefined
  /**
   * Keeps this judge's cached answers apart from those of judges with another namespace. The cache key does not
   * hold the provider's base URL (a recording replays through any), so name a namespace when two servers answer one
   * model id differently. @default none
   */
  cacheNamespace?: string | undefined
}

/** A judge backed by any Vercel AI SDK language model; build it with {@link aiSdkJudge}. */
export class AiSdkJudge extends StructuredJudge {
  /** Provider, model, sampling options and the `cacheNamespace`: what the judge cache tells apart. */
  declare readonly cacheIdentity: Readonly<Record<string, unknown>>

  constructor(model: LanguageModelObject, options: AiSdkJudgeOptions = {}) {
    super(aiSdkTransport(model, options))
  }
}

/**
 * Turns any Vercel AI SDK language model into a judge: structured output with the request's zod schema, usage and
 * cost, logprobs where the provider returns them, the abort signal, a timeout and the SDK's retries.
 *
 * @example
 * import { anthropic } from '@ai-sdk/anthropic'
 * const metric = new DAGMetric({ name: 'Format', dag, model: aiSdkJudge(anthropic('claude-sonnet-4-5')) })
 */
export function aiSdkJudge(model: LanguageModelObject, options?: AiSdkJudgeOptions): AiSdkJudge {
  return new AiSdkJudge(model, options)
}

function aiSdkTransport(model: LanguageModelObject, options: AiSdkJudgeOptions): JudgeTransport {
  assertLanguageModel(model)
  validateOptions(options)
  refuseCredentialsInURL(model)
  const { provider, modelId } = model
  const where = `The judge model "${modelId}" (AI SDK provider ${provider})`
  const timeoutMs = options.timeoutMs ?? 60_000
  const maxRetries = options.maxRetries ?? 2
  const warn = options.warn ?? ((text: string) => console.warn(text))
  if (maxRetries > 0 && timeoutMs <= FIRST_RETRY_DELAY_MS) {
    warn(
      `judgetree: ${where} has timeoutMs ${timeoutMs}, no longer than the first retry's wait ` +
        `(${FIRST_RETRY_DELAY_MS} ms, the AI SDK's backoff): a failed call is never retried, since the retry would ` +
        `start after the call was abandoned. Raise timeoutMs above ${FIRST_RETRY_DELAY_MS} ms, or pass maxRetries: 0.`,
    )
  }
  const secrets = new JudgeSecrets(options.secrets)
  const url = urlOf(model)
  /** Each call's retries and timeout, for classify to word its failure from what happened. */
  const calls = new WeakMap<TransportCall, { history: CallHistory; timeout: AbortSignal }>()
  const wantsLogprobs = (call: TransportCall) => call.topLogprobs !== undefined && returnsLogprobs(provider)
  const tokensOf = (usage: { inputTokens?: number | undefined; outputTokens?: number | undefined } | undefined) => ({
    promptTokens: usage?.inputTokens ?? 0,
    completionTokens: usage?.outputTokens ?? 0,
  })

  return {
    name: modelId,
    cacheIdentity: Object.freeze({
      provider,
      model: modelId,
      ...(options.cacheNamespace === undefined ? {} : { namespace: options.cacheNamespace }),
      temperature: options.temperature ?? 0,
      ...(options.providerOptions === undefined ? {} : { providerOptions: options.providerOptions }),
      ...(options.schemaInPrompt ? { schemaInPrompt: true } : {}),
      ...(options.structuredOutputs === 'required' ? { structuredOutputs: 'required' } : {}),
    }),
    endpoint: url === undefined ? undefined : `${url.host}${url.pathname.replace(/\/+$/, '')}`,
    structuredOutputs: options.structuredOutputs ?? 'auto',
    schemaInPrompt: options.schemaInPrompt,
    pricing: options.pricing,
    timeoutMs,
    warn,
    label: where,
    where: () => where,
    secrets: () => secrets.all,
    // The official providers keep their headers as `config.headers`, a function reading the key when called.
    refreshSecrets: () => secrets.refresh((model as { config?: { headers?: unknown } }).config?.headers),
    advice: {
      unreachable: "Check the network and the provider's baseURL.",
      cutShort: '. Raise maxRetries if it keeps happening.',
      unauthorized: `Check the API key the provider sends: ${keySource(provider)}.`,
      notFound:
        "Check the model id, and the provider's baseURL (for OpenAI-compatible servers, the API root ending in /v1).",
      rateLimited: (retries) =>
        `Still rate limited ${retries}: lower the concurrency, raise maxRetries or check your quota.`,
      temperature: 'This model may not accept that temperature; pass `temperature: 1` to aiSdkJudge.',
      structuredOutputs:
        'The server may not support structured outputs (JSON schema). Leave `structuredOutputs` at its default, ' +
        "'auto', so that aiSdkJudge writes the schema into the prompt instead (and says so in every result).",
      structuredFirst: true,
    },
    wording: {
      schemaRefused: (schemaName, words) => ({
        reason:
          `${where} refused the JSON schema "${schemaName}" (${words}), so it was asked for the answer as ` +
          'text with the schema in the prompt, and the answer was checked only against the local validation',
        warning:
          `judgetree: ${where} refused the JSON schema "${schemaName}": ${words}\nIts "${schemaName}" ` +
          'answers are asked for as text with the schema in the prompt from now on, and checked only against the ' +
          "local validation; every result made that way says so. Pass `structuredOutputs: 'required'` to aiSdkJudge " +
          'to make this an error instead.',
      }),
      schemaIgnored: (words) => {
        if (options.structuredOutputs === 'required') {
          throw new JudgeCallError(
            `${where} does not take a JSON schema for its answers (the AI SDK says: ${words}), and ` +
              "`structuredOutputs: 'required'` was set. Use a provider setting that supports structured outputs (for " +
              "@ai-sdk/openai-compatible, `supportsStructuredOutputs: true`), or leave `structuredOutputs` at 'auto'.",
          )
        }
        return {
          reason:
            `${where} does not take a JSON schema (the AI SDK says: ${words}), so the schema was written into ` +
            'the prompt and the answer was checked only against the local validation',
          // Said up front with schemaInPrompt: the results are still marked, but there is nothing new to warn about.
          warning: options.schemaInPrompt
            ? undefined
            : `judgetree: ${where} does not take a JSON schema for its answers (the AI SDK says: ${words}).\n` +
              'The schema is written into the prompt from now on and answers are checked only against the local ' +
              'validation; every result made that way says so. Pass `schemaInPrompt: true` to aiSdkJudge to say ' +
              "this up front, or `structuredOutputs: 'required'` to make it an error.",
        }
      },
      logprobsMissing: () =>
        returnsLogprobs(provider)
          ? `the model "${modelId}" (AI SDK provider ${provider}) returned no logprobs although they were requested`
          : `the AI SDK provider ${provider} returns no logprobs, so "${modelId}" is asked without them`,
      malformedLogprobs:
        `the model "${modelId}" (AI SDK provider ${provider}) sent malformed logprobs, which the ` +
        'provider could not read, so it is asked without them',
    },
    async complete(call) {
      const deadline = Date.now() + timeoutMs
      const timeout = AbortSignal.timeout(timeoutMs)
      const abortSignal = call.signal === undefined ? timeout : AbortSignal.any([call.signal, timeout])
      const history: CallHistory = { retries: 0 }
      calls.set(call, { history, timeout })
      const logprobs = wantsLogprobs(call)
      const providerOptions = {
        ...options.providerOptions,
        ...(logprobs
          ? {
              openai: {
                ...options.providerOptions?.openai,
                logprobs: Math.min(call.topLogprobs ?? 0, MAX_TOP_LOGPROBS),
              },
            }
          : {}),
      }
      const request = () =>
        generateText({
          model,
          // Judge prompts are judgetree's own, never user-editable chat history: their system message is trusted.
          allowSystemInMessages: true,
          messages: call.messages.map(({ role, content }) => ({ role, content })),
          // A schema the server refused is asked for as text; the answer is then checked by the local validation.
          ...(call.jsonSchema === undefined
            ? {}
            : { output: Output.object({ schema: call.schema, name: call.schemaName }) }),
          temperature: options.temperature ?? call.defaultTemperature ?? 0,
          // The retries are withRetries', so that each failure is seen and worded from what happened.
          maxRetries: 0,
          abortSignal,
          ...(Object.keys(providerOptions).length === 0
            ? {}
            : { providerOptions: providerOptions as Record<string, Record<string, never>> }),
        })
      try {
        const result = await withRetries(request, {
          maxRetries,
          retryable: isRetryable,
          delayMs: retryDelayMs,
          signal: abortSignal,
          deadline,
          history,
        })
        const warning = (result.warnings ?? []).find(
          (candidate) => candidate.type === 'unsupported' && candidate.feature === 'responseFormat',
        ) as { details?: string } | undefined
        return {
          samples: [{ text: result.text, logprobs: logprobs ? readLogprobs(result.providerMetadata) : undefined }],
          ...tokensOf(result.usage),
          servedModel: result.response.modelId,
          schemaIgnored: warning === undefined ? undefined : (warning.details ?? 'responseFormat is unsupported'),
        }
      } catch (error) {
        if (!NoObjectGeneratedError.isInstance(error)) throw error
        // The SDK could not read the answer: a refusal or a cut-off is final; anything else gets the protocol's re-ask.
        const text = call.scrub(error.text ?? '')
        const final =
          error.finishReason === 'content-filter'
            ? new JudgeOutputError(
                `${where} refused to give the "${call.schemaName}" answer (finish reason 'content-filter'): ` +
                  `${answerExcerpt(text)}. Rephrase the criteria, or use a model that answers this kind of input.`,
                text,
              )
            : error.finishReason === 'length'
              ? new JudgeOutputError(
                  `${where} was cut off at its output token limit (finish reason 'length') before finishing the ` +
                    `"${call.schemaName}" answer. Raise the model's max output tokens or shorten the input. ` +
                    `Raw answer: ${answerExcerpt(text)}`,
                  text,
                )
              : undefined
        return { samples: [final ?? { text }], ...tokensOf(error.usage), servedModel: error.response?.modelId }
      }
    },
    classify(error, call): TransportFailure {
      const { history, timeout } = calls.get(call) ?? { history: { retries: 0 }, timeout: undefined }
      if (timeout?.aborted && !call.signal?.aborted) {
        const earlier = history.retries === 0 || history.earlier === undefined ? undefined : history.earlier
        return {
          kind: 'timeout',
          retries: history.retries === 0 ? undefined : history.retries,
          earlier: earlier instanceof Error ? earlier.message : earlier === undefined ? undefined : String(earlier),
        }
      }
      const last = RetryError.isInstance(error) ? error.lastError : error
      const { retries } = history
      // A retry that would have started after timeoutMs is not made; the usual "raise maxRetries" would not help.
      const skipped =
        history.skippedWaitMs === undefined
          ? undefined
          : `It was not retried: the next retry was due in ${Math.round(history.skippedWaitMs)} ms, after timeoutMs ` +
            `(${timeoutMs} ms) would have ended the call. Raise timeoutMs above the wait, or pass maxRetries: 0.`
      if (isTruncatedBody(last)) {
        const what = ` answered HTTP ${last.statusCode} with a truncated body (not valid JSON)`
        return { kind: 'cut-short', what, retries, skipped, cause: last }
      }
      if (APICallError.isInstance(last)) {
        const status = last.statusCode
        if (status === undefined) {
          return { kind: 'unreachable', detail: last.message, host: hostOf(last.url), retries, skipped, cause: last }
        }
        const words = `${last.message} ${last.responseBody ?? ''}`
        const refuses =
          call.jsonSchema !== undefined &&
          (status === 400 || status === 422) &&
          /response_format|json_schema|structured output/i.test(words)
            ? 'schema'
            : wantsLogprobs(call) && status === 400 && /logprobs/i.test(words)
              ? 'logprobs'
              : wantsLogprobs(call) && malformedLogprobs(last)
                ? 'malformed-logprobs'
                : undefined
        const retryAfterMs = retryAfterOf(last.responseHeaders)
        return { kind: 'http', status, detail: last.message, retries, retryAfterMs, refuses, skipped, cause: last }
      }
      if (LoadAPIKeyError.isInstance(last)) {
        // The provider's own message names its variable and option, e.g. OPENAI_API_KEY and `apiKey`.
        // Every call of the run meets it: the provider's words are the advice, said once per run.
        return {
          kind: 'final',
          error: new ConfigurationError(`${where} has no API key.`, { advice: call.scrub(last.message) }),
        }
      }
      if (UnsupportedFunctionalityError.isInstance(last)) {
        const cause = Object.assign(new Error(call.scrub(last.message)), { name: last.name })
        const message =
          `${where} cannot give a structured (JSON) answer through the AI SDK: ${call.scrub(last.message)} ` +
          'Use a model of this provider that supports JSON output, or a provider that does (see docs/providers.md).'
        return { kind: 'final', error: new JudgeCallError(message, { cause }) }
      }
      return { kind: 'other', detail: last instanceof Error ? last.message : String(last), cause: last }
    },
  }
}

// Where the common providers read their key, for the 401 hint; others get the generic wording.
const KEY_SOURCES: Readonly<Record<string, string>> = {
  openai: 'OPENAI_API_KEY, or createOpenAI({ apiKey })',
  azure: 'AZURE_API_KEY, or createAzure({ apiKey })',
  anthropic: 'ANTHROPIC_API_KEY, or createAnthropic({ apiKey })',
  google: 'GOOGLE_GENERATIVE_AI_API_KEY, or createGoogle({ apiKey })',
  mistral: 'MISTRAL_API_KEY, or createMistral({ apiKey })',
}

function keySource(provider: string): string {
  const family = provider.split('.')[0] ?? ''
  return Object.hasOwn(KEY_SOURCES, family)
    ? (KEY_SOURCES[family] as string)
    : "its environment variable, or the apiKey given to the provider's create function"
}

/** A 2xx response the provider refused because its logprobs did not match its schema (not a body cut short). */
function malformedLogprobs(error: APICallError): boolean {
  const { statusCode } = error
  return (
    statusCode !== undefined &&
    statusCode >= 200 &&
    statusCode < 300 &&
    TypeValidationError.isInstance(error.cause) &&
    /"logprobs"\s*:\s*\{/.test(error.responseBody ?? '')
  )
}

function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return 'its baseURL'
  }
}
