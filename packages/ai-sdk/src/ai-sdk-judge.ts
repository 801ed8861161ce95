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
import { APICallError, generateText, NoObjectGeneratedError, Output, RetryError, TypeValidationError } from 'ai'
import { z } from 'zod'
import { type CallSite, toCallError } from './internal/call-error.js'
import { JudgeSecrets, refuseCredentialsInURL, urlOf } from './internal/credentials.js'
import { MAX_TOP_LOGPROBS, readLogprobs, returnsLogprobs } from './internal/logprobs.js'
import { type CallHistory, FIRST_RETRY_DELAY_MS, withRetries } from './internal/retries.js'
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
  /** The secrets to scrub: the `secrets` option and every key the provider has sent so far. */
  readonly #secrets: JudgeSecrets

  constructor(model: LanguageModelObject, options: AiSdkJudgeOptions = {}) {
    assertLanguageModel(model)
    validateOptions(options)
    refuseCredentialsInURL(model)
    this.#model = model
    this.#options = options
    this.#secrets = new JudgeSecrets(options.secrets)
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
    if (maxRetries > 0 && this.#site.timeoutMs <= FIRST_RETRY_DELAY_MS) {
      this.#warn(
        `judgetree: ${this.#site.where} has timeoutMs ${this.#site.timeoutMs}, no longer than the first retry's wait ` +
          `(${FIRST_RETRY_DELAY_MS} ms, the AI SDK's backoff): a failed call is never retried, since the retry would ` +
          `start after the call was abandoned. Raise timeoutMs above ${FIRST_RETRY_DELAY_MS} ms, or pass maxRetries: 0.`,
      )
    }
  }

  /** Takes this judge's secrets (its provider's key and the `secrets` option) out of `text`, in any encoding. */
  scrubSecrets(text: string): string {
    return scrubSecrets(text, this.#secrets.all)
  }

  async generate<T>(request: JudgeRequest<T>): Promise<JudgeResponse<T>> {
    if (request.signal?.aborted) throw new MeasurementAbortedError(request.signal.reason)
    const secrets = await this.#secrets.refresh(this.#model)
    const scrub = (text: string) => scrubSecrets(text, secrets)
    const first = await this.#attempt(request, [], secrets, scrub)
    let final: Answer<T>
    if (first.ok) {
      final = first
    } else {
      const second = await this.#attempt(
        request,
        [
          { role: 'assistant', content: first.text },
          {
            role: 'user',
            content:
              `Your previous answer could not be used: ${first.problem}\n` +
              `Answer again with only a JSON object matching the "${request.schemaName}" schema, and no other text.`,
          },
        ],
        secrets,
        scrub,
      )
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

  async #attempt<T>(
    request: JudgeRequest<T>,
    followUp: readonly JudgeMessage[],
    secrets: readonly string[],
    scrub: (text: string) => string,
  ): Promise<Attempt<T>> {
    const { schema, schemaName, topLogprobs, signal } = request
    const deadline = Date.now() + this.#site.timeoutMs
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
    const history: CallHistory = { retries: 0 }
    const retries = { maxRetries: this.#site.maxRetries, deadline, signal: abortSignal, history }
    try {
      result = await withRetries(
        () =>
          generateText({
            model: this.#model,
            // Judge prompts are judgetree's own, never user-editable chat history: their system message is trusted.
            allowSystemInMessages: true,
            messages: [...this.#prompt(request), ...followUp].map((message) => ({
              role: message.role,
              content: message.content,
            })),
            ...(refused ? {} : { output: Output.object({ schema, name: schemaName }) }),
            temperature: this.#options.temperature ?? request.defaultTemperature ?? 0,
            // The retries are withRetries', so that each failure is seen and worded from what happened.
            maxRetries: 0,
            abortSignal,
            ...(Object.keys(providerOptions).length === 0
              ? {}
              : { providerOptions: providerOptions as Record<string, Record<string, never>> }),
          }),
        retries,
      )
    } catch (error) {
      if (NoObjectGeneratedError.isInstance(error)) return this.#unusable(error, request, secrets, scrub)
      const schemaRefusal = refused ? undefined : schemaRejection(error, scrub)
      if (schemaRefusal !== undefined && this.#options.structuredOutputs !== 'required') {
        this.#refuseSchema(schemaName, schemaRefusal)
        return this.#attempt(request, followUp, secrets, scrub)
      }
      const rejection = wantsLogprobs ? logprobsRejection(error, scrub) : undefined
      if (rejection !== undefined) {
        // As OpenAIJudge: a model that refuses logprobs still answers without them, and is not asked for them again.
        this.#logprobsRejected = `the model "${this.name}" does not accept logprobs (${rejection}), so it is asked without them`
        return this.#attempt(request, followUp, secrets, scrub)
      }
      if (wantsLogprobs && malformedLogprobs(error)) {
        // The provider refuses the whole response when its logprobs do not match its schema (a null logprob), so the
        // answer is lost: asked again without them, and not asked for them again, rather than failing the measurement.
        this.#logprobsRejected =
          `the model "${this.name}" (AI SDK provider ${this.#model.provider}) sent malformed logprobs, which the ` +
          'provider could not read, so it is asked without them'
        return this.#attempt(request, followUp, secrets, scrub)
      }
      throw toCallError(error, this.#site, signal, timeout, history, scrub)
    }
    if (!refused) this.#noteSchemaNotTaken(result.warnings, scrub)
    const text = scrub(result.text)
    // Parsed values reach traces and reports, so the answer is read from the scrubbed text, not the SDK's output.
    const parsed = parseJudgeAnswer(text, schema)
    if (!parsed.ok) {
      return { ok: false, problem: parsed.problem, text, ...tokensOf(result.usage) }
    }
    const logprobs = wantsLogprobs ? readLogprobs(result.providerMetadata) : undefined
    return {
      ok: true,
      // Escapes in the JSON (`\u0073k-…`) decode into a key only when parsed: the value is scrubbed as well.
      value: scrubValue(parsed.value, secrets),
      text,
      ...tokensOf(result.usage),
      servedModel: result.response.modelId,
      logprobs: logprobs === undefined ? undefined : scrubTokens(logprobs, secrets),
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
  #noteSchemaNotTaken(warnings: readonly unknown[] | undefined, scrub: (text: string) => string): void {
    if (this.#schemaNotTaken !== undefined) return
    const warning = (warnings ?? []).find(
      (candidate): candidate is { feature: string; details?: string } =>
        typeof candidate === 'object' &&
        candidate !== null &&
        (candidate as { type?: unknown }).type === 'unsupported' &&
        (candidate as { feature?: unknown }).feature === 'responseFormat',
    )
    if (warning === undefined) return
    const words = scrub(warning.details ?? 'responseFormat is unsupported')
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
  #unusable<T>(
    error: NoObjectGeneratedError,
    request: JudgeRequest<T>,
    secrets: readonly string[],
    scrub: (text: string) => string,
  ): Attempt<T> {
    const text = scrub(error.text ?? '')
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
    // As in #attempt: escapes decode into the key only when parsed, so the value is scrubbed too.
    const value = scrubValue(parsed.value, secrets)
    return { ok: true, value, text, ...tokens, servedModel: error.response?.modelId, logprobs: undefined }
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
function logprobsRejection(error: unknown, scrub: (text: string) => string): string | undefined {
  const last = RetryError.isInstance(error) ? error.lastError : error
  if (!APICallError.isInstance(last) || last.statusCode !== 400) return undefined
  return /logprobs/i.test(`${last.message} ${last.responseBody ?? ''}`) ? scrub(last.message) : undefined
}

/** A 2xx response the provider refused because its logprobs did not match its schema (not a body cut short). */
function malformedLogprobs(error: unknown): boolean {
  const last = RetryError.isInstance(error) ? error.lastError : error
  return (
    APICallError.isInstance(last) &&
    last.statusCode !== undefined &&
    last.statusCode >= 200 &&
    last.statusCode < 300 &&
    TypeValidationError.isInstance(last.cause) &&
    /"logprobs"\s*:\s*\{/.test(last.responseBody ?? '')
  )
}

/** The server's words when it answered 400 (or 422) to the JSON schema response format, else undefined. */
function schemaRejection(error: unknown, scrub: (text: string) => string): string | undefined {
  const last = RetryError.isInstance(error) ? error.lastError : error
  if (!APICallError.isInstance(last) || (last.statusCode !== 400 && last.statusCode !== 422)) return undefined
  return /response_format|json_schema|structured output/i.test(`${last.message} ${last.responseBody ?? ''}`)
    ? scrub(last.message)
    : undefined
}

function tokensOf(usage: { inputTokens: number | undefined; outputTokens: number | undefined } | undefined) {
  return { promptTokens: usage?.inputTokens ?? 0, completionTokens: usage?.outputTokens ?? 0 }
}

/**
 * Host and path of the API root when the provider shows it, so two servers with the same model id never share cache
 * entries. No query string or credentials are kept.
 */
function endpointOf(model: LanguageModelObject): string | undefined {
  const url = urlOf(model)
  return url === undefined ? undefined : `${url.host}${url.pathname.replace(/\/+$/, '')}`
}
