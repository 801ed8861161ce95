import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, OpenAIError } from 'openai'
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions'
import { ConfigurationError, JudgeCallError, JudgeOutputError, MeasurementAbortedError } from '../errors.js'
import { nonEmpty, readEnv } from '../internal/env.js'
import { scrubSecrets, scrubTokens, scrubValue } from '../internal/scrub.js'
import { answerExcerpt, parseJudgeAnswer, withSchemaInstruction } from './answer.js'
import { BodyFailure, bodyRetryDelay, readCompletionBody, sleep } from './completion-body.js'
import { DEFAULT_JUDGE_MAX_RETRIES, DEFAULT_JUDGE_TIMEOUT_MS } from './default-timing.js'
import { judgeJsonSchema } from './json-schema.js'
import {
  leavingRateLimitsToTheRuntime,
  rejectsLogprobs,
  rejectsSchema,
  retryAfterOf,
  rootMessage,
  statusHint,
} from './openai-errors.js'
import { azureDeploymentOf, checkBaseURL, endpointOf, hostOf, validateOptions } from './openai-options.js'
import { costOf, type ModelPrice } from './pricing.js'
import { readTokenLogprobs } from './token-logprobs.js'
import type { JudgeMessage, JudgeModel, JudgeRequest, JudgeResponse, TokenLogprob } from './types.js'

/** Options of {@link OpenAIJudge}; every one has a default, most read from the environment. */
export interface OpenAIJudgeOptions {
  /** @default process.env.JUDGETREE_MODEL ?? 'gpt-4.1' */
  model?: string | undefined
  /** @default process.env.OPENAI_API_KEY; 'not-needed' when only a base URL is set (local servers ignore keys) */
  apiKey?: string | undefined
  /** Any OpenAI-compatible server (Azure, Ollama, vLLM, LM Studio). @default process.env.OPENAI_BASE_URL, else the SDK's */
  baseURL?: string | undefined
  /** Milliseconds one attempt may take before it is abandoned (and retried). @default 60_000 */
  timeoutMs?: number | undefined
  /**
   * Retries of a failed call. The SDK retries 5xx, timeouts and connection errors; a 429 is retried by the judge
   * runtime instead, after the server's Retry-After, which then pauses every worker of the run (with your own
   * `client`, the SDK retries 429s too, and only its last one pauses the run). @default 3
   */
  maxRetries?: number | undefined
  /** @default 0 */
  temperature?: number | undefined
  /**
   * 'auto' asks with a strict JSON schema and, for a schema the server refuses, falls back to JSON mode: warned once
   * per schema, and every result made that way says so. 'json_schema' makes a refusal an error. @default 'auto'
   */
  structuredOutputs?: 'auto' | 'json_schema' | 'json_object' | undefined
  /** Prices added to (or overriding) the built-in DEFAULT_MODEL_PRICES, keyed by model name. @default {} */
  pricing?: Readonly<Record<string, ModelPrice>> | undefined
  /** Replaces the global fetch, e.g. to add a proxy. @default globalThis.fetch */
  fetch?: typeof fetch | undefined
  /**
   * A preconfigured SDK client, e.g. `new AzureOpenAI({ endpoint, deployment, apiVersion })`; apiKey, baseURL and
   * fetch are then ignored. @default a client built from the options
   */
  client?: OpenAI | undefined
  /** Where the one warning per refused schema goes (never stdout). @default console.warn */
  warn?: ((message: string) => void) | undefined
  /**
   * Keeps this judge's cached answers apart from those of judges with another namespace. The cache key holds what
   * changes an answer (model, sampling, prompt, schema), not the server's address, so a recording made through
   * one base URL replays through any other, or none; name a namespace when two servers answer one model name
   * differently (e.g. `'ollama-q4'` and `'ollama-q8'`). @default none
   */
  cacheNamespace?: string | undefined
}

interface Connection {
  readonly client: OpenAI
  readonly host: string
  readonly maxRetries: number
  readonly scrub: (text: string) => string
  readonly secret: string | null | undefined
}

interface Completion {
  readonly content: string
  readonly promptTokens: number
  readonly completionTokens: number
  readonly servedModel: string
  readonly logprobs: readonly TokenLogprob[] | undefined
  /** Why the logprobs the server sent were not read (they were malformed). */
  readonly logprobsIgnored: string | undefined
  /** Why this answer was asked for in JSON mode although strict structured outputs were wanted. */
  readonly jsonModeBecause: string | undefined
}

const DEFAULT_MODEL = 'gpt-4.1'
/** CR, LF, NUL and the other C0 controls (and DEL): no HTTP header can carry them. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/
const MAX_TOP_LOGPROBS = 20

/** A judge backed by the OpenAI Chat Completions API or any server that speaks it. */
export class OpenAIJudge implements JudgeModel {
  readonly name: string
  /**
   * What else decides the answers, for the judge cache: model, sampling, output mode, an Azure deployment and the
   * `cacheNamespace`; never the key, nor the server's address (see `endpoint`).
   */
  readonly cacheIdentity: Readonly<Record<string, string | number>>
  /** 429s are retried by the judge runtime (so one pause holds every worker), not by the SDK. */
  readonly rateLimitRetries: number
  /** Host and path of the API the calls go to (no credentials), named in messages and cache entries; not in the key. */
  readonly endpoint: string
  readonly #options: OpenAIJudgeOptions
  readonly #timeoutMs: number
  /** Why each schema the server refused is asked for in JSON mode, by schema name: set once, at the refusal. */
  readonly #jsonModeSchemas = new Map<string, string>()
  /** Why this model gets no logprobs request: set once the server rejected one. */
  #logprobsRejected: string | undefined
  #connection: Connection | undefined

  constructor(options: OpenAIJudgeOptions = {}) {
    validateOptions(options)
    const envBaseURL = readEnv('OPENAI_BASE_URL')
    if (options.client === undefined && nonEmpty(options.baseURL) === undefined && envBaseURL !== undefined) {
      checkBaseURL(envBaseURL, 'OPENAI_BASE_URL')
    }
    this.#options = options
    this.name = options.model ?? readEnv('JUDGETREE_MODEL') ?? DEFAULT_MODEL
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_JUDGE_TIMEOUT_MS
    this.rateLimitRetries = options.client === undefined ? (options.maxRetries ?? DEFAULT_JUDGE_MAX_RETRIES) : 0
    const deployment = azureDeploymentOf(options.client)
    this.endpoint = endpointOf(
      options.client?.baseURL ?? nonEmpty(options.baseURL) ?? readEnv('OPENAI_BASE_URL'),
      deployment,
    )
    this.cacheIdentity = Object.freeze({
      model: this.name,
      temperature: options.temperature ?? 0,
      structuredOutputs: options.structuredOutputs ?? 'auto',
      // One judge name may front different models in different deployments.
      ...(deployment === undefined ? {} : { deployment }),
      ...(options.cacheNamespace === undefined ? {} : { namespace: options.cacheNamespace }),
    })
  }

  async generate<T>(request: JudgeRequest<T>): Promise<JudgeResponse<T>> {
    if (request.signal?.aborted) throw new MeasurementAbortedError(request.signal.reason)
    const connection = this.#connect()
    const first = await this.#complete(connection, request, [])
    const firstAnswer = parseJudgeAnswer(first.content, request.schema)
    let final = first
    let value: T
    if (firstAnswer.ok) {
      value = firstAnswer.value
    } else {
      const reask: JudgeMessage[] = [
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content:
            `Your previous answer could not be used: ${firstAnswer.problem}\n` +
            `Answer again with only a JSON object matching the "${request.schemaName}" schema, and no other text.`,
        },
      ]
      final = await this.#complete(connection, request, reask)
      const secondAnswer = parseJudgeAnswer(final.content, request.schema)
      if (!secondAnswer.ok) {
        const raw = connection.scrub(final.content)
        throw new JudgeOutputError(
          `The judge model "${this.name}" did not answer with valid "${request.schemaName}" JSON, even after being ` +
            `asked again: ${connection.scrub(secondAnswer.problem)}\nRaw answer: ${answerExcerpt(raw)}`,
          raw,
        )
      }
      value = secondAnswer.value
    }
    const promptTokens = first.promptTokens + (final === first ? 0 : final.promptTokens)
    const completionTokens = first.completionTokens + (final === first ? 0 : final.completionTokens)
    const costUsd =
      costOf(this.name, promptTokens, completionTokens, this.#options.pricing) ??
      costOf(final.servedModel, promptTokens, completionTokens, this.#options.pricing)
    return {
      // The raw text is scrubbed before parsing, but escapes (`\u0073k-…`) decode into the key only when parsed.
      value: scrubValue(value, connection.secret),
      usage: { promptTokens, completionTokens, costUsd },
      logprobs: final.logprobs,
      cached: false,
      rawText: connection.scrub(final.content),
      ...this.#logprobsUnavailable(request, final),
      ...((first.jsonModeBecause ?? final.jsonModeBecause) !== undefined
        ? { structuredOutputsUnavailable: first.jsonModeBecause ?? final.jsonModeBecause }
        : {}),
    }
  }

  /**
   * Asks for `count` samples of one request in one call (`n`), so the prompt is paid once: trials use it. A sample
   * that cannot be used (invalid JSON, a refusal) and samples a server did not return (some compatible servers
   * ignore `n`) are asked for again one call each. The first response carries the prompt tokens; the completion
   * tokens and their cost are shared evenly.
   */
  async generateSamples<T>(request: JudgeRequest<T>, count: number): Promise<readonly JudgeResponse<T>[]> {
    if (!(Number.isInteger(count) && count >= 1)) {
      throw new ConfigurationError(
        `generateSamples(request, count) needs a whole number count from 1 and up, got ${count}.`,
      )
    }
    if (count === 1) return [await this.generate(request)]
    if (request.signal?.aborted) throw new MeasurementAbortedError(request.signal.reason)
    const connection = this.#connect()
    const first = await this.#complete(connection, request, [], count)
    const { completion, jsonModeBecause } = first
    const promptTokens = first.promptTokens
    const share = (total: number, position: number) => Math.floor(total / count) + (position < total % count ? 1 : 0)
    const samples = Array.from({ length: count }, async (_, position): Promise<JudgeResponse<T>> => {
      let read: Omit<Completion, 'jsonModeBecause'> | undefined
      try {
        read = this.#readCompletion(completion, connection, request.schemaName, position)
      } catch {
        read = undefined
      }
      const answer = read === undefined ? undefined : parseJudgeAnswer(read.content, request.schema)
      const sampleCompletion = share(first.completionTokens, position)
      const samplePrompt = position === 0 ? promptTokens : 0
      const costUsd =
        costOf(this.name, samplePrompt, sampleCompletion, this.#options.pricing) ??
        costOf(first.servedModel, samplePrompt, sampleCompletion, this.#options.pricing)
      if (read === undefined || answer === undefined || !answer.ok) {
        // An unusable or missing sample is asked for alone, with the usual re-ask: it then made a call of its own,
        // and still carries its share of the call that returned it.
        const again = await this.generate(request)
        const usage = again.usage
        return {
          ...again,
          usage: {
            promptTokens: usage.promptTokens + samplePrompt,
            completionTokens: usage.completionTokens + sampleCompletion,
            costUsd: usage.costUsd === undefined || costUsd === undefined ? undefined : usage.costUsd + costUsd,
          },
        }
      }
      return {
        // As in generate: escapes that decode into the key only when parsed are caught in the parsed value.
        value: scrubValue(answer.value, connection.secret),
        usage: { promptTokens: samplePrompt, completionTokens: sampleCompletion, costUsd },
        logprobs: read.logprobs,
        cached: false,
        rawText: read.content,
        ...(position > 0 ? { extraSample: true } : {}),
        ...this.#logprobsUnavailable(request, read),
        ...(jsonModeBecause !== undefined ? { structuredOutputsUnavailable: jsonModeBecause } : {}),
      }
    })
    return Promise.all(samples)
  }

  /** Why an answer carries no logprobs although the request asked for them: the model refused, or sent them malformed. */
  #logprobsUnavailable(
    request: JudgeRequest<unknown>,
    completion: Pick<Completion, 'logprobsIgnored'>,
  ): { logprobsUnavailable?: string } {
    if (request.topLogprobs === undefined) return {}
    const why = this.#logprobsRejected ?? completion.logprobsIgnored
    return why === undefined ? {} : { logprobsUnavailable: why }
  }

  /**
   * Takes this judge's key (from its client, `apiKey` or OPENAI_API_KEY, in any encoding) out of a text: the runtime
   * applies it to every cache entry it writes, behind the scrubbing of every answer.
   */
  scrubSecrets(text: string): string {
    try {
      return this.#connect().scrub(text)
    } catch {
      // No client can be made (no key, a malformed one): there is no key of this judge to take out.
      return scrubSecrets(text)
    }
  }

  /** The client is built on first use so that constructing a judge at import time never needs a key. */
  #connect(): Connection {
    if (this.#connection !== undefined) return this.#connection
    const options = this.#options
    let client = options.client
    let secret: string | null | undefined = client?.apiKey
    if (client === undefined) {
      const baseURL = nonEmpty(options.baseURL) ?? readEnv('OPENAI_BASE_URL')
      secret = nonEmpty(options.apiKey) ?? readEnv('OPENAI_API_KEY')
      if (secret !== undefined && CONTROL_CHARACTER.test(secret)) {
        // Never echoed: the SDK's own header error would print the whole key.
        throw new ConfigurationError(
          `The API key for the judge model "${this.name}" (${options.apiKey === undefined ? 'OPENAI_API_KEY' : 'the apiKey option'}) ` +
            'contains a control character (a line break, tab or NUL inside it), so it cannot be sent in an HTTP ' +
            'header.',
          { advice: 'Check how it was copied or read from its file.' },
        )
      }
      if (baseURL !== undefined) checkBaseURL(baseURL, options.baseURL === undefined ? 'OPENAI_BASE_URL' : 'baseURL')
      if (secret === undefined && baseURL === undefined) {
        throw new ConfigurationError(`The judge model "${this.name}" has no API key.`, {
          advice:
            'Set OPENAI_API_KEY, or set OPENAI_BASE_URL to a local OpenAI-compatible server (any key, or none), or ' +
            'pass `apiKey` to OpenAIJudge, or pass your own judge (any object implementing JudgeModel) as the ' +
            'metric’s model.',
        })
      }
      try {
        client = new OpenAI({
          apiKey: secret ?? 'not-needed',
          baseURL: baseURL ?? null,
          timeout: this.#timeoutMs,
          maxRetries: options.maxRetries ?? DEFAULT_JUDGE_MAX_RETRIES,
          fetch: leavingRateLimitsToTheRuntime(options.fetch),
        })
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        throw new ConfigurationError(`Could not create the OpenAI client: ${scrubSecrets(message, secret)}`)
      }
    }
    this.#connection = {
      client,
      host: hostOf(client.baseURL),
      maxRetries: options.maxRetries ?? client.maxRetries,
      scrub: (text) => scrubSecrets(text, secret),
      secret,
    }
    return this.#connection
  }

  async #complete<T>(
    connection: Connection,
    request: JudgeRequest<T>,
    followUp: readonly JudgeMessage[],
    samples = 1,
  ): Promise<Completion & { readonly completion: ChatCompletion }> {
    const jsonModeBecause = this.#jsonModeSchemas.get(request.schemaName)
    const format =
      this.#options.structuredOutputs === 'json_object' || jsonModeBecause !== undefined ? 'json_object' : 'json_schema'
    const schema = judgeJsonSchema(request.schema, request.schemaName)
    const messages = format === 'json_object' ? withSchemaInstruction(request.messages, schema) : request.messages
    const params: ChatCompletionCreateParamsNonStreaming = {
      model: this.name,
      messages: [...messages, ...followUp].map(toMessageParam),
      temperature: this.#options.temperature ?? request.defaultTemperature ?? 0,
      ...(samples > 1 ? { n: samples } : {}),
      response_format:
        format === 'json_schema'
          ? { type: 'json_schema', json_schema: { name: request.schemaName, schema, strict: true } }
          : { type: 'json_object' },
      ...(request.topLogprobs === undefined || this.#logprobsRejected !== undefined
        ? {}
        : { logprobs: true, top_logprobs: Math.min(request.topLogprobs, MAX_TOP_LOGPROBS) }),
    }
    let completion: ChatCompletion
    try {
      completion = await this.#post(connection, params, request.signal)
    } catch (error) {
      if (format === 'json_schema' && this.#options.structuredOutputs !== 'json_schema' && rejectsSchema(error)) {
        // JSON mode plus our own validation is the next best thing, for this schema only: one schema the server
        // cannot take says nothing about the others.
        this.#fallBackToJsonMode(request.schemaName, connection, error as APIError)
        return this.#complete(connection, request, followUp, samples)
      }
      if (params.logprobs && rejectsLogprobs(error)) {
        // Some models (reasoning models, many local servers) refuse logprobs; the answer is still usable without them.
        const detail = connection.scrub((error as APIError).message.replace(/^400 /, ''))
        this.#logprobsRejected = `the model "${this.name}" does not accept logprobs (${detail}), so it is asked without them`
        return this.#complete(connection, request, followUp, samples)
      }
      throw this.#callError(error, connection, request.signal)
    }
    return { ...this.#readCompletion(completion, connection, request.schemaName), jsonModeBecause, completion }
  }

  /**
   * One completion, with the SDK's retries for failures before the answer and ours for failures while reading it:
   * the SDK reads the body outside its retry loop, so a connection reset mid-body or a truncated body would
   * otherwise end the measurement at the first occurrence. Both are retried up to maxRetries times, with backoff.
   */
  async #post(
    connection: Connection,
    params: ChatCompletionCreateParamsNonStreaming,
    signal: AbortSignal | undefined,
  ): Promise<ChatCompletion> {
    for (let retry = 0; ; retry++) {
      // The SDK's timeout ends when the headers arrive; this controller also bounds reading the body.
      const body = new AbortController()
      const relay = (): void => body.abort(signal?.reason)
      signal?.addEventListener('abort', relay, { once: true })
      let read: Awaited<ReturnType<typeof readCompletionBody>>
      try {
        const response = await connection.client.chat.completions
          .create(params, {
            signal: body.signal,
            timeout: this.#timeoutMs,
            ...(this.#options.maxRetries === undefined ? {} : { maxRetries: this.#options.maxRetries }),
          })
          .asResponse()
        read = await readCompletionBody(response, signal, body, this.#timeoutMs)
      } finally {
        signal?.removeEventListener('abort', relay)
      }
      if ('completion' in read) return read.completion
      if (retry >= connection.maxRetries) throw read.failure
      await sleep(bodyRetryDelay(retry), signal)
    }
  }

  #fallBackToJsonMode(schemaName: string, connection: Connection, error: APIError): void {
    // Calls in flight when the server refused may be refused too; the first one decides and warns.
    if (this.#jsonModeSchemas.has(schemaName)) return
    const detail = connection.scrub(error.message.replace(/^\d{3} /, ''))
    this.#jsonModeSchemas.set(
      schemaName,
      `the judge model "${this.name}" refused the strict JSON schema "${schemaName}" (${detail}), so it answered in ` +
        'JSON mode and the answer was checked only against the local validation',
    )
    const warn = this.#options.warn ?? ((message: string) => console.warn(message))
    warn(
      `judgetree: the judge model "${this.name}" at ${connection.host} refused the strict JSON schema ` +
        `"${schemaName}": ${detail}\nIts "${schemaName}" answers are asked for in JSON mode from now on and checked ` +
        'only against the local validation; every result made that way says so. Pass ' +
        "`structuredOutputs: 'json_schema'` to the judge to make this an error instead.",
    )
  }

  #readCompletion(
    completion: ChatCompletion,
    connection: Connection,
    schemaName: string,
    index = 0,
  ): Omit<Completion, 'jsonModeBecause'> {
    const where = `The judge model "${this.name}" at ${connection.host}`
    // Compatible servers do not always follow the typed shape, so nothing here is taken on trust.
    const choice = (completion.choices ?? []).find((entry, position) => (entry?.index ?? position) === index)
    if (choice === undefined) {
      throw new JudgeCallError(`${where} returned no choices, so there is no answer to read. Check the server's logs.`)
    }
    const content = choice.message?.content ?? null
    const raw = connection.scrub(content ?? '')
    if (choice.finish_reason === 'length') {
      throw new JudgeOutputError(
        `${where} was cut off at its output token limit (finish_reason 'length') before finishing the ` +
          `"${schemaName}" answer. Raise the server's max output tokens or shorten the input. ` +
          `Raw answer: ${answerExcerpt(raw)}`,
        raw,
      )
    }
    if (choice.message?.refusal) {
      const refusal = connection.scrub(choice.message.refusal)
      throw new JudgeOutputError(`${where} refused to give the "${schemaName}" answer: "${refusal}"`, refusal)
    }
    if (choice.finish_reason === 'content_filter') {
      throw new JudgeOutputError(
        `${where} stopped the "${schemaName}" answer with its content filter (finish_reason 'content_filter'). ` +
          `Raw answer: ${answerExcerpt(raw)}`,
        raw,
      )
    }
    if (content === null) {
      throw new JudgeOutputError(`${where} answered with no content where the "${schemaName}" JSON was expected.`, '')
    }
    const read = readTokenLogprobs((choice.logprobs as { content?: unknown } | null | undefined)?.content)
    return {
      // Parsed values reach traces and reports, so the answer is scrubbed before it is parsed, not only when shown.
      content: raw,
      promptTokens: completion.usage?.prompt_tokens ?? 0,
      completionTokens: completion.usage?.completion_tokens ?? 0,
      servedModel: completion.model ?? this.name,
      // Tokens reach results and cache files; a key can be split across several of them.
      logprobs: read.logprobs === undefined ? undefined : scrubTokens(read.logprobs, connection.secret),
      logprobsIgnored:
        read.problem === undefined
          ? undefined
          : `the judge model "${this.name}" at ${connection.host} sent malformed logprobs ` +
            `(${connection.scrub(read.problem)}), so they were not read`,
    }
  }

  #callError(error: unknown, connection: Connection, signal: AbortSignal | undefined): Error {
    if (error instanceof APIUserAbortError || signal?.aborted) return new MeasurementAbortedError(signal?.reason)
    const where = `The judge model "${this.name}" at ${connection.host}`
    const retries = `after ${connection.maxRetries} ${connection.maxRetries === 1 ? 'retry' : 'retries'}`
    if (error instanceof BodyFailure) {
      const what =
        error.kind === 'reset'
          ? `: the connection was reset mid-response, while the answer was being read (${connection.scrub(error.detail)})`
          : error.kind === 'stalled'
            ? ` stopped sending the answer mid-body: ${error.detail}`
            : ` sent a ${error.kind === 'truncated' ? 'truncated body' : 'body that is not JSON'} (not valid JSON: ${error.detail})`
      return new JudgeCallError(
        `${where}${what}, ${retries}. A proxy, a load balancer or the server cut the answer short; raise ` +
          'maxRetries if it keeps happening.',
      )
    }
    if (!(error instanceof OpenAIError)) {
      // Whatever else the SDK throws (a header it cannot build, a bug) may quote the request: scrubbed, like the rest.
      const cause = new Error(connection.scrub(error instanceof Error ? error.message : String(error)))
      if (error instanceof Error) cause.name = error.name
      return new JudgeCallError(`${where} could not be called: ${cause.message}`, { cause })
    }
    // A server may echo the request (and so the key) in its error text; only a scrubbed copy leaves this method.
    const cause = new Error(connection.scrub(error.message))
    cause.name = error.name
    if (error instanceof APIConnectionTimeoutError) {
      return new JudgeCallError(
        `${where} did not answer within ${this.#timeoutMs} ms (timeoutMs), ${retries}. ` +
          'Raise timeoutMs, or shorten the input.',
        { cause },
      )
    }
    if (error instanceof APIConnectionError) {
      return new JudgeCallError(
        `${where} could not be reached, ${retries}: ${connection.scrub(rootMessage(error))}. ` +
          'Check the network and OPENAI_BASE_URL (or the baseURL option).',
        { cause },
      )
    }
    if (error instanceof APIError && error.status !== undefined) {
      const status = error.status
      const detail = connection.scrub(error.message.replace(new RegExp(`^${status} `), ''))
      const hint = statusHint(status, detail, retries)
      // A refused key is refused for every call of the run: its advice is said once per run (JudgetreeError.advice).
      if (status === 401 && hint !== undefined) {
        return new JudgeCallError(`${where} answered HTTP ${status}: ${detail}`, { cause, status, advice: hint })
      }
      return new JudgeCallError(`${where} answered HTTP ${status}: ${detail}${hint ? `\n${hint}` : ''}`, {
        cause,
        status,
        retryAfterMs: retryAfterOf(error.headers),
      })
    }
    return new JudgeCallError(`${where} could not be called: ${connection.scrub(error.message)}`, { cause })
  }
}

function toMessageParam(message: JudgeMessage): ChatCompletionMessageParam {
  return { role: message.role, content: message.content }
}
