import type { TokenLogprob } from '../judge/types.js'

/** How a G-Eval score was computed from the judge's answer, and why. */
export type ScoreWeighting =
  | {
      readonly mode: 'weighted'
      /** The probability-weighted mean, inside the score range. */
      readonly score: number
      /** The score values considered, with their renormalised probabilities, by value. */
      readonly alternatives: readonly { readonly value: number; readonly probability: number }[]
      readonly note: string
    }
  | { readonly mode: 'raw'; readonly score: number; readonly note: string }

const INTEGER_TOKEN = /^\d+$/

/**
 * The G-Eval score: the probability-weighted mean of the integer scores the judge considered for its score
 * token, or its raw score when that cannot be computed, saying why. The score token is searched from the end,
 * because the answer's reason comes first and may itself contain the same number.
 */
export function weightScore(
  raw: number,
  logprobs: readonly TokenLogprob[] | undefined,
  range: readonly [number, number],
): ScoreWeighting {
  if (logprobs === undefined || logprobs.length === 0) {
    return { mode: 'raw', score: raw, note: 'raw score: the judge returned no logprobs' }
  }
  const wanted = String(raw)
  const token = logprobs.findLast((entry) => entry.token.trim() === wanted)
  if (token === undefined) {
    return { mode: 'raw', score: raw, note: 'raw score: the score token was not found in the logprobs' }
  }
  const [low, high] = range
  const probabilities = new Map<number, number>()
  const candidates = token.topLogprobs.some((top) => top.token.trim() === wanted)
    ? token.topLogprobs
    : [{ token: token.token, logprob: token.logprob }, ...token.topLogprobs]
  for (const candidate of candidates) {
    const text = candidate.token.trim()
    if (!INTEGER_TOKEN.test(text)) continue
    const value = Number(text)
    if (value < low || value > high) continue
    // " 7" and "7" are different tokens for the same score.
    probabilities.set(value, (probabilities.get(value) ?? 0) + Math.exp(candidate.logprob))
  }
  const total = [...probabilities.values()].reduce((sum, probability) => sum + probability, 0)
  if (!(total > 0) || !Number.isFinite(total)) {
    return {
      mode: 'raw',
      score: raw,
      note: `raw score: none of the score token's alternatives is an integer from ${low} to ${high}`,
    }
  }
  const alternatives = [...probabilities.entries()]
    .sort(([a], [b]) => a - b)
    .map(([value, probability]) => ({ value, probability: probability / total }))
  const score = alternatives.reduce((sum, { value, probability }) => sum + value * probability, 0)
  const shares = alternatives.map(({ value, probability }) => `${value}: ${percent(probability)}`).join(', ')
  const count = alternatives.length
  return {
    mode: 'weighted',
    score,
    alternatives,
    note:
      `weighted by logprobs over ${count} alternative${count === 1 ? '' : 's'} (${shares}): ` +
      `${round(score)}; the judge answered ${raw}`,
  }
}

function percent(probability: number): string {
  return `${Math.round(probability * 1000) / 10}%`
}

function round(value: number): string {
  return String(Math.round(value * 1000) / 1000)
}
