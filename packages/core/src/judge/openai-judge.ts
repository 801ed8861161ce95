// OpenAIJudge: the Chat Completions transport of the judge protocol (structured-judge.ts), through the official SDK.
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai'
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions'
import { JudgeCallError, JudgeOutputError } from '../errors.js'
import { nonEmpty, readEnv } from '../internal/env.js'
import { BodyFailure, postReadingBody } from './completion-body.js'
import { DEFAULT_JUDGE_MAX_RETRIES, DEFAULT_JUDGE_TIMEOUT_MS } from './default-timing.js'
import { retryAfterOf, rootMessage, type TransportFailure } from './failures.js'
import { shutdownDateOf } from './model-shutdown.js'
import {
  azureDeploymentOf,
  type Connection,
  checkBaseURL,
  connect,
  endpointOf,
  type OpenAIJudgeOptions,
  validateOptions,
} from './openai-options.js'
import { refusalIn } from './prompt-schema-fallback.js'
import {
  type JudgeTransport,
  SamplingJudge,
  type TransportCall,
  type TransportCompletion,
  type TransportSample,
} from './structured-judge.js'
import { readTokenLogprobs } from './token-logprobs.js'

export type { OpenAIJudgeOptions, ReasoningEffort } from './openai-options.js'

const DEFAULT_MODEL = 'gpt-6-luna'

/** A judge backed by the OpenAI Chat Completions API or any server that speaks it. */
export class OpenAIJudge extends SamplingJudge {
  /**
   * What else decides the answers, for the judge cache: model, sampling, output mode, an Azure deployment and the
   * `cacheNamespace`; never the key, nor the server's address (see `endpoint`).
   */
  declare readonly cacheIdentity: Readonly<Record<string, string | number>>
  /** 429s are retried by the judge runtime (so one pause holds every worker), not by the SDK. */
  declare readonly rateLimitRetries: number
  /** Host and path of the API the calls go to (no credentials), named in messages and cache entries; not in the key. */
  declare readonly endpoint: string

  constructor(options: OpenAIJudgeOptions = {}) {
    super(openAITransport(options))
  }
}

/** The transport: one Chat Completions request per call, its body read and retried here when cut short. */
function openAITransport(options: OpenAIJudgeOptions): JudgeTransport {
  validateOptions(options)
  const envBaseURL = readEnv('OPENAI_BASE_URL')
  if (options.client === undefined && nonEmpty(options.baseURL) === undefined && envBaseURL !== undefined) {
    checkBaseURL(envBaseURL, 'OPENAI_BASE_URL')
  }
  const name = options.model ?? readEnv('JUDGETREE_MODEL') ?? DEFAULT_MODEL
  const reasoningEffort = nonEmpty(options.reasoningEffort) ?? readEnv('JUDGETREE_REASONING_EFFORT')
  const timeoutMs = options.timeoutMs ?? DEFAULT_JUDGE_TIMEOUT_MS
  const deployment = azureDeploymentOf(options.client)
  // The client is built on first use so that constructing a judge at import time never needs a key.
  let connection: Connection | undefined
  const connected = () => {
    connection ??= connect(options, name, timeoutMs)
    return connection
  }
  const where = () => `The judge model "${name}" at ${connected().host}`

  /** One completion, its body read and retried (postReadingBody) when cut short. */
  function post(params: ChatCompletionCreateParamsNonStreaming, signal: AbortSignal | undefined) {
    const { client, maxRetries } = connected()
    const sdkOptions = (body: AbortSignal) => ({
      signal: body,
      timeout: timeoutMs,
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    })
    const send = (body: AbortSignal) => client.chat.completions.create(params, sdkOptions(body))
    return postReadingBody<ChatCompletion>(send, { signal, timeoutMs, maxRetries })
  }

  /** One choice of the completion, or why it cannot be used. Compatible servers do not always follow the typed shape. */
  function sampleOf(completion: ChatCompletion, index: number): TransportSample | Error {
    const at = where()
    const choice = (completion.choices ?? []).find((entry, position) => (entry?.index ?? position) === index)
    if (choice === undefined) {
      return new JudgeCallError(`${at} returned no choices, so there is no answer to read. Check the server's logs.`)
    }
    const { content = null, refusal } = choice.message ?? {}
    const finishReason = choice.finish_reason
    if (finishReason === 'length') return { text: content ?? '', stopped: 'length', finishReason }
    if (refusal) return { text: refusal, stopped: 'refused' }
    if (finishReason === 'content_filter') return { text: content ?? '', stopped: 'refused', finishReason }
    if (content === null) {
      return new JudgeOutputError(`${at} answered with no content where the JSON was expected.`, '')
    }
    const read = readTokenLogprobs((choice.logprobs as { content?: unknown } | null | undefined)?.content)
    return {
      text: content,
      logprobs: read.logprobs,
      logprobsProblem:
        read.problem === undefined
          ? undefined
          : `the judge model "${name}" at ${connected().host} sent malformed logprobs (${read.problem}), so they were not read`,
    }
  }

  return {
    name,
    cacheIdentity: Object.freeze({
      model: name,
      temperature: options.temperature ?? 0,
      structuredOutputs: options.structuredOutputs ?? 'auto',
      // Set only when sent, so that the cache entries of judges without it keep their keys.
      ...(reasoningEffort === undefined ? {} : { reasoningEffort }),
      // One judge name may front different models in different deployments.
      ...(deployment === undefined ? {} : { deployment }),
      ...(options.cacheNamespace === undefined ? {} : { namespace: options.cacheNamespace }),
    }),
    endpoint: endpointOf(options.client?.baseURL ?? nonEmpty(options.baseURL) ?? envBaseURL, deployment),
    rateLimitRetries: options.client === undefined ? (options.maxRetries ?? DEFAULT_JUDGE_MAX_RETRIES) : 0,
    samplesPerCall: true,
    structuredOutputs:
      options.structuredOutputs === 'json_object'
        ? 'json'
        : options.structuredOutputs === 'json_schema'
          ? 'required'
          : 'auto',
    temperature: options.temperature,
    pricing: options.pricing,
    timeoutMs,
    warn: options.warn,
    label: `The judge model "${name}"`,
    where,
    secrets: () => connected().secret,
    shutdownDate: async (signal) => shutdownDateOf(connected().client, name, signal),
    advice: {
      unreachable: 'Check the network and OPENAI_BASE_URL (or the baseURL option).',
      cutShort: '; raise maxRetries if it keeps happening.',
      unauthorized: 'Check that OPENAI_API_KEY (or the apiKey option) holds a valid key for this server.',
      notFound:
        'Check the model name, and that OPENAI_BASE_URL (or the baseURL option) points at the API root, e.g. ending in /v1.',
      rateLimited: () =>
        'Still rate limited after the judge runtime’s retries (up to maxRetries, each after the pause the server asked ' +
        'for): raise maxRetries, lower JUDGETREE_CONCURRENCY or check your quota.',
      temperature: 'This model may not accept that temperature; pass `temperature: 1` to the judge.',
      structuredOutputs:
        "The server may not support structured outputs; pass `structuredOutputs: 'json_object'` to the judge.",
    },
    wording: {
      schemaRefused: (schemaName, detail) => ({
        reason:
          `the judge model "${name}" refused the strict JSON schema "${schemaName}" (${detail}), so it answered in ` +
          'JSON mode and the answer was checked only against the local validation',
        warning:
          `judgetree: the judge model "${name}" at ${connected().host} refused the strict JSON schema ` +
          `"${schemaName}": ${detail}\nIts "${schemaName}" answers are asked for in JSON mode from now on and checked ` +
          'only against the local validation; every result made that way says so. Pass ' +
          "`structuredOutputs: 'json_schema'` to the judge to make this an error instead.",
      }),
    },
    async complete(call): Promise<TransportCompletion> {
      const completion = await post(
        {
          model: name,
          messages: call.messages.map(({ role, content }) => ({ role, content })),
          ...(call.temperature === undefined ? {} : { temperature: call.temperature }),
          // Typed by the SDK as OpenAI's efforts; a compatible server may take others, which are sent as given.
          ...(reasoningEffort === undefined ? {} : { reasoning_effort: reasoningEffort as ReasoningEffortParam }),
          ...(call.n > 1 ? { n: call.n } : {}),
          response_format:
            call.jsonSchema === undefined
              ? { type: 'json_object' }
              : { type: 'json_schema', json_schema: { name: call.schemaName, schema: call.jsonSchema, strict: true } },
          ...(call.topLogprobs === undefined ? {} : { logprobs: true, top_logprobs: call.topLogprobs }),
        },
        call.signal,
      )
      return {
        samples: Array.from({ length: call.n }, (_, index) => sampleOf(completion, index)),
        promptTokens: completion.usage?.prompt_tokens ?? 0,
        completionTokens: completion.usage?.completion_tokens ?? 0,
        cachedPromptTokens: completion.usage?.prompt_tokens_details?.cached_tokens,
        reasoningTokens: completion.usage?.completion_tokens_details?.reasoning_tokens,
        servedModel: completion.model ?? name,
      }
    },
    classify(error, call): TransportFailure {
      const retries = connected().maxRetries
      if (error instanceof APIUserAbortError) return { kind: 'aborted' }
      if (error instanceof BodyFailure) return { kind: 'cut-short', what: error.what, retries }
      // Whatever else the SDK throws (a header it cannot build, a bug) may quote the request: scrubbed, like the rest.
      if (error instanceof APIConnectionTimeoutError) return { kind: 'timeout', retries }
      if (error instanceof APIConnectionError) return { kind: 'unreachable', detail: rootMessage(error), retries }
      if (!(error instanceof APIError) || error.status === undefined) return { kind: 'other' }
      const { status } = error
      const words = `${error.message} ${error.param ?? ''} ${error.code ?? ''}`
      return {
        kind: 'http',
        status,
        detail: error.message.replace(new RegExp(`^${status} `), ''),
        retries,
        retryAfterMs: retryAfterOf(error.headers),
        refuses: refusalIn(status, words, call) ?? (status === 400 ? refusedSetting(error, call) : undefined),
      }
    },
  }
}

type ReasoningEffortParam = NonNullable<ChatCompletionCreateParamsNonStreaming['reasoning_effort']>

/**
 * The sampling setting a 400 refuses, by the parameter it names (OpenAI's `param`, else its message): reasoning
 * models answer `Unsupported value: 'temperature' does not support 0 with this model`.
 */
function refusedSetting(error: APIError, call: TransportCall): 'temperature' | 'n' | undefined {
  const param = error.param ?? ''
  if (param === 'temperature' || (param === '' && /\btemperature\b/i.test(error.message))) return 'temperature'
  if (call.n > 1 && (param === 'n' || (param === '' && /['"`]n['"`]/.test(error.message)))) return 'n'
  return undefined
}
