import type { TokenLogprob } from './types.js'

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
 *
 * Tokenizers that split numbers write 10 as "1" then "0", so at the score's position a "1" may be the start of 10
 * as well as the score 1. Tokenizers with whole-number tokens (OpenAI's, Llama 3's) write 10 as one token "10", and
 * their "1" is the score 1. A multi-digit score token among the alternatives at the position shows the second kind:
 * then every alternative is read as the score it spells. Without one, a token that may begin a longer score is not
 * counted, and when it is the judge's own score token the distribution is not read at all.
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
  const found = findScoreTokens(logprobs, wanted)
  if (found === undefined) {
    return { mode: 'raw', score: raw, note: 'raw score: the score token was not found in the logprobs' }
  }
  const [low, high] = range
  const longer = (text: string) => longerScores(text, low, high)
  const token = found[0] as TokenLogprob
  if (found.length > 1) {
    const pieces = found.map((piece) => JSON.stringify(piece.token.trim())).join(' then ')
    return {
      mode: 'raw',
      score: raw,
      note:
        `raw score: the judge wrote ${raw} as ${found.length} tokens (${pieces}), so the probabilities at its first ` +
        'token mix several scores',
    }
  }
  const chosen = token.token.trim()
  const candidates = token.topLogprobs.some((top) => top.token.trim() === chosen)
    ? token.topLogprobs
    : [{ token: token.token, logprob: token.logprob }, ...token.topLogprobs]
  const wholeNumbers = candidates.some((candidate) => isMultiDigitScore(candidate.token.trim(), low, high))
  // A token that may begin a longer score in range ("1" for 10) cannot be read as one score, unless the
  // tokenizer is seen to write multi-digit scores as one token.
  const mayBegin = (text: string) => (wholeNumbers ? [] : longer(text))
  if (mayBegin(chosen).length > 0) {
    return {
      mode: 'raw',
      score: raw,
      note:
        `raw score: the score token ${JSON.stringify(chosen)} may also begin ${longer(chosen).join(', ')} (no ` +
        'alternative at its position is a multi-digit score), so its probability may mix scores',
    }
  }
  const probabilities = new Map<number, number>()
  const ignored = new Set<string>()
  for (const candidate of candidates) {
    const text = candidate.token.trim()
    if (!INTEGER_TOKEN.test(text)) continue
    // A judge's logprob is a number; anything else is not read as a probability (Math.exp(null) would be 1).
    if (typeof candidate.logprob !== 'number') continue
    const value = Number(text)
    if (value < low || value > high) continue
    if (mayBegin(text).length > 0) {
      ignored.add(text)
      continue
    }
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
  const skipped = [...ignored].map(
    (text) =>
      `${JSON.stringify(text)} (it may also begin ${longer(text).join(', ')}, and no alternative is a multi-digit score)`,
  )
  return {
    mode: 'weighted',
    score,
    alternatives,
    note:
      `weighted by logprobs over ${count} alternative${count === 1 ? '' : 's'} (${shares}): ` +
      `${round(score)}; the judge answered ${raw}` +
      (skipped.length > 0 ? `; not counted: ${skipped.join(', ')}` : ''),
  }
}

/**
 * The tokens the judge wrote its score with, searched from the end: one token ("10", " 7") or a run of digit
 * tokens ("1", "0") that together spell exactly the score, with no digit on either side.
 */
function findScoreTokens(logprobs: readonly TokenLogprob[], wanted: string): readonly TokenLogprob[] | undefined {
  for (let start = logprobs.length - 1; start >= 0; start--) {
    const first = (logprobs[start] as TokenLogprob).token
    if (!/^\s*\d+\s*$/.test(first) || /\d$/.test(logprobs[start - 1]?.token ?? '')) continue
    let text = first.trim()
    let end = start
    // A number split into digit tokens continues only while no whitespace comes between them.
    while (!/\s$/.test((logprobs[end] as TokenLogprob).token) && /^\d+\s*$/.test(logprobs[end + 1]?.token ?? '')) {
      end += 1
      text += (logprobs[end] as TokenLogprob).token.trim()
    }
    if (text === wanted) return logprobs.slice(start, end + 1)
  }
  return undefined
}

/** True for a token that spells a score of two or more digits in range ("10" on 0..10; not "7", not "07"). */
function isMultiDigitScore(text: string, low: number, high: number): boolean {
  if (!INTEGER_TOKEN.test(text) || text.length < 2 || String(Number(text)) !== text) return false
  const value = Number(text)
  return value >= low && value <= high
}

/** The scores in range, other than `text` itself, whose digits begin with `text` (for "1" on 0..10: 10). */
function longerScores(text: string, low: number, high: number): number[] {
  const scores: number[] = []
  for (let value = low; value <= high; value++) {
    const digits = String(value)
    if (digits !== text && digits.startsWith(text)) scores.push(value)
  }
  return scores
}

function percent(probability: number): string {
  return `${Math.round(probability * 1000) / 10}%`
}

function round(value: number): string {
  return String(Math.round(value * 1000) / 1000)
}
