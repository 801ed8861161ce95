// OpenAIDecisionJudge: the decision protocol (decision-judge.ts) over OpenAI's Decisions API, `POST /v1/decisions`,
// through the official SDK: v6's generic `post`, or v7's `client.decisions.create`. The wire format is v7's
// resources/decisions.d.ts: questions `predicate | choice | score`, answers in question order with probabilities.
import type OpenAI from 'openai'
import { z } from 'zod'
import { JudgeCallError } from '../errors.js'
import { nonEmpty, readEnv } from '../internal/env.js'
import { expecting, parseOptions } from '../internal/options.js'
import { timerMsSchema } from '../runtime/limits.js'
import { BodyFailure, postReadingBody, type SdkRequest } from './completion-body.js'
import {
  createDecisionJudge,
  type DecisionAnswer,
  type DecisionCall,
  type DecisionJudge,
  keysOf,
  stateText,
} from './decision-judge.js'
import { DEFAULT_JUDGE_MAX_RETRIES, DEFAULT_JUDGE_TIMEOUT_MS } from './default-timing.js'
import { retryAfterOf, rootMessage, type TransportFailure } from './failures.js'
import { cacheNamespaceSchema, maxRetriesSchema, pricingSchema } from './judge-option-schemas.js'
import { type Connection, checkBaseURL, connect, endpointOf } from './openai-options.js'
import type { ModelPrice } from './pricing.js'
import type { JudgeModel, JudgeQuestion, JudgeRequest, JudgeResponse } from './types.js'

const DEFAULT_MODEL = 'gpt-6-luna'

/** An `openai` v7 client, or any with its `decisions.create` (read by shape: v7 is another package than v6). */
export interface DecisionsClient {
  readonly baseURL: string
  readonly apiKey?: string | null | undefined
  readonly maxRetries: number
  readonly decisions: {
    create(
      body: DecisionsRequestBody,
      options?: { signal?: AbortSignal; timeout?: number; maxRetries?: number },
    ): SdkRequest & PromiseLike<unknown>
  }
}

/** Options of {@link OpenAIDecisionJudge}; every one has a default, the connection's read from the environment. */
export interface OpenAIDecisionJudgeOptions {
  /** A decision model; OpenAI serves only `gpt-6-luna` on the Decisions API. @default 'gpt-6-luna' */
  model?: string | undefined
  /** @default process.env.OPENAI_API_KEY; 'not-needed' when only a base URL is set (local servers ignore keys) */
  apiKey?: string | undefined
  /** Any server speaking `/v1/decisions` (SGLang, LiteLLM, OpenRouter). @default process.env.OPENAI_BASE_URL, else OpenAI's */
  baseURL?: string | undefined
  /** Milliseconds one attempt may take before it is abandoned (and retried). @default 60_000 */
  timeoutMs?: number | undefined
  /** Retries of a failed call: 5xx, timeouts and connection errors by the SDK, 429s by the judge runtime. @default 3 */
  maxRetries?: number | undefined
  /** Decision prices by model (USD per million tokens), over DEFAULT_DECISION_PRICES; chat prices never apply. @default {} */
  pricing?: Readonly<Record<string, ModelPrice>> | undefined
  /** Replaces the global fetch, e.g. to add a proxy. @default globalThis.fetch */
  fetch?: typeof fetch | undefined
  /**
   * A preconfigured SDK client: an `openai` v6 `OpenAI` (called through its generic `post`) or a v7 one (through
   * `client.decisions.create`); apiKey, baseURL and fetch are then ignored. @default a v6 client built from the options
   */
  client?: OpenAI | DecisionsClient | undefined
  /** Keeps this judge's cached answers apart from those of judges with another namespace. @default none */
  cacheNamespace?: string | undefined
}

const optionsSchema = expecting(
  z.strictObject({
    model: expecting(z.string().trim().min(1), "a non-empty model name such as 'gpt-6-luna'").optional(),
    apiKey: expecting(z.string(), 'a string').optional(),
    baseURL: expecting(z.string(), "the API root as a string, such as 'http://127.0.0.1:30000/v1'").optional(),
    timeoutMs: timerMsSchema.optional(),
    maxRetries: maxRetriesSchema.optional(),
    pricing: pricingSchema.optional(),
    fetch: expecting(
      z.custom<typeof fetch>((value) => typeof value === 'function'),
      'a fetch function (the global `fetch`, or one with the same signature)',
    ).optional(),
    client: expecting(
      z.custom<OpenAI>((value) => typeof value === 'object' && value !== null),
      'an `OpenAI` client from the openai package (v6 or v7)',
    ).optional(),
    cacheNamespace: cacheNamespaceSchema.optional(),
  }),
  'an options object (or nothing)',
)

/**
 * A decision judge on OpenAI's Decisions API (or any server speaking `/v1/decisions`): it answers a metric's
 * judgements as predicates, choices and scores with probabilities, several about one state in one request, and
 * writes no text. Give it to a metric as `decisionModel`; tasks and G-Eval's steps go to the chat `model`.
 *
 * @example
 * const metric = new DAGMetric({ name: 'Format', dag, decisionModel: new OpenAIDecisionJudge() })
 */
export class OpenAIDecisionJudge implements JudgeModel {
  readonly name: string
  /** Model and `cacheNamespace`; never the key, nor the server's address (see `endpoint`). */
  readonly cacheIdentity: Readonly<Record<string, string>>
  /** Host and path of the API root (no credentials). */
  readonly endpoint: string
  /** 429s are retried by the judge runtime (one pause for every worker), not by the SDK. */
  readonly rateLimitRetries: number
  readonly decides = true
  readonly #judge: DecisionJudge

  constructor(options: OpenAIDecisionJudgeOptions = {}) {
    parseOptions(optionsSchema, options, 'OpenAIDecisionJudge')
    const envBaseURL = readEnv('OPENAI_BASE_URL')
    if (options.client === undefined && nonEmpty(options.baseURL) === undefined && envBaseURL !== undefined) {
      checkBaseURL(envBaseURL, 'OPENAI_BASE_URL')
    }
    if (nonEmpty(options.baseURL) !== undefined) checkBaseURL(options.baseURL as string, 'baseURL')
    this.#judge = createDecisionJudge(decisionsTransport(options, envBaseURL))
    this.name = this.#judge.name
    this.cacheIdentity = this.#judge.cacheIdentity as Readonly<Record<string, string>>
    this.endpoint = this.#judge.endpoint as string
    this.rateLimitRetries = this.#judge.rateLimitRetries ?? 0
  }

  /** Answers one decision; a request without a `question` (a task, a step) is refused. */
  generate<T>(request: JudgeRequest<T>): Promise<JudgeResponse<T>> {
    return this.#judge.generate(request)
  }

  /** Answers decisions about one state in one request; a refused question is its entry's Error. */
  generateMany(requests: readonly JudgeRequest<unknown>[]): Promise<readonly (JudgeResponse<unknown> | Error)[]> {
    return this.#judge.generateMany(requests)
  }

  scrubSecrets(text: string): string {
    return (this.#judge.scrubSecrets as (text: string) => string)(text)
  }
}

function decisionsTransport(options: OpenAIDecisionJudgeOptions, envBaseURL: string | undefined) {
  const name = options.model ?? DEFAULT_MODEL
  const timeoutMs = options.timeoutMs ?? DEFAULT_JUDGE_TIMEOUT_MS
  // Built on first use, so that constructing a judge at import time never needs a key.
  let connection: Connection | undefined
  const connected = () => {
    connection ??= connect({ ...options, client: options.client as OpenAI | undefined }, name, timeoutMs)
    return connection
  }
  return {
    name,
    cacheIdentity: Object.freeze({
      model: name,
      api: 'decisions',
      ...(options.cacheNamespace === undefined ? {} : { namespace: options.cacheNamespace }),
    }),
    endpoint: endpointOf(options.client?.baseURL ?? nonEmpty(options.baseURL) ?? envBaseURL, undefined),
    rateLimitRetries: options.client === undefined ? (options.maxRetries ?? DEFAULT_JUDGE_MAX_RETRIES) : 0,
    pricing: options.pricing,
    timeoutMs,
    where: () => `The decision model "${name}" at ${connected().host}`,
    secrets: () => connected().secret,
    advice: {
      unreachable: 'Check the network and OPENAI_BASE_URL (or the baseURL option).',
      cutShort: '; raise maxRetries if it keeps happening.',
      unauthorized: 'Check that OPENAI_API_KEY (or the apiKey option) holds a valid key for this server.',
      notFound:
        'Check the model name (OpenAI serves only gpt-6-luna on /v1/decisions), and that the server speaks the ' +
        'Decisions API at OPENAI_BASE_URL (or the baseURL option), the API root ending in /v1.',
      rateLimited: () =>
        'Still rate limited after the judge runtime’s retries (up to maxRetries, each after the pause the server asked ' +
        'for): raise maxRetries, lower JUDGETREE_CONCURRENCY or check your quota.',
      temperature: '',
      structuredOutputs: '',
    },
    async decide(call: DecisionCall) {
      const { client, maxRetries } = connected()
      const body = requestBody(name, call)
      const sdkOptions = (signal: AbortSignal) => ({
        signal,
        timeout: timeoutMs,
        ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      })
      const decisions = (client as unknown as Partial<DecisionsClient>).decisions
      const send = (signal: AbortSignal): SdkRequest =>
        typeof decisions?.create === 'function'
          ? decisions.create(body, sdkOptions(signal))
          : client.post('/decisions', { body, ...sdkOptions(signal) })
      const decision = await postReadingBody<unknown>(send, { signal: call.signal, timeoutMs, maxRetries })
      return readDecision(decision, call, name)
    },
    classify: (error: unknown) => classifyFailure(error, connected().maxRetries),
  }
}

/** The wire body judgetree sends: a part of what resources/decisions.d.ts (`DecisionCreateParams`) types. */
export interface DecisionsRequestBody {
  model: string
  input: string
  questions: DecisionsQuestion[]
}

/** A question on the wire (`QuestionParamPredicate | QuestionParamChoice | QuestionParamScore`). */
export type DecisionsQuestion =
  | { type: 'predicate'; name: string; instructions: string }
  | { type: 'choice'; name: string; instructions: string; choices: { value: string }[] }
  | { type: 'score'; name: string; instructions: string; levels: { label: string; description?: string }[] }

function requestBody(model: string, call: DecisionCall): DecisionsRequestBody {
  return {
    model,
    input: stateText(call.state),
    questions: call.questions.map((question, at) => wireQuestion(question, call.names[at] as string)),
  }
}

function wireQuestion(question: JudgeQuestion, name: string): DecisionsQuestion {
  const { instructions } = question
  if (question.kind === 'predicate') return { type: 'predicate', name, instructions }
  if (question.kind === 'choice') {
    return { type: 'choice', name, instructions, choices: question.options.map((value) => ({ value })) }
  }
  const levels = question.levels.map((level, at) => {
    const description = question.descriptions?.[at]
    return { label: String(level), ...(description === undefined ? {} : { description }) }
  })
  return { type: 'score', name, instructions, levels }
}

type Row = Readonly<Record<string, unknown>>

/** The answers and usage of a `Decision`, read defensively: a compatible server may not follow the typed shape. */
function readDecision(decision: unknown, call: DecisionCall, name: string) {
  const body = (typeof decision === 'object' && decision !== null ? decision : {}) as Row
  if (!Array.isArray(body.answers)) {
    throw new JudgeCallError(
      `The decision model "${name}" answered without an \`answers\` list, so there is nothing to read. Check that ` +
        'the server speaks the Decisions API (/v1/decisions).',
    )
  }
  const usage = (body.usage ?? {}) as Row
  const count = (value: unknown) => (typeof value === 'number' && value >= 0 ? value : undefined)
  return {
    answers: body.answers.map((answer, at) => answerOf(answer as Row | null, call, at)),
    promptTokens: count(usage.input_tokens) ?? 0,
    completionTokens: count(usage.output_tokens) ?? 0,
    cachedPromptTokens: count((usage.input_tokens_details as Row | undefined)?.cached_tokens),
    reasoningTokens: count((usage.output_tokens_details as Row | undefined)?.reasoning_tokens),
    servedModel: typeof body.model === 'string' ? body.model : undefined,
  }
}

/** One wire answer as probabilities keyed as the protocol keys them (see DecisionAnswer). */
function answerOf(answer: Row | null, call: DecisionCall, at: number): DecisionAnswer {
  const malformed = (problem: string): DecisionAnswer => ({ kind: 'malformed', problem })
  const question = call.questions[at] as JudgeQuestion
  if (typeof answer !== 'object' || answer === null) return malformed('the answer is not an object')
  const name = call.names[at]
  if (answer.name !== undefined && answer.name !== null && answer.name !== name) {
    return malformed(`the answer is named ${JSON.stringify(answer.name)} where ${JSON.stringify(name)} was asked`)
  }
  if (answer.type === 'refusal') return { kind: 'refusal' }
  if (answer.type === 'predicate') {
    const p = answer.probability
    if (typeof p !== 'number') return malformed('the predicate answer has no `probability`')
    return { kind: 'predicate', probabilities: { true: p, false: Math.round((1 - p) * 1e6) / 1e6 } }
  }
  if (answer.type !== 'choice' && answer.type !== 'score') {
    return malformed(`the answer's type is ${JSON.stringify(answer.type)}, not predicate, choice, score or refusal`)
  }
  if (!Array.isArray(answer.probabilities)) return malformed(`the ${answer.type} answer has no \`probabilities\` list`)
  const probabilities: Record<string, number> = {}
  for (const row of answer.probabilities as (Row | null)[]) {
    const key = answer.type === 'choice' ? choiceKey(row?.value) : levelKey(row, question)
    if (typeof key !== 'string') return malformed(key.problem)
    if (Object.hasOwn(probabilities, key)) return malformed(`two probabilities for ${JSON.stringify(key)}`)
    probabilities[key] = row?.probability as number
  }
  const chosen = answer.type === 'choice' ? choiceKey(answer.choice) : undefined
  if (typeof chosen === 'object') return malformed(`the choice ${chosen.problem.replace(/^the value /, '')}`)
  return { kind: answer.type, probabilities, chosen }
}

function choiceKey(value: unknown): string | { problem: string } {
  // judgetree asks only string options; a boolean value is another choice than its text.
  return typeof value === 'string' ? value : { problem: `the value ${JSON.stringify(value)} is not a string option` }
}

/** A score level's key, `String(level)`, from its `value` (its position among the levels asked), checked by its label. */
function levelKey(row: Row | null, question: JudgeQuestion): string | { problem: string } {
  const levels = keysOf(question)
  const position = row?.value
  const key = typeof position === 'number' && Number.isInteger(position) ? levels[position] : undefined
  if (key === undefined) return { problem: `a level at position ${JSON.stringify(position)}, which was not asked` }
  if (row?.label !== undefined && row.label !== key) {
    return { problem: `the level at position ${position} is labelled ${JSON.stringify(row.label)}, not "${key}"` }
  }
  return key
}

/**
 * A failure classified by its shape, not its class: a v7 client throws v7's error classes, which are not v6's. The
 * names and fields (`status`, `headers`) are the same in both.
 */
function classifyFailure(error: unknown, retries: number): TransportFailure {
  const kind = (error as { constructor?: { name?: string } } | null)?.constructor?.name ?? ''
  if (kind === 'APIUserAbortError') return { kind: 'aborted' }
  if (error instanceof BodyFailure) return { kind: 'cut-short', what: error.what, retries }
  if (error instanceof JudgeCallError) return { kind: 'final', error }
  if (kind === 'APIConnectionTimeoutError') return { kind: 'timeout', retries }
  if (kind === 'APIConnectionError') return { kind: 'unreachable', detail: rootMessage(error), retries }
  const status = (error as { status?: unknown }).status
  const message = error instanceof Error ? error.message : String(error)
  if (typeof status !== 'number') return { kind: 'other', detail: message }
  const headers = (error as { headers?: Headers }).headers
  const detail = message.replace(new RegExp(`^${status} `), '')
  return { kind: 'http', status, detail, retries, retryAfterMs: retryAfterOf(headers) }
}
