// The Decisions API half of the local server: `POST /v1/decisions` as the `openai` v7 SDK
// (resources/decisions.d.ts) and `@ai-sdk/openai` 4 (DecisionOpenAIModel) send and parse it. The request is checked
// the way OpenAI checks it (a 400 in its error shape), so a client that sends the wrong shape fails its test.

/** A question as the Decisions API takes it. */
export interface DecisionQuestionBody {
  readonly type: 'predicate' | 'choice' | 'score'
  readonly name?: string
  readonly instructions: string | readonly unknown[]
  /** A choice question's options: 2–255 unique values. */
  readonly choices?: readonly { readonly value: string | boolean; readonly description?: string }[]
  /** A score question's ordered levels. */
  readonly levels?: readonly { readonly label: string; readonly description?: string }[]
}

/** The `POST /v1/decisions` body. */
export interface DecisionBody {
  readonly model: string
  readonly input: string | readonly unknown[]
  readonly questions: readonly DecisionQuestionBody[]
  readonly prompt_cache_key?: string | null
  readonly prompt_cache_options?: unknown
  readonly safety_identifier?: string | null
}

/** One decision request the server received, in arrival order. */
export interface RecordedDecisionRequest {
  readonly url: string
  readonly body: DecisionBody
  readonly headers: Record<string, string | string[] | undefined>
  /** 0 for the first decision request the server received (chat requests count apart), 1 for the next, … */
  readonly index: number
}

/**
 * How the server answers one question:
 * - `{ answer, probability }`: `answer` (a predicate's `true`/`false`, a choice's value, a score level's label or
 *   its number) is the most probable, at `probability` (default 0.9); the rest is shared by the other answers;
 * - `{ probabilities }`: every probability by `true` (a predicate), choice value or level label, sent as given;
 * - `{ refusal: true }`: the model declines this question (the others are still answered);
 * - `{ raw }`: sent verbatim as the answer (a malformed one).
 */
export type DecisionAnswerScript =
  | { readonly answer: boolean | string | number; readonly probability?: number }
  | { readonly probabilities: Readonly<Record<string, number>> }
  | { readonly refusal: true }
  | { readonly raw: unknown }

/** How the server answers one decision request: its answers, or one of the chat server's faults. */
export interface DecisionReply {
  /** One per question, in order. Needed unless the reply is a fault (`status` 400 and up, `rawBody`, a reset, …). */
  readonly answers?: readonly DecisionAnswerScript[]
  /** @default { inputTokens: 20 } (no cached, output or reasoning tokens) */
  readonly usage?: { inputTokens: number; cachedTokens?: number; outputTokens?: number; reasoningTokens?: number }
  /** The model the answer names. @default the request's */
  readonly model?: string
  status?: number
  error?: { message: string; type?: string; code?: string; param?: string }
  headers?: Record<string, string>
  delayMs?: number
  resetConnection?: boolean
  rawBody?: string
  resetAfterHeaders?: boolean
  truncateBody?: boolean
  stallAfterHeaders?: boolean
}

/** Decides the reply to one decision request. */
export type DecisionResponder = (request: RecordedDecisionRequest) => DecisionReply | Promise<DecisionReply>

/** A responder answering every question with `script(question, index)`. */
export function decideEach(
  script: (question: DecisionQuestionBody, index: number) => DecisionAnswerScript,
  extra?: Omit<DecisionReply, 'answers'>,
): DecisionResponder {
  return (request) => ({ ...extra, answers: request.body.questions.map(script) })
}

/** `answer` as the most probable, at `probability`. */
export function mostProbable(answer: boolean | string | number, probability = 0.9): DecisionAnswerScript {
  return { answer, probability }
}

export const unscriptedDecisions: DecisionResponder = () => ({
  status: 500,
  error: { message: 'The test server has no decision responder scripted; pass `decisions` or call decideWith().' },
})

/** The Decisions API's limits, as resources/decisions.d.ts states them. */
const MAX_QUESTIONS = 400
const CHOICES = { min: 2, max: 255 }
const REQUEST_KEYS = new Set([
  'model',
  'input',
  'questions',
  'prompt_cache_key',
  'prompt_cache_options',
  'safety_identifier',
])

/** What OpenAI would refuse in the body, as its 400 error, or undefined for a body it takes. */
export function decisionBodyProblem(body: unknown): { message: string; param: string | null } | undefined {
  const problem = (message: string, param: string | null = null) => ({ message, param })
  if (typeof body !== 'object' || body === null) return problem('The body must be a JSON object.')
  const record = body as Record<string, unknown>
  const unknown = Object.keys(record).find((key) => !REQUEST_KEYS.has(key))
  if (unknown !== undefined) return problem(`Unrecognized request argument supplied: ${unknown}`, unknown)
  if (typeof record.model !== 'string' || record.model === '') return problem("Missing required parameter: 'model'.")
  const input = record.input
  if (!(typeof input === 'string' || (Array.isArray(input) && input.length > 0))) {
    return problem("'input' must be a string or a non-empty array of messages.", 'input')
  }
  const questions = record.questions
  if (!Array.isArray(questions) || questions.length < 1 || questions.length > MAX_QUESTIONS) {
    return problem(`'questions' must hold 1 to ${MAX_QUESTIONS} questions.`, 'questions')
  }
  const names = new Set<string>()
  for (const [index, question] of questions.entries()) {
    const at = `questions[${index}]`
    const q = (question ?? {}) as Record<string, unknown>
    if (!['predicate', 'choice', 'score'].includes(String(q.type))) {
      return problem(`${at}.type must be 'predicate', 'choice' or 'score'.`, `${at}.type`)
    }
    if (!(typeof q.instructions === 'string' || Array.isArray(q.instructions))) {
      return problem(`${at}.instructions must be a string or a list of parts.`, `${at}.instructions`)
    }
    if (q.name !== undefined) {
      if (typeof q.name !== 'string' || names.has(q.name)) {
        return problem(`${at}.name must be a string no other question has.`, `${at}.name`)
      }
      names.add(q.name)
    }
    const allowed = q.type === 'choice' ? 'choices' : q.type === 'score' ? 'levels' : undefined
    const extra = Object.keys(q).find((key) => !['type', 'name', 'instructions', allowed].includes(key))
    if (extra !== undefined) return problem(`Unrecognized argument ${at}.${extra}.`, `${at}.${extra}`)
    if (q.type === 'choice') {
      const choices = q.choices
      const values = Array.isArray(choices) ? choices.map((choice) => (choice as { value?: unknown })?.value) : []
      if (!Array.isArray(choices) || choices.length < CHOICES.min || choices.length > CHOICES.max) {
        return problem(`${at}.choices must hold ${CHOICES.min} to ${CHOICES.max} choices.`, `${at}.choices`)
      }
      if (values.some((value) => typeof value !== 'string' && typeof value !== 'boolean')) {
        return problem(`${at}.choices[].value must be a string or a boolean.`, `${at}.choices`)
      }
      // Typed values: the string 'true' and the boolean true are different choices.
      if (new Set(values.map((value) => JSON.stringify(value))).size !== values.length) {
        return problem(`${at}.choices must be unique.`, `${at}.choices`)
      }
    }
    if (q.type === 'score') {
      const levels = q.levels
      const labels = Array.isArray(levels) ? levels.map((level) => (level as { label?: unknown })?.label) : []
      if (!Array.isArray(levels) || levels.length < 1 || labels.some((label) => typeof label !== 'string')) {
        return problem(`${at}.levels must be a non-empty list of { label, description? }.`, `${at}.levels`)
      }
      if (new Set(labels).size !== labels.length)
        return problem(`${at}.levels must have unique labels.`, `${at}.levels`)
    }
  }
  return undefined
}

/** The `Decision` the server answers with: one answer per question, usage as OpenAI reports it. */
export function decisionOf(request: RecordedDecisionRequest, reply: DecisionReply): unknown {
  const { questions } = request.body
  const scripts = reply.answers ?? []
  if (scripts.length !== questions.length) {
    throw new Error(
      `The decision responder gave ${scripts.length} answers for ${questions.length} questions; give one per question.`,
    )
  }
  const usage = reply.usage ?? { inputTokens: 20 }
  const output = usage.outputTokens ?? 0
  return {
    model: reply.model ?? request.body.model,
    answers: questions.map((question, index) => answerOf(question, scripts[index] as DecisionAnswerScript)),
    usage: {
      input_tokens: usage.inputTokens,
      input_tokens_details: { cached_tokens: usage.cachedTokens ?? 0, cache_write_tokens: 0 },
      output_tokens: output,
      output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
      total_tokens: usage.inputTokens + output,
    },
  }
}

function answerOf(question: DecisionQuestionBody, script: DecisionAnswerScript): unknown {
  const name = question.name ?? null
  if ('raw' in script) return script.raw
  if ('refusal' in script) return { type: 'refusal', name }
  if (question.type === 'predicate') {
    const probability =
      'probabilities' in script
        ? (script.probabilities.true ?? 0)
        : script.answer === true || script.answer === 'true'
          ? (script.probability ?? 0.9)
          : round(1 - (script.probability ?? 0.9))
    return { type: 'predicate', name, probability }
  }
  const keys =
    question.type === 'choice'
      ? (question.choices ?? []).map((choice) => String(choice.value))
      : (question.levels ?? []).map((level) => level.label)
  const probabilities =
    'probabilities' in script ? keys.map((key) => script.probabilities[key] ?? 0) : spread(keys, script)
  const top = probabilities.indexOf(Math.max(...probabilities))
  const confidence = probabilities[top] ?? 0
  if (question.type === 'choice') {
    const values = (question.choices ?? []).map((choice) => choice.value)
    return {
      type: 'choice',
      name,
      choice: values[top],
      confidence,
      probabilities: values.map((value, at) => ({ value, probability: probabilities[at] })),
    }
  }
  // A level's `value` is its position; the score is the probability-weighted mean of the positions.
  const score = round(probabilities.reduce((sum, probability, at) => sum + at * probability, 0))
  return {
    type: 'score',
    name,
    score,
    confidence,
    probabilities: keys.map((label, at) => ({ label, value: at, probability: probabilities[at] })),
  }
}

/** The answer at its probability, the rest shared by the others, in hundredths that sum to exactly 1. */
function spread(keys: readonly string[], script: { answer: boolean | string | number; probability?: number }) {
  const chosen = keys.indexOf(String(script.answer))
  if (chosen === -1) throw new Error(`The scripted answer ${String(script.answer)} is not among ${keys.join(', ')}.`)
  const top = Math.round((script.probability ?? 0.9) * 100)
  const others = keys.length - 1
  const rest = 100 - top
  let given = 0
  return keys.map((_, at) => {
    if (at === chosen) return top / 100
    const share = Math.floor(rest / others) + (given++ < rest % others ? 1 : 0)
    return share / 100
  })
}

/** Two decimals, as OpenAI rounds probabilities and scores. */
function round(value: number): number {
  return Math.round(value * 100) / 100
}
