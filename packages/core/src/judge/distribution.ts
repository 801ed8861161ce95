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
  const options = question.kind === 'predicate' ? ['true', 'false'] : question.options
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
  const optionOf = (token: string): string | undefined | null => {
    const text = token.trim().replace(/^"/, '')
    if (text === '') return undefined
    const matches = options.filter((option) => option.startsWith(text))
    return matches.length > 1 ? null : matches[0]
  }
  for (let at = logprobs.length - 1; at >= 0; at--) {
    const token = logprobs[at] as TokenLogprob
    if (optionOf(token.token) !== chosen || !spells(logprobs, at, chosen)) continue
    const shares = new Map<string, number>()
    const alternatives = token.topLogprobs.some((top) => top.token === token.token)
      ? token.topLogprobs
      : [{ token: token.token, logprob: token.logprob }, ...token.topLogprobs]
    for (const alternative of alternatives) {
      const option = optionOf(alternative.token)
      if (option === null) return undefined
      if (option === undefined || !Number.isFinite(alternative.logprob)) continue
      shares.set(option, (shares.get(option) ?? 0) + Math.exp(alternative.logprob))
    }
    const total = [...shares.values()].reduce((sum, share) => sum + share, 0)
    if (!(total > 0)) return undefined
    return Object.fromEntries(options.map((option) => [option, (shares.get(option) ?? 0) / total]))
  }
  return undefined
}

/** True when the tokens from `at` on spell `text` (after an opening quote), so the option is the answer there. */
function spells(logprobs: readonly TokenLogprob[], at: number, text: string): boolean {
  let written = ''
  for (let index = at; index < logprobs.length && written.length < text.length + 1; index++) {
    written += (logprobs[index] as TokenLogprob).token
  }
  return written.trimStart().replace(/^"/, '').startsWith(text)
}
