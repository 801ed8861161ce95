import {
  costOf,
  JudgeCallError,
  type JudgeMessage,
  type JudgeModel,
  JudgeOutputError,
  type JudgeRequest,
  type JudgeResponse,
  MeasurementAbortedError,
  type ModelPrice,
  type TokenLogprob,
} from '@judgetree/core'
import {
  answerExcerpt,
  parseJudgeAnswer,
  scrubSecrets,
  scrubTokens,
  scrubValue,
  withSchemaInstruction,
} from '@judgetree/core/runtime'
import { APICallError, generateText, NoObjectGeneratedError, Output, RetryError } from 'ai'
import { z } from 'zod'
import { type CallSite, toCallError } from './internal/call-error.js'
import { MAX_TOP_LOGPROBS, readLogprobs, returnsLogprobs } from './internal/logprobs.js'
import { assertLanguageModel, invalidOption, type LanguageModelObject } from './internal/validate.js'

/** Options of {@link aiSdkJudge}. */
export interface AiSdkJudgeOptions {
  /** @default 0 */
  temperature?: number | undefined
  /** Milliseconds one judge call (the SDK's retries included) may take before it is abandoned. @default 60_000 */
  timeoutMs?: number | undefined
  /** The SDK's retries for 429, 5xx and connection errors. @default 2 (the SDK's default) */
  maxRetries?: number | undefined
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

interface Answer<T> {
  readonly value: T
  readonly text: string
  readonly promptTokens: number
  readonly completionTokens: number
  readonly servedModel: string | undefined
  readonly logprobs: readonly TokenLogprob[] | undefined
}

type Attempt<T> =
  | ({ readonly ok: true } & Answer<T>)
  | {
      readonly ok: false
      readonly problem: string
      readonly text: string
      readonly promptTokens: number
      readonly completionTokens: number
    }

/** A judge backed by any Vercel AI SDK language model; build it with {@link aiSdkJudge}. */
export class AiSdkJudge implements JudgeModel {
  /** The model id, e.g. `claude-sonnet-4-5`. */
  readonly name: string
  /** Provider, model, sampling options and the `cacheNamespace`: what the judge cache tells apart. */
  readonly cacheIdentity: Readonly<Record<string, unknown>>
  /** Host and path of the provider's API, when the provider shows it: named in messages, not part of the cache key. */
  readonly endpoint: string | undefined
  readonly #model: LanguageModelObject
  readonly #options: AiSdkJudgeOptions
  readonly #site: CallSite
  /** Why this model gets no logprobs request: set once the server rejected one. */
  #logprobsRejected: string | undefined
  /** Why the schema goes into the prompt for every call: set once the provider said it does not take schemas. */
  #schemaNotTaken: string | undefined
  /** The schemas the server refused, with why: asked for as plain text with the schema in the prompt from then on. */
  readonly #schemasRefused = new Map<string, string>()

  constructor(model: LanguageModelObject, options: AiSdkJudgeOptions = {}) {
    assertLanguageModel(model)
    validateOptions(options)
    this.#model = model
    this.#options = options
    this.name = model.modelId
    this.endpoint = endpointOf(model)
    this.cacheIdentity = Object.freeze({
      provider: model.provider,
      model: model.modelId,
      ...(options.cacheNamespace === undefined ? {} : { namespace: options.cacheNamespace }),
      temperature: options.temperature ?? 0,
      ...(options.providerOptions === undefined ? {} : { providerOptions: options.providerOptions }),
      ...(options.schemaInPrompt ? { schemaInPrompt: true } : {}),
      ...(options.structuredOutputs === 'required' ? { structuredOutputs: 'required' } : {}),
    })
    const maxRetries = options.maxRetries ?? 2
    this.#site = {
      where: `The judge model "${model.modelId}" (AI SDK provider ${model.provider})`,
      provider: model.provider,
      timeoutMs: options.timeoutMs ?? 60_000,
      maxRetries,
    }
  }

  async generate<T>(request: JudgeRequest<T>): Promise<JudgeResponse<T>> {
    if (request.signal?.aborted) throw new MeasurementAbortedError(request.signal.reason)
    const first = await this.#attempt(request, [])
    let final: Answer<T>
    if (first.ok) {
      final = first
    } else {
      const second = await this.#attempt(request, [
        { role: 'assistant', content: first.text },
        {
          role: 'user',
          content:
            `Your previous answer could not be used: ${first.problem}\n` +
            `Answer again with only a JSON object matching the "${request.schemaName}" schema, and no other text.`,
        },
      ])
      if (!second.ok) {
        throw new JudgeOutputError(
          `${this.#site.where} did not answer with valid "${request.schemaName}" JSON, even after being asked ` +
            `again: ${second.problem}\nRaw answer: ${answerExcerpt(second.text)}`,
          second.text,
        )
      }
      final = second
    }
    // A re-ask costs both calls.
    const promptTokens = final.promptTokens + (first === final ? 0 : first.promptTokens)
    const completionTokens = final.completionTokens + (first === final ? 0 : first.completionTokens)
    const pricing = this.#options.pricing
    const costUsd =
      costOf(this.name, promptTokens, completionTokens, pricing) ??
      (final.servedModel === undefined ? undefined : costOf(final.servedModel, promptTokens, completionTokens, pricing))
    const unavailable = request.topLogprobs === undefined ? undefined : this.#logprobsUnavailable(final.logprobs)
    const unenforced = this.#schemasRefused.get(request.schemaName) ?? this.#schemaNotTaken
    return {
      value: final.value,
      usage: { promptTokens, completionTokens, costUsd },
      logprobs: final.logprobs,
      cached: false,
      rawText: final.text,
      ...(unavailable === undefined ? {} : { logprobsUnavailable: unavailable }),
      ...(unenforced === undefined ? {} : { structuredOutputsUnavailable: unenforced }),
    }
  }

  #logprobsUnavailable(logprobs: readonly TokenLogprob[] | undefined): string | undefined {
    if (logprobs !== undefined) return undefined
    if (this.#logprobsRejected !== undefined) return this.#logprobsRejected
    const { provider, modelId } = this.#model
    if (!returnsLogprobs(provider)) {
      return `the AI SDK provider ${provider} returns no logprobs, so "${modelId}" is asked without them`
    }
    return `the model "${modelId}" (AI SDK provider ${provider}) returned no logprobs although they were requested`
  }

  /**
   * The request's messages, with the JSON schema added to the last user message when `schemaInPrompt` is set or the
   * provider cannot hold the answer to it.
   */
  #prompt<T>(request: JudgeRequest<T>): readonly JudgeMessage[] {
    const schemaInPrompt =
      this.#options.schemaInPrompt || this.#schemaNotTaken !== undefined || this.#schemasRefused.has(request.schemaName)
    if (!schemaInPrompt) return request.messages
    const { $schema: _dialect, ...schema } = z.toJSONSchema(request.schema) as Record<string, unknown>
    return withSchemaInstruction(request.messages, schema)
  }

  async #attempt<T>(request: JudgeRequest<T>, followUp: readonly JudgeMessage[]): Promise<Attempt<T>> {
    const { schema, schemaName, topLogprobs, signal } = request
    const timeout = AbortSignal.timeout(this.#site.timeoutMs)
    const abortSignal = signal === undefined ? timeout : AbortSignal.any([signal, timeout])
    const wantsLogprobs =
      topLogprobs !== undefined && returnsLogprobs(this.#model.provider) && this.#logprobsRejected === undefined
    const providerOptions = {
      ...this.#options.providerOptions,
      ...(wantsLogprobs
        ? { openai: { ...this.#options.providerOptions?.openai, logprobs: Math.min(topLogprobs, MAX_TOP_LOGPROBS) } }
        : {}),
    }
    // A schema the server refused is asked for as plain text; the answer is then checked by the local validation only.
    const refused = this.#schemasRefused.has(schemaName)
    let result: Awaited<ReturnType<typeof generateText>>
    try {
      result = await generateText({
        model: this.#model,
        // Judge prompts are judgetree's own, never user-editable chat history: their system message is trusted.
        allowSystemInMessages: true,
        messages: [...this.#prompt(request), ...followUp].map((message) => ({
          role: message.role,
          content: message.content,
        })),
        ...(refused ? {} : { output: Output.object({ schema, name: schemaName }) }),
        temperature: this.#options.temperature ?? request.defaultTemperature ?? 0,
        maxRetries: this.#site.maxRetries,
        abortSignal,
        ...(Object.keys(providerOptions).length === 0
          ? {}
          : { providerOptions: providerOptions as Record<string, Record<string, never>> }),
      })
    } catch (error) {
      if (NoObjectGeneratedError.isInstance(error)) return this.#unusable(error, request)
      const schemaRefusal = refused ? undefined : schemaRejection(error)
      if (schemaRefusal !== undefined && this.#options.structuredOutputs !== 'required') {
        this.#refuseSchema(schemaName, schemaRefusal)
        return this.#attempt(request, followUp)
      }
      const rejection = wantsLogprobs ? logprobsRejection(error) : undefined
      if (rejection !== undefined) {
        // As OpenAIJudge: a model that refuses logprobs still answers without them, and is not asked for them again.
        this.#logprobsRejected = `the model "${this.name}" does not accept logprobs (${rejection}), so it is asked without them`
        return this.#attempt(request, followUp)
      }
      throw toCallError(error, this.#site, signal, timeout)
    }
    if (!refused) this.#noteSchemaNotTaken(result.warnings)
    const text = scrubSecrets(result.text)
    // Parsed values reach traces and reports, so the answer is read from the scrubbed text, not the SDK's output.
    const parsed = parseJudgeAnswer(text, schema)
    if (!parsed.ok) {
      return { ok: false, problem: parsed.problem, text, ...tokensOf(result.usage) }
    }
    const logprobs = wantsLogprobs ? readLogprobs(result.providerMetadata) : undefined
    return {
      ok: true,
      // Escapes in the JSON (`\u0073k-…`) decode into a key only when parsed: the value is scrubbed as well.
      value: scrubValue(parsed.value),
      text,
      ...tokensOf(result.usage),
      servedModel: result.response.modelId,
      logprobs: logprobs === undefined ? undefined : scrubTokens(logprobs),
    }
  }

  /** The server answered 400 to this schema: from now on it is asked for as text, with the schema in the prompt. */
  #refuseSchema(schemaName: string, words: string): void {
    // Calls in flight when the server refused may be refused too; the first one decides and warns.
    if (this.#schemasRefused.has(schemaName)) return
    this.#schemasRefused.set(
      schemaName,
      `${this.#site.where} refused the JSON schema "${schemaName}" (${words}), so it was asked for the answer as ` +
        'text with the schema in the prompt, and the answer was checked only against the local validation',
    )
    this.#warn(
      `judgetree: ${this.#site.where} refused the JSON schema "${schemaName}": ${words}\nIts "${schemaName}" ` +
        'answers are asked for as text with the schema in the prompt from now on, and checked only against the ' +
        "local validation; every result made that way says so. Pass `structuredOutputs: 'required'` to aiSdkJudge " +
        'to make this an error instead.',
    )
  }

  /** The provider warned that it does not take a JSON schema: the schema goes into every prompt from now on. */
  #noteSchemaNotTaken(warnings: readonly unknown[] | undefined): void {
    if (this.#schemaNotTaken !== undefined) return
    const warning = (warnings ?? []).find(
      (candidate): candidate is { feature: string; details?: string } =>
        typeof candidate === 'object' &&
        candidate !== null &&
        (candidate as { type?: unknown }).type === 'unsupported' &&
        (candidate as { feature?: unknown }).feature === 'responseFormat',
    )
    if (warning === undefined) return
    const words = scrubSecrets(warning.details ?? 'responseFormat is unsupported')
    if (this.#options.structuredOutputs === 'required') {
      throw new JudgeCallError(
        `${this.#site.where} does not take a JSON schema for its answers (the AI SDK says: ${words}), and ` +
          "`structuredOutputs: 'required'` was set. Use a provider setting that supports structured outputs (for " +
          "@ai-sdk/openai-compatible, `supportsStructuredOutputs: true`), or leave `structuredOutputs` at 'auto'.",
      )
    }
    this.#schemaNotTaken =
      `${this.#site.where} does not take a JSON schema (the AI SDK says: ${words}), so the schema was written into ` +
      'the prompt and the answer was checked only against the local validation'
    // Said up front with schemaInPrompt: the results are still marked, but there is nothing new to warn about.
    if (this.#options.schemaInPrompt) return
    this.#warn(
      `judgetree: ${this.#site.where} does not take a JSON schema for its answers (the AI SDK says: ${words}).\n` +
        'The schema is written into the prompt from now on and answers are checked only against the local ' +
        'validation; every result made that way says so. Pass `schemaInPrompt: true` to aiSdkJudge to say this up ' +
        "front, or `structuredOutputs: 'required'` to make it an error.",
    )
  }

  #warn(message: string): void {
    const warn = this.#options.warn ?? ((text: string) => console.warn(text))
    warn(message)
  }

  /** The SDK could not read the answer: a refusal or a cut-off is final; anything else gets our parse, then a re-ask. */
  #unusable<T>(error: NoObjectGeneratedError, request: JudgeRequest<T>): Attempt<T> {
    const text = scrubSecrets(error.text ?? '')
    const where = this.#site.where
    if (error.finishReason === 'content-filter') {
      throw new JudgeOutputError(
        `${where} refused to give the "${request.schemaName}" answer (finish reason 'content-filter'): ` +
          `${answerExcerpt(text)}. Rephrase the criteria, or use a model that answers this kind of input.`,
        text,
      )
    }
    if (error.finishReason === 'length') {
      throw new JudgeOutputError(
        `${where} was cut off at its output token limit (finish reason 'length') before finishing the ` +
          `"${request.schemaName}" answer. Raise the model's max output tokens or shorten the input. ` +
          `Raw answer: ${answerExcerpt(text)}`,
        text,
      )
    }
    const tokens = tokensOf(error.usage)
    const parsed = parseJudgeAnswer(text, request.schema)
    if (!parsed.ok) return { ok: false, problem: parsed.problem, text, ...tokens }
    return { ok: true, value: parsed.value, text, ...tokens, servedModel: error.response?.modelId, logprobs: undefined }
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

/** The server's words when it answered 400 to a logprobs request, else undefined. */
function logprobsRejection(error: unknown): string | undefined {
  const last = RetryError.isInstance(error) ? error.lastError : error
  if (!APICallError.isInstance(last) || last.statusCode !== 400) return undefined
  return /logprobs/i.test(`${last.message} ${last.responseBody ?? ''}`) ? scrubSecrets(last.message) : undefined
}

/** The server's words when it answered 400 (or 422) to the JSON schema response format, else undefined. */
function schemaRejection(error: unknown): string | undefined {
  const last = RetryError.isInstance(error) ? error.lastError : error
  if (!APICallError.isInstance(last) || (last.statusCode !== 400 && last.statusCode !== 422)) return undefined
  return /response_format|json_schema|structured output/i.test(`${last.message} ${last.responseBody ?? ''}`)
    ? scrubSecrets(last.message)
    : undefined
}

function tokensOf(usage: { inputTokens: number | undefined; outputTokens: number | undefined } | undefined) {
  return { promptTokens: usage?.inputTokens ?? 0, completionTokens: usage?.outputTokens ?? 0 }
}

function validateOptions(options: AiSdkJudgeOptions): void {
  if (typeof options !== 'object' || options === null) throw invalidOption('options', 'an object', options)
  const { timeoutMs, maxRetries, temperature, providerOptions, schemaInPrompt, structuredOutputs, warn } = options
  const { cacheNamespace } = options
  if (cacheNamespace !== undefined && (typeof cacheNamespace !== 'string' || cacheNamespace.trim() === '')) {
    throw invalidOption('cacheNamespace', "a non-empty name such as 'ollama-q4'", cacheNamespace)
  }
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) {
    throw invalidOption('timeoutMs', 'a whole number of milliseconds from 1 and up', timeoutMs)
  }
  if (maxRetries !== undefined && !(Number.isInteger(maxRetries) && maxRetries >= 0)) {
    throw invalidOption('maxRetries', 'a whole number from 0 and up', maxRetries)
  }
  if (temperature !== undefined && !(typeof temperature === 'number' && temperature >= 0 && temperature <= 2)) {
    throw invalidOption('temperature', 'a number from 0 to 2', temperature)
  }
  if (providerOptions !== undefined && (typeof providerOptions !== 'object' || providerOptions === null)) {
    throw invalidOption('providerOptions', 'an object keyed by provider name', providerOptions)
  }
  if (schemaInPrompt !== undefined && typeof schemaInPrompt !== 'boolean') {
    throw invalidOption('schemaInPrompt', 'true or false', schemaInPrompt)
  }
  if (structuredOutputs !== undefined && structuredOutputs !== 'auto' && structuredOutputs !== 'required') {
    throw invalidOption('structuredOutputs', "'auto' or 'required'", structuredOutputs)
  }
  if (warn !== undefined && typeof warn !== 'function') {
    throw invalidOption('warn', 'a function that takes the warning text', warn)
  }
}

/**
 * Host and path of the API root when the provider shows it (`@ai-sdk/openai` and OpenAI-compatible models build
 * their URLs with `config.url`), so two servers with the same model id never share cache entries. No query string
 * or credentials are kept.
 */
function endpointOf(model: LanguageModelObject): string | undefined {
  const config = (model as { config?: { url?: unknown } }).config
  if (typeof config?.url !== 'function') return undefined
  try {
    const url = new URL(String(config.url({ modelId: model.modelId, path: '' })))
    return `${url.host}${url.pathname.replace(/\/+$/, '')}`
  } catch {
    return undefined
  }
}
