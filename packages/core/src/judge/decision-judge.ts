// The decision protocol, written once for every decision model (OpenAI's Decisions API, any AI SDK decision model):
// a transport sends the questions about one state in one request and reads each answer into probabilities; this
// checks them (one answer per question, the options asked, a sum of 1 within the provider's rounding), picks the
// most probable answer, prices the call, and words refusals, malformed answers and failures.
import { JudgeCallError, JudgeOutputError } from '../errors.js'
import { type Secrets, scrubSecrets } from '../internal/scrub.js'
import { callError, type TransportConnection, type TransportFailure } from './failures.js'
import { decisionCostOf } from './pricing.js'
import { tokenDetails } from './tokens.js'
import type { JudgeModel, JudgeQuestion, JudgeRequest, JudgeResponse, JudgeUsage } from './types.js'

/** The questions of one request, as the protocol hands them to a decision transport. */
export interface DecisionCall {
  /** What every question is about: the requests' shared state. */
  readonly state: unknown
  readonly questions: readonly JudgeQuestion[]
  /** A name per question (`q1`, `q2`, …), unique in the call, for providers that match answers by name. */
  readonly names: readonly string[]
  readonly signal: AbortSignal | undefined
  /** Takes the judge's secrets out of a text: for errors a transport words itself. */
  readonly scrub: (text: string) => string
}

/**
 * One answer as a transport read it: probabilities keyed by `true`/`false` (a predicate), option (a choice) or
 * `String(level)` (a score); `chosen` is the option the provider named, where it names one; or what was wrong.
 */
export type DecisionAnswer =
  | { readonly kind: 'refusal' }
  | { readonly kind: 'malformed'; readonly problem: string }
  | {
      readonly kind: JudgeQuestion['kind']
      readonly probabilities: Readonly<Record<string, number>>
      readonly chosen?: string | undefined
    }

/** What one decision call returned. */
export interface DecisionCompletion {
  /** One per question, in order. */
  readonly answers: readonly DecisionAnswer[]
  readonly promptTokens: number
  readonly completionTokens: number
  readonly cachedPromptTokens?: number | undefined
  readonly reasoningTokens?: number | undefined
  readonly servedModel: string | undefined
}

/** A decision provider: sends one request of questions, classifies its failures, names itself in messages. */
export interface DecisionTransport extends TransportConnection {
  decide(call: DecisionCall): Promise<DecisionCompletion>
  classify(error: unknown, call: DecisionCall): TransportFailure
}

/** A decision judge: `decides`, and answers several decisions about one state in one call. */
export type DecisionJudge = JudgeModel & {
  readonly decides: true
  generateMany: NonNullable<JudgeModel['generateMany']>
}

/** The most a provider's rounding (2 decimals) may move a sum, per probability; and float noise. */
const ROUNDING_PER_PROBABILITY = 0.005
const FLOAT_NOISE = 1e-6

/** A judge that answers decisions through `transport`: `decides`, with `generateMany` for questions about one state. */
export function createDecisionJudge(transport: DecisionTransport): DecisionJudge {
  const secrets = (): Secrets => transport.secrets()
  const judge: DecisionJudge = {
    name: transport.name,
    cacheIdentity: transport.cacheIdentity,
    endpoint: transport.endpoint,
    rateLimitRetries: transport.rateLimitRetries,
    decides: true,
    scrubSecrets(text) {
      try {
        return scrubSecrets(text, secrets())
      } catch {
        // No connection yet (no key to read): the environment's keys and key-shaped text are still taken out.
        return scrubSecrets(text)
      }
    },
    async generate<T>(request: JudgeRequest<T>): Promise<JudgeResponse<T>> {
      const [entry] = await decideAll([request as JudgeRequest<unknown>])
      if (entry instanceof Error) throw entry
      return entry as JudgeResponse<T>
    },
    generateMany: (requests) => decideAll(requests),
  }
  return judge

  async function decideAll(requests: readonly JudgeRequest<unknown>[]): Promise<(JudgeResponse<unknown> | Error)[]> {
    if (requests.length === 0) return []
    const questions = requests.map(questionOf)
    await transport.refreshSecrets?.()
    const known = secrets()
    const scrub = (text: string) => scrubSecrets(text, known)
    const where = () => scrub(transport.where())
    const state = questions[0]?.state
    const differ = questions.findIndex((question) => JSON.stringify(question.state) !== JSON.stringify(state))
    if (differ !== -1) {
      throw new JudgeCallError(
        `${where()} was asked ${questions.length} questions together whose states differ (question ${differ + 1}'s ` +
          "is not the first's): one request holds questions about one state. This is a bug in the caller.",
      )
    }
    const signal = requests.find((request) => request.signal !== undefined)?.signal
    const call: DecisionCall = { state, questions, names: questions.map((_, at) => `q${at + 1}`), signal, scrub }
    let completion: DecisionCompletion
    try {
      completion = await transport.decide(call)
    } catch (error) {
      const site = { where: where(), timeoutMs: transport.timeoutMs, advice: transport.advice, scrub }
      throw callError(transport.classify(error, call), error, site, signal)
    }
    if (completion.answers.length !== questions.length) {
      throw new JudgeCallError(
        `${where()} returned ${counted(completion.answers.length, 'answer')} for ${counted(questions.length, 'question')}; the Decisions ` +
          'API answers every question, in order. Check that the server speaks /v1/decisions.',
      )
    }
    const model = completion.servedModel ?? transport.name
    // The first answer given carries the call's usage (a refused first question must not lose it).
    let billed = false
    return questions.map((question, at) => {
      const answer = completion.answers[at] as DecisionAnswer
      const problem = problemOf(question, answer)
      const asked = `question ${at + 1} of ${questions.length} (${quote(question.instructions, scrub)})`
      if (answer.kind === 'refusal') {
        return new JudgeOutputError(
          `${where()} refused to answer ${asked}. Rephrase the criteria, or use a chat model for this judgement.`,
          '',
        )
      }
      if (problem !== undefined || answer.kind === 'malformed') {
        const what = scrub(answer.kind === 'malformed' ? answer.problem : (problem as string))
        return new JudgeCallError(`${where()} gave a malformed answer to ${asked}: ${what}.`)
      }
      const extra = billed
      billed = true
      return responseOf(question, answer.probabilities, usageOf(extra ? undefined : completion, model), extra)
    })
  }

  function usageOf(completion: DecisionCompletion | undefined, model: string): JudgeUsage {
    const promptTokens = completion?.promptTokens ?? 0
    const completionTokens = completion?.completionTokens ?? 0
    const cached = completion?.cachedPromptTokens
    return {
      promptTokens,
      completionTokens,
      ...tokenDetails(cached, completion?.reasoningTokens),
      costUsd: decisionCostOf(model, promptTokens, completionTokens, transport.pricing, cached ?? 0),
    }
  }

  function questionOf(request: JudgeRequest<unknown>): JudgeQuestion {
    if (request.question !== undefined) return request.question
    throw new JudgeCallError(
      `The decision model "${transport.name}" answers only decisions (requests with a question), and the ` +
        `"${request.schemaName}" request is a task or a step that needs a written answer. Give the metric a chat ` +
        '`model` for those and this judge as its `decisionModel`.',
    )
  }
}

/** The keys a question's probabilities must have, in declaration order. */
export function keysOf(question: JudgeQuestion): readonly string[] {
  if (question.kind === 'predicate') return ['true', 'false']
  return question.kind === 'choice' ? question.options : question.levels.map(String)
}

/** What is wrong with an answer to `question`, or undefined. */
function problemOf(question: JudgeQuestion, answer: DecisionAnswer): string | undefined {
  if (answer.kind === 'refusal' || answer.kind === 'malformed') return undefined
  if (answer.kind !== question.kind) return `a ${answer.kind} answer to a ${question.kind} question`
  const keys = keysOf(question)
  const given = Object.keys(answer.probabilities)
  const unasked = given.find((key) => !keys.includes(key))
  if (unasked !== undefined) return `a probability for ${JSON.stringify(unasked)}, which was not asked`
  const missing = keys.find((key) => !given.includes(key))
  if (missing !== undefined) return `no probability for ${JSON.stringify(missing)}`
  if (answer.chosen !== undefined && !keys.includes(answer.chosen)) {
    return `the answer ${JSON.stringify(answer.chosen)}, which is not among ${keys.map((key) => JSON.stringify(key)).join(', ')}`
  }
  const values = Object.values(answer.probabilities)
  const wrong = values.find((value) => !(typeof value === 'number' && value >= 0 && value <= 1))
  if (wrong !== undefined) return `the probability ${String(wrong)}, which is not a number from 0 to 1`
  const sum = values.reduce((total, value) => total + value, 0)
  if (Math.abs(sum - 1) > FLOAT_NOISE + keys.length * ROUNDING_PER_PROBABILITY) {
    return `probabilities that sum to ${Number(sum.toFixed(4))}, not 1 (within the provider's 2-decimal rounding)`
  }
  return undefined
}

/** The response: the most probable answer (the first in declaration order on a tie) and the whole distribution. */
function responseOf(
  question: JudgeQuestion,
  probabilities: Readonly<Record<string, number>>,
  usage: JudgeUsage,
  extraSample: boolean,
): JudgeResponse<unknown> {
  const keys = keysOf(question)
  const best = keys.reduce((top, key) => ((probabilities[key] ?? 0) > (probabilities[top] ?? 0) ? key : top))
  const answer = question.kind === 'predicate' ? best === 'true' : question.kind === 'score' ? Number(best) : best
  const distribution = Object.fromEntries(keys.map((key) => [key, probabilities[key] as number]))
  return {
    value: { [question.field]: answer },
    usage,
    cached: false,
    distribution,
    ...(extraSample ? { extraSample: true } : {}),
  }
}

/** The question's instructions, shortened to quote in a message. */
function quote(instructions: string, scrub: (text: string) => string): string {
  const line = scrub(instructions).replace(/\s+/g, ' ').trim()
  return JSON.stringify(line.length > 80 ? `${line.slice(0, 79)}…` : line)
}

/** The state as a decision model reads it: a string as is, anything else as indented JSON. */
export function stateText(state: unknown): string {
  return typeof state === 'string' ? state : (JSON.stringify(state, null, 2) ?? String(state))
}

/** `1 answer`, `2 answers`. */
function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}
