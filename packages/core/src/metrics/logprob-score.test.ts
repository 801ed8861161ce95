import { describe, expect, it } from 'vitest'
import type { TokenLogprob } from '../judge/types.js'
import { weightScore } from './logprob-score.js'

function token(text: string, top: Record<string, number>): TokenLogprob {
  return {
    token: text,
    logprob: Math.log(top[text] ?? 1),
    topLogprobs: Object.entries(top).map(([alternative, p]) => ({ token: alternative, logprob: Math.log(p) })),
  }
}

describe('weightScore', () => {
  it('takes the probability-weighted mean of the last score token’s integer alternatives', () => {
    const weighting = weightScore(
      7,
      [token('7', { '7': 0.5, '1': 0.5 }), token('","score":', {}), token('7', { '7': 0.6, '8': 0.3, '6': 0.1 })],
      [0, 10],
    )

    expect(weighting.mode).toBe('weighted')
    expect(weighting.score).toBeCloseTo(7.2, 10)
  })

  it('merges spellings of the same score, drops words and out-of-range values, and renormalises', () => {
    const weighting = weightScore(4, [token('4', { '4': 0.4, ' 4': 0.2, '5': 0.2, four: 0.1, '9': 0.1 })], [0, 5])

    expect(weighting.mode === 'weighted' && weighting.alternatives.map(({ value }) => value)).toEqual([4, 5])
    expect(weighting.mode === 'weighted' && weighting.alternatives[0]?.probability).toBeCloseTo(0.75, 10)
    expect(weighting.score).toBeCloseTo(4.25, 10)
  })

  it('counts the chosen token when the server leaves it out of the alternatives', () => {
    const chosen: TokenLogprob = {
      token: '3',
      logprob: Math.log(0.5),
      topLogprobs: [{ token: '4', logprob: Math.log(0.5) }],
    }

    expect(weightScore(3, [chosen], [0, 10]).score).toBeCloseTo(3.5, 10)
  })

  it('falls back to the raw score, saying why, when it cannot weight', () => {
    expect(weightScore(6, undefined, [0, 10])).toEqual({
      mode: 'raw',
      score: 6,
      note: 'raw score: the judge returned no logprobs',
    })
    expect(weightScore(6, [token('5', { '5': 1 })], [0, 10]).note).toBe(
      'raw score: the score token was not found in the logprobs',
    )
    expect(weightScore(6, [token('6', { '6': 0, x: 0.5 })], [0, 10]).note).toBe(
      "raw score: none of the score token's alternatives is an integer from 0 to 10",
    )
  })
})
