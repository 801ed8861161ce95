import { ConfigurationError, JudgeOutputError, MeasurementAbortedError } from '../errors.js'
import { DATA_OPEN } from '../prompts/shared.js'
import type { JudgeModel, JudgeRequest, JudgeResponse } from './types.js'

/**
 * Decides whether a rule answers a request: text or a pattern found in the prompt's instructions (the data block of
 * test-case text is left out, so a rule never fires because a conversation happens to mention its words), or a
 * predicate over the whole request.
 */
export type ScriptedMatch = string | RegExp | ((request: JudgeRequest<unknown>) => boolean)

/** One scripted answer. */
export interface ScriptedRule {
  /** Which requests this rule answers; a string or pattern is searched in the instructions of the last user message. */
  match: ScriptedMatch
  /** The answer, validated against the request's schema like a real model's would be. */
  answer: unknown | ((request: JudgeRequest<unknown>) => unknown)
  /** Answer this many times at most, then let later rules answer. @default unlimited */
  times?: number | undefined
}

/** Options for {@link scriptedJudge}. */
export interface ScriptedJudgeOptions {
  /** Tried in order; the first rule that matches answers. */
  rules: readonly ScriptedRule[]
  /** The name results show as the judge model. @default 'scripted' */
  name?: string | undefined
  /** Waits this long before answering, for tests of timing and cancellation. @default 0 */
  delayMs?: number | ((request: JudgeRequest<unknown>) => number) | undefined
}

/** A judge that answers from a script: for unit-testing a DAG's wiring, and for examples that run offline. */
export interface ScriptedJudge extends JudgeModel {
  /** Every request received, in order. */
  readonly requests: readonly JudgeRequest<unknown>[]
}

/**
 * A judge that answers from rules instead of a model, so a DAG's wiring can be tested without any API.
 *
 * @example
 * const judge = scriptedJudge({ rules: [
 *   { match: 'Summarize the conversation', answer: { output: 'The user asked…' } },
 *   { match: /satisfy/, answer: { verdict: true, reason: 'Every question was answered.' } },
 * ] })
 */
export function scriptedJudge(options: ScriptedJudgeOptions): ScriptedJudge {
  if (!Array.isArray(options?.rules)) {
    throw new ConfigurationError('scriptedJudge({ rules }) needs `rules`: an array of { match, answer }.')
  }
  const rules = options.rules.map((rule) => ({ ...rule, used: 0 }))
  const requests: JudgeRequest<unknown>[] = []
  const name = options.name ?? 'scripted'
  return {
    name,
    requests,
    // Caching scripted answers would hide edits to the script behind stale files.
    cacheable: false,
    async generate<T>(request: JudgeRequest<T>): Promise<JudgeResponse<T>> {
      requests.push(request as JudgeRequest<unknown>)
      const delay =
        typeof options.delayMs === 'function' ? options.delayMs(request as JudgeRequest<unknown>) : options.delayMs
      if (delay && delay > 0) await sleep(delay, request.signal)
      if (request.signal?.aborted) throw new MeasurementAbortedError(request.signal.reason)
      const prompt = request.messages.filter((message) => message.role === 'user').at(-1)?.content ?? ''
      const instructions = prompt.split(`\n${DATA_OPEN}\n`)[0] ?? prompt
      const rule = rules.find(
        (candidate) =>
          (candidate.times === undefined || candidate.used < candidate.times) &&
          matches(candidate.match, instructions, request as JudgeRequest<unknown>),
      )
      if (!rule) {
        throw new JudgeOutputError(
          `The scripted judge "${name}" has no rule for this ${request.schemaName} request. Add a rule whose match is found in the prompt:\n${prompt.slice(0, 600)}`,
          '',
        )
      }
      rule.used += 1
      const answer = typeof rule.answer === 'function' ? rule.answer(request as JudgeRequest<unknown>) : rule.answer
      const parsed = request.schema.safeParse(answer)
      if (!parsed.success) {
        throw new JudgeOutputError(
          `The scripted judge "${name}" answered a ${request.schemaName} request with ${JSON.stringify(answer)}, which does not fit the schema: ${parsed.error.message}`,
          JSON.stringify(answer),
        )
      }
      const text = JSON.stringify(answer)
      return {
        value: parsed.data,
        usage: { promptTokens: 0, completionTokens: 0, costUsd: 0 },
        cached: false,
        rawText: text,
      }
    },
  }
}

function matches(match: ScriptedMatch, prompt: string, request: JudgeRequest<unknown>): boolean {
  if (typeof match === 'string') return prompt.includes(match)
  if (match instanceof RegExp) return match.test(prompt)
  return match(request)
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms)
    function done() {
      signal?.removeEventListener('abort', abort)
      resolve()
    }
    function abort() {
      clearTimeout(timer)
      reject(new MeasurementAbortedError(signal?.reason))
    }
    signal?.addEventListener('abort', abort, { once: true })
  })
}
