// aiSdkDecisionJudge: core's decision protocol over any AI SDK decision model (`Experimental_DecisionModelV4`, such as
// `openai.decisionModel('gpt-6-luna')`), through `experimental_decide`: one call per state with every question, the
// AI SDK's answer checks, and our retries and timeout (CallBudget), as aiSdkJudge has them.
import { ConfigurationError, type JudgeQuestion, type ModelPrice } from '@judgetree/core'
import {
  CallBudget,
  cacheNamespaceSchema,
  createDecisionJudge,
  type DecisionAnswer,
  type DecisionCall,
  type DecisionJudge,
  type DecisionTransport,
  expecting,
  JudgeSecrets,
  maxRetriesSchema,
  parseOptions,
  pricingSchema,
  retryAfterOf,
  secretsSchema,
  stateText,
  type TransportFailure,
  timerMsSchema,
} from '@judgetree/core/runtime'
import {
  APICallError,
  type Experimental_DecisionModel,
  type Experimental_DecisionQuestion,
  Experimental_DecisionRefusalError,
  experimental_decide,
  InvalidResponseDataError,
  LoadAPIKeyError,
  TypeValidationError,
} from 'ai'
import { z } from 'zod'
import {
  endpointOf,
  FIRST_RETRY_DELAY_MS,
  firstClassified,
  isRetryable,
  providerAdvice,
  providerSecrets,
} from './internal/provider.js'

/** An AI SDK decision model object, e.g. `openai.decisionModel('gpt-6-luna')`. */
export type DecisionModelObject = Extract<Exclude<Experimental_DecisionModel, string>, { doDecide: unknown }>

/** Options of {@link aiSdkDecisionJudge}. */
export interface AiSdkDecisionJudgeOptions {
  /** Milliseconds one call (its retries included) may take before it is abandoned. @default 60_000 */
  timeoutMs?: number | undefined
  /** Retries for 429, 5xx, connection errors and truncated bodies, with the AI SDK's backoff. @default 2 */
  maxRetries?: number | undefined
  /** Secrets to scrub besides the key the provider sends (each 8 characters or more). @default [] */
  secrets?: readonly string[] | undefined
  /** Decision prices by model id (USD per million tokens), over DEFAULT_DECISION_PRICES. @default {} */
  pricing?: Readonly<Record<string, ModelPrice>> | undefined
  /** Provider options passed to every call, e.g. `{ openai: { promptCacheKey: 'evals' } }`; part of the cache key. */
  providerOptions?: Readonly<Record<string, Readonly<Record<string, unknown>>>> | undefined
  /** Keeps this judge's cached answers apart from those of judges with another namespace. @default none */
  cacheNamespace?: string | undefined
}

const optionsSchema = expecting(
  z.strictObject({
    timeoutMs: timerMsSchema.optional(),
    maxRetries: maxRetriesSchema.optional(),
    secrets: secretsSchema.optional(),
    pricing: pricingSchema.optional(),
    providerOptions: expecting(z.record(z.string(), z.looseObject({})), 'an object keyed by provider name').optional(),
    cacheNamespace: cacheNamespaceSchema.optional(),
  }),
  'an options object (or nothing)',
)

/**
 * Turns any AI SDK decision model into a judgetree decision judge: give it to a metric as `decisionModel`. Its
 * judgements about one state go in one `experimental_decide` call; tasks and steps go to the metric's chat `model`.
 *
 * @example
 * import { openai } from '@ai-sdk/openai'
 * const metric = new DAGMetric({ name: 'Format', dag, decisionModel: aiSdkDecisionJudge(openai.decisionModel('gpt-6-luna')) })
 */
export function aiSdkDecisionJudge(model: DecisionModelObject, options: AiSdkDecisionJudgeOptions = {}): DecisionJudge {
  assertDecisionModel(model)
  parseOptions(optionsSchema, options, 'aiSdkDecisionJudge')
  return createDecisionJudge(decisionTransport(model, options))
}

function decisionTransport(model: DecisionModelObject, options: AiSdkDecisionJudgeOptions): DecisionTransport {
  const { provider, modelId } = model
  const where = `The decision model "${modelId}" (AI SDK provider ${provider})`
  const budget = new CallBudget({
    timeoutMs: options.timeoutMs ?? 60_000,
    maxRetries: options.maxRetries ?? 2,
    retryable: isRetryable,
    firstDelayMs: FIRST_RETRY_DELAY_MS,
    retryAfterMs: (error) => (APICallError.isInstance(error) ? retryAfterOf(error.responseHeaders) : undefined),
  })
  const secrets = new JudgeSecrets(options.secrets)
  const providerOptions = options.providerOptions as Record<string, Record<string, never>> | undefined

  return {
    name: modelId,
    cacheIdentity: Object.freeze({
      provider,
      model: modelId,
      api: 'decisions',
      ...(options.cacheNamespace === undefined ? {} : { namespace: options.cacheNamespace }),
      ...(options.providerOptions === undefined ? {} : { providerOptions: options.providerOptions }),
    }),
    // Decision and language models of one provider build their URLs alike (config.url({ path })).
    endpoint: endpointOf(model as never, where),
    pricing: options.pricing,
    timeoutMs: options.timeoutMs ?? 60_000,
    ...providerSecrets(model, where, secrets),
    advice: {
      ...providerAdvice(
        provider,
        "Check the model id, and that the provider's baseURL points at a server speaking its decision API.",
      ),
      temperature: '',
      structuredOutputs: '',
    },
    async decide(call) {
      const questions = Object.fromEntries(call.questions.map((question, at) => [call.names[at], aiQuestion(question)]))
      // experimental_decide drops every answer when one question is refused: the model's own result is kept (after
      // the SDK's checks, which run before its refusal check) so that the other answers still count.
      let answered: Awaited<ReturnType<DecisionModelObject['doDecide']>> | undefined
      const keeping: DecisionModelObject = {
        specificationVersion: 'v4',
        provider,
        modelId,
        supportedQuestionTypes: model.supportedQuestionTypes,
        doDecide: async (callOptions) => {
          answered = await model.doDecide(callOptions)
          return answered
        },
      }
      let result: {
        answers: Readonly<Record<string, unknown>>
        usage: { inputTokens?: number | undefined; outputTokens?: number | undefined } | undefined
        modelId: string | undefined
      }
      try {
        const decided = await budget.run(call, (abortSignal) =>
          experimental_decide({
            model: keeping,
            state: stateText(call.state),
            questions,
            // The retries are the budget's, so that each failure is seen and worded from what happened.
            maxRetries: 0,
            abortSignal,
            ...(providerOptions === undefined ? {} : { providerOptions }),
          }),
        )
        result = { answers: decided.answers, usage: decided.usage, modelId: decided.response.modelId }
      } catch (error) {
        if (!Experimental_DecisionRefusalError.isInstance(error) || answered === undefined) throw error
        result = { answers: answered.answers, usage: answered.usage, modelId: answered.response?.modelId }
      }
      const raw = (answered?.providerMetadata?.openai as { usage?: RawUsage } | undefined)?.usage
      return {
        answers: call.questions.map((question, at) =>
          judgetreeAnswer(question, result.answers[call.names[at] as string]),
        ),
        promptTokens: result.usage?.inputTokens ?? 0,
        completionTokens: result.usage?.outputTokens ?? 0,
        cachedPromptTokens: raw?.input_tokens_details?.cached_tokens ?? undefined,
        reasoningTokens: raw?.output_tokens_details?.reasoning_tokens ?? undefined,
        servedModel: result.modelId,
      }
    },
    classify: (error, call) => classify(error, call, budget),
  }
}

type RawUsage = {
  input_tokens_details?: { cached_tokens?: number | null } | null
  output_tokens_details?: { reasoning_tokens?: number | null } | null
}

/** A judgetree question as the AI SDK asks it: a score's levels indexed from 0, each described by its number. */
function aiQuestion(question: JudgeQuestion): Experimental_DecisionQuestion {
  const { instructions } = question
  if (question.kind === 'predicate') return { type: 'boolean', instructions }
  if (question.kind === 'choice') {
    return {
      type: 'choice',
      instructions,
      criteria: Object.fromEntries(question.options.map((option) => [option, null])),
    }
  }
  const criteria = question.levels.map((level, at) => {
    const description = question.descriptions?.[at]
    return description === undefined ? String(level) : `${level}: ${description}`
  })
  return { type: 'score', instructions, criteria }
}

/** An AI SDK answer as the protocol keys it: a score's level indices become the levels. */
function judgetreeAnswer(question: JudgeQuestion, answer: unknown): DecisionAnswer {
  const given = (answer ?? {}) as { type?: string; probability?: number; choice?: string; score?: number }
  const probabilities = (answer as { probabilities?: Record<string, number> } | undefined)?.probabilities
  if (given.type === 'refusal') return { kind: 'refusal' }
  if (given.type === 'boolean' && typeof given.probability === 'number') {
    const p = given.probability
    return { kind: 'predicate', probabilities: { true: p, false: Math.round((1 - p) * 1e6) / 1e6 } }
  }
  if (given.type === 'choice' && typeof given.choice === 'string') {
    // A provider that gives no distribution gives its choice as certain.
    return { kind: 'choice', probabilities: probabilities ?? { [given.choice]: 1 }, chosen: given.choice }
  }
  if (given.type === 'score' && question.kind === 'score' && typeof given.score === 'number') {
    const levels = question.levels
    const byIndex = probabilities ?? { [String(Math.round(given.score))]: 1 }
    const byLevel: Record<string, number> = {}
    for (const [index, probability] of Object.entries(byIndex)) {
      const level = levels[Number(index)]
      if (level === undefined) return { kind: 'malformed', problem: `a probability for level index ${index}` }
      byLevel[String(level)] = probability
    }
    return { kind: 'score', probabilities: byLevel }
  }
  return { kind: 'malformed', problem: `an answer of type ${JSON.stringify(given.type)}` }
}

function classify(error: unknown, call: DecisionCall, budget: CallBudget): TransportFailure {
  const first = firstClassified(error, call, budget)
  if ('failure' in first) return first.failure
  const { last, retries, skipped } = first
  const unreadable = APICallError.isInstance(last) && TypeValidationError.isInstance(last.cause)
  if (InvalidResponseDataError.isInstance(last) || unreadable) {
    // The AI SDK's own checks of the answers (one per question, the options asked, a sum of 1) or of their shape.
    const message = unreadable ? (last.cause as Error).message : (last as Error).message
    return { kind: 'other', detail: `its answers are malformed: ${message}`, cause: last }
  }
  if (APICallError.isInstance(last)) {
    const status = last.statusCode
    if (status === undefined) {
      const host = URL.canParse(last.url) ? new URL(last.url).host : 'its baseURL'
      return { kind: 'unreachable', detail: last.message, host, retries, skipped, cause: last }
    }
    const retryAfterMs = retryAfterOf(last.responseHeaders)
    return { kind: 'http', status, detail: last.message, retries, retryAfterMs, skipped, cause: last }
  }
  if (LoadAPIKeyError.isInstance(last)) {
    const error = new ConfigurationError(`The decision model has no API key.`, { advice: call.scrub(last.message) })
    return { kind: 'final', error }
  }
  return { kind: 'other', detail: last instanceof Error ? last.message : String(last), cause: last }
}

function assertDecisionModel(model: unknown): asserts model is DecisionModelObject {
  const candidate = (typeof model === 'object' && model !== null ? model : {}) as Record<string, unknown>
  const callable = typeof candidate.doDecide === 'function'
  if (candidate.specificationVersion === 'v4' && callable && typeof candidate.modelId === 'string') return
  const got =
    typeof candidate.doGenerate === 'function'
      ? `the language model "${String(candidate.modelId)}"; pass it to aiSdkJudge as the metric's chat \`model\``
      : typeof model === 'string'
        ? `the string '${model}'; call the provider's decisionModel with it, e.g. \`openai.decisionModel('${model}')\``
        : `${model === null ? 'null' : typeof model} without \`doDecide\` (specification v4)`
  throw new ConfigurationError(
    `Expected aiSdkDecisionJudge's \`model\` to be an AI SDK decision model such as ` +
      `\`openai.decisionModel('gpt-6-luna')\`, got ${got}.`,
  )
}
