// A decision's probabilities, read from the logprobs of the token the judge wrote its answer with. Read, never
// guessed: when the answer token cannot be found, or the alternatives at it do not tell the options apart, there is
// no distribution.
import { weightScore } from './logprob-score.js'
import type { JudgeQuestion, TokenLogprob } from './types.js'

/**
 * The probability of each option, level or `true`/`false` of `question`, renormalised over the alternatives the
 * model returned at its answer token; undefined without logprobs or when they cannot be read for this answer.
 */
export function distributionOf(
  question: JudgeQuestion,
  value: unknown,
  logprobs: readonly TokenLogprob[] | undefined,
): Record<string, number> | undefined {
  if (logprobs === undefined || logprobs.length === 0) return undefined
  const answer = (value as Record<string, unknown> | null)?.[question.field]
  if (question.kind === 'score') {
    if (typeof answer !== 'number' || question.levels.length === 0) return undefined
    const weighting = weightScore(answer, logprobs, [Math.min(...question.levels), Math.max(...question.levels)])
    if (weighting.mode !== 'weighted') return undefined
    const shares = new Map(weighting.alternatives.map(({ value: level, probability }) => [level, probability]))
    return Object.fromEntries(question.levels.map((level) => [String(level), shares.get(level) ?? 0]))
  }
  const options = question.kind === 'predicate' ? PREDICATE : question.options
  if (typeof answer !== (question.kind === 'predicate' ? 'boolean' : 'string')) return undefined
  return optionShares(options, String(answer), logprobs)
}

/**
 * Finds, from the end, the token the chosen option begins with, and shares its alternatives among the options they
 * begin: an alternative that could begin two options (their first tokens are the same) makes the answer unreadable.
 */
function optionShares(
  options: readonly string[],
  chosen: string,
  logprobs: readonly TokenLogprob[],
): Record<string, number> | undefined {
  for (let at = logprobs.length - 1; at >= 0; at--) {
    const token = logprobs[at] as TokenLogprob
    if (optionOf(options, token.token) !== chosen || !spells(logprobs, at, chosen)) continue
    return sharesAt(options, token)
  }
  return undefined
}

/** The option a token begins: undefined for none (or blank), null when it could begin several. */
function optionOf(options: readonly string[], token: string): string | undefined | null {
  const text = token.trim().replace(/^"/, '')
  if (text === '') return undefined
  const matches = options.filter((option) => option.startsWith(text))
  return matches.length > 1 ? null : matches[0]
}

/** Shares the alternatives at the answer token among the options they begin, renormalised. */
function sharesAt(options: readonly string[], token: TokenLogprob): Record<string, number> | undefined {
  const shares = new Map<string, number>()
  const alternatives = token.topLogprobs.some((top) => top.token === token.token)
    ? token.topLogprobs
    : [{ token: token.token, logprob: token.logprob }, ...token.topLogprobs]
  for (const alternative of alternatives) {
    const option = optionOf(options, alternative.token)
    if (option === null) return undefined
    if (option === undefined || !Number.isFinite(alternative.logprob)) continue
    shares.set(option, (shares.get(option) ?? 0) + Math.exp(alternative.logprob))
  }
  const total = [...shares.values()].reduce((sum, share) => sum + share, 0)
  if (!(total > 0)) return undefined
  return Object.fromEntries(options.map((option) => [option, (shares.get(option) ?? 0) / total]))
}

/**
 * The probability of `true` at every yes/no value written for `field` in one answer, in the order written (a list of
 * judged statements, each with its own verdict); undefined without logprobs or when one of them cannot be read.
 */
export function predicateShares(field: string, logprobs: readonly TokenLogprob[] | undefined): number[] | undefined {
  if (logprobs === undefined || logprobs.length === 0) return undefined
  const key = new RegExp(`"${field}"\\s*:\\s*$`)
  const found: number[] = []
  let written = ''
  for (const token of logprobs) {
    if (key.test(written) && token.token.trim() !== '') {
      const shares = /^\s*(true|false)/.test(token.token) ? sharesAt(PREDICATE, token) : undefined
      if (shares === undefined) return undefined
      found.push(shares.true as number)
    }
    // Only the tail matters for the key: the text stays short however long the answer.
    written = (written + token.token).slice(-field.length - 16)
  }
  return found
}

const PREDICATE = ['true', 'false']

/** True when the tokens from `at` on spell `text` (after an opening quote), so the option is the answer there. */
function spells(logprobs: readonly TokenLogprob[], at: number, text: string): boolean {
  let written = ''
  for (let index = at; index < logprobs.length && written.length < text.length + 1; index++) {
    written += (logprobs[index] as TokenLogprob).token
  }
  return written.trimStart().replace(/^"/, '').startsWith(text)
}
