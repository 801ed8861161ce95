// aiSdkJudge: the judge protocol of @judgetree/core over any Vercel AI SDK language model. This file is the
// transport: one generateText call per request (with the AI SDK's retry policy), and its failures classified.
import { ConfigurationError, JudgeCallError } from '@judgetree/core'
import {
  CallBudget,
  JudgeSecrets,
  type JudgeTransport,
  promptSchemaWording,
  refusalIn,
  retryAfterOf,
  StructuredJudge,
  type TransportCall,
  type TransportFailure,
  type TransportSample,
} from '@judgetree/core/runtime'
import {
  APICallError,
  generateText,
  type LanguageModelUsage,
  LoadAPIKeyError,
  NoObjectGeneratedError,
  Output,
  UnsupportedFunctionalityError,
} from 'ai'
import { type AiSdkJudgeOptions, checkAiSdkJudgeOptions } from './ai-sdk-options.js'
import { assertLanguageModel, type LanguageModelObject } from './internal/language-model.js'
import {
  endpointOf,
  FIRST_RETRY_DELAY_MS,
  firstClassified,
  isRetryable,
  malformedLogprobs,
  providerAdvice,
  providerSecrets,
  readLogprobs,
  returnsLogprobs,
  settingsIgnoredOf,
} from './internal/provider.js'

export type { AiSdkJudgeOptions } from './ai-sdk-options.js'

/** The finish reasons that end an answer for good: the protocol words them (the output limit, a refusal). */
const STOPS = { length: 'length', 'content-filter': 'refused' } as const

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

export function aiSdkTransport(model: LanguageModelObject, options: AiSdkJudgeOptions): JudgeTransport {
  assertLanguageModel(model)
  checkAiSdkJudgeOptions(options)
  const { provider, modelId } = model
  const where = `The judge model "${modelId}" (AI SDK provider ${provider})`
  const endpoint = endpointOf(model, where)
  const timeoutMs = options.timeoutMs ?? 60_000
  const warn = options.warn ?? ((text: string) => console.warn(text))
  const budget = new CallBudget({
    timeoutMs,
    maxRetries: options.maxRetries ?? 2,
    retryable: isRetryable,
    firstDelayMs: FIRST_RETRY_DELAY_MS,
    retryAfterMs: (error) => (APICallError.isInstance(error) ? retryAfterOf(error.responseHeaders) : undefined),
  })
  const noRetry = budget.noRetryWarning(where, "the AI SDK's backoff")
  if (noRetry !== undefined) warn(noRetry)
  const secrets = new JudgeSecrets(options.secrets)
  // Logprobs are asked for only where the provider returns them.
  const logprobsOf = (call: TransportCall) => (returnsLogprobs(provider) ? call.topLogprobs : undefined)
  // Cached prompt and reasoning tokens where the provider reports some: providers such as @ai-sdk/openai say 0 for a
  // count the server never sent, so a 0 is taken as unsaid, like a missing one.
  const usageOf = (usage: LanguageModelUsage | undefined) => ({
    promptTokens: usage?.inputTokens ?? 0,
    completionTokens: usage?.outputTokens ?? 0,
    cachedPromptTokens: usage?.inputTokenDetails?.cacheReadTokens || undefined,
    reasoningTokens: usage?.outputTokenDetails?.reasoningTokens || undefined,
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
    endpoint,
    structuredOutputs: options.structuredOutputs ?? 'auto',
    schemaInPrompt: options.schemaInPrompt,
    temperature: options.temperature,
    pricing: options.pricing,
    timeoutMs,
    warn,
    label: where,
    ...providerSecrets(model, where, secrets),
    advice: {
      ...providerAdvice(
        provider,
        "Check the model id, and the provider's baseURL (for OpenAI-compatible servers, the API root ending in /v1).",
      ),
      temperature: 'This model may not accept that temperature; pass `temperature: 1` to aiSdkJudge.',
      structuredOutputs:
        'The server may not support structured outputs (JSON schema). Leave `structuredOutputs` at its default, ' +
        "'auto', so that aiSdkJudge writes the schema into the prompt instead (and says so in every result).",
      structuredFirst: true,
    },
    wording: {
      ...promptSchemaWording({
        where,
        factory: 'aiSdkJudge',
        reporter: 'the AI SDK',
        structuredOutputs: options.structuredOutputs,
        schemaInPrompt: options.schemaInPrompt,
        supportHint: '(for @ai-sdk/openai-compatible, `supportsStructuredOutputs: true`)',
      }),
      logprobsMissing: () =>
        returnsLogprobs(provider)
          ? `the model "${modelId}" (AI SDK provider ${provider}) returned no logprobs although they were requested`
          : `the AI SDK provider ${provider} returns no logprobs, so "${modelId}" is asked without them`,
      malformedLogprobs:
        `the model "${modelId}" (AI SDK provider ${provider}) sent malformed logprobs, which the ` +
        'provider could not read, so it is asked without them',
    },
    async complete(call) {
      const topLogprobs = logprobsOf(call)
      const providerOptions = {
        ...options.providerOptions,
        ...(topLogprobs === undefined ? {} : { openai: { ...options.providerOptions?.openai, logprobs: topLogprobs } }),
      }
      const request = (abortSignal: AbortSignal) =>
        generateText({
          model,
          // Judge prompts are judgetree's own, never user-editable chat history: their system message is trusted.
          allowSystemInMessages: true,
          messages: call.messages.map(({ role, content }) => ({ role, content })),
          // A schema the server refused is asked for as text; the answer is then checked by the local validation.
          ...(call.jsonSchema === undefined
            ? {}
            : { output: Output.object({ schema: call.schema, name: call.schemaName }) }),
          // A model that ignored the temperature (a reasoning model) is sent none: the protocol marks its results.
          ...(call.temperature === undefined ? {} : { temperature: call.temperature }),
          // The retries are the budget's, so that each failure is seen and worded from what happened.
          maxRetries: 0,
          abortSignal,
          ...(Object.keys(providerOptions).length === 0
            ? {}
            : { providerOptions: providerOptions as Record<string, Record<string, never>> }),
        })
      try {
        const result = await budget.run(call, request)
        const warning = (result.warnings ?? []).find(
          (candidate) => candidate.type === 'unsupported' && candidate.feature === 'responseFormat',
        ) as { details?: string } | undefined
        return {
          samples: [
            {
              text: result.text,
              logprobs: topLogprobs === undefined ? undefined : readLogprobs(result.providerMetadata),
            },
          ],
          ...usageOf(result.usage),
          servedModel: result.response.modelId,
          settingsIgnored: settingsIgnoredOf(result.warnings),
          schemaIgnored: warning === undefined ? undefined : (warning.details ?? 'responseFormat is unsupported'),
        }
      } catch (error) {
        if (!NoObjectGeneratedError.isInstance(error)) throw error
        // The SDK could not read the answer: a refusal or a cut-off is final; anything else gets the protocol's re-ask.
        const { finishReason } = error
        const stopped = STOPS[finishReason as keyof typeof STOPS]
        const sample: TransportSample = { text: error.text ?? '', ...(stopped && { stopped, finishReason }) }
        return { samples: [sample], ...usageOf(error.usage), servedModel: error.response?.modelId }
      }
    },
    classify(error, call): TransportFailure {
      const first = firstClassified(error, call, budget)
      if ('failure' in first) return first.failure
      const { last, retries, skipped } = first
      if (APICallError.isInstance(last)) {
        const status = last.statusCode
        if (status === undefined) {
          return {
            kind: 'unreachable',
            detail: last.message,
            host: URL.canParse(last.url) ? new URL(last.url).host : 'its baseURL',
            retries,
            skipped,
            cause: last,
          }
        }
        const words = `${last.message} ${last.responseBody ?? ''}`
        const topLogprobs = logprobsOf(call)
        const refuses =
          refusalIn(status, words, { jsonSchema: call.jsonSchema, topLogprobs }) ??
          (topLogprobs !== undefined && malformedLogprobs(last) ? 'malformed-logprobs' : undefined)
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
      return { kind: 'other', cause: last }
    },
  }
}
