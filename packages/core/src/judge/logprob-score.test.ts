import { describe, expect, it } from 'vitest'
import { weightScore } from './logprob-score.js'
import type { TokenLogprob } from './types.js'

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

  describe('on a 0–10 scale, with tokenizers that write 10 as one token or as "1" then "0"', () => {
    const around = (score: TokenLogprob[]) => [token('{"reason":"Solid.","score":', {}), ...score, token('}', {})]

    it('one token: a judge torn between 9 and 10 comes out at 9.5', () => {
      const weighting = weightScore(9, around([token('9', { '9': 0.5, '10': 0.5 })]), [0, 10])
      expect(weighting.score).toBeCloseTo(9.5, 10)
      expect(weighting.note).toBe(
        'weighted by logprobs over 2 alternatives (9: 50%, 10: 50%): 9.5; the judge answered 9',
      )
    })

    it('split digits: a "1" at the score position may be 10, so it is not counted as the score 1', () => {
      const weighting = weightScore(9, around([token('9', { '9': 0.5, '1': 0.5 })]), [0, 10])
      expect(weighting.mode).toBe('weighted')
      expect(weighting.score).toBe(9)
      expect(weighting.note).toBe(
        'weighted by logprobs over 1 alternative (9: 100%): 9; the judge answered 9; not counted: "1" (it may also begin 10, and no alternative is a multi-digit score)',
      )
    })

    it('one token "10" among the alternatives: the tokenizer writes whole numbers, so "1" is the score 1', () => {
      const weighting = weightScore(10, around([token('10', { '10': 0.6, '9': 0.3, '1': 0.1 })]), [0, 10])
      expect(weighting.score).toBeCloseTo(10 * 0.6 + 9 * 0.3 + 1 * 0.1, 10)
      expect(weighting.note).toBe(
        'weighted by logprobs over 3 alternatives (1: 10%, 9: 30%, 10: 60%): 8.8; the judge answered 10',
      )
    })

    it('split digits "1" then "0": the probabilities at the first digit mix scores, so the raw score is used', () => {
      const split = around([token('1', { '1': 0.7, '9': 0.3 }), token('0', { '0': 0.9, '}': 0.1 })])
      expect(weightScore(10, split, [0, 10])).toEqual({
        mode: 'raw',
        score: 10,
        note: 'raw score: the judge wrote 10 as 2 tokens ("1" then "0"), so the probabilities at its first token mix several scores',
      })
    })

    it('a score of 1 on 0–10 with no multi-digit alternative cannot be told from the start of 10: raw score', () => {
      expect(weightScore(1, around([token('1', { '1': 0.6, '2': 0.4 })]), [0, 10])).toEqual({
        mode: 'raw',
        score: 1,
        note: 'raw score: the score token "1" may also begin 10 (no alternative at its position is a multi-digit score), so its probability may mix scores',
      })
    })

    it('"07" or a number out of range is no sign of whole-number tokens; "1" stays uncounted', () => {
      const padded = weightScore(9, around([token('9', { '9': 0.5, '1': 0.3, '07': 0.1, '12': 0.1 })]), [0, 10])
      expect(padded.mode === 'weighted' && padded.alternatives.map(({ value }) => value)).toEqual([7, 9])
      expect(padded.score).toBeCloseTo((7 * 0.1 + 9 * 0.5) / 0.6, 10)
    })
  })

  describe('OpenAI-style distributions: top_logprobs list every score token, "10" included', () => {
    const around = (score: TokenLogprob[]) => [token('{"reason":"Weak.","score":', {}), ...score, token('}', {})]
    /** The rest of the 0..10 tokens share `rest` evenly, as the tail of a top-20 list does. */
    const openAI = (top: Record<string, number>, rest = 0.011) => {
      const others = Array.from({ length: 11 }, (_, value) => String(value)).filter((value) => !(value in top))
      return { ...top, ...Object.fromEntries(others.map((value) => [value, rest / others.length])) }
    }

    it('a judge torn between 2 and 1 keeps the mass on 1: {2: .5, 1: .4, 3: .089, …}', () => {
      const top = openAI({ '2': 0.5, '1': 0.4, '3': 0.089 })
      const weighting = weightScore(2, around([token('2', top)]), [0, 10])
      const expected = Object.entries(top).reduce((sum, [value, p]) => sum + Number(value) * p, 0)
      expect(weighting.mode).toBe('weighted')
      expect(weighting.score).toBeCloseTo(expected, 10)
      // 1 counted: about 1.73. Left out, as before, the same answer came out at about 2.22.
      expect(weighting.score).toBeLessThan(1.75)
      expect(weighting.note).not.toContain('not counted')
    })

    it('a score of 1 is weighted too, with 10 in its alternatives', () => {
      const top = openAI({ '1': 0.7, '2': 0.2, '0': 0.09 }, 0.01)
      const weighting = weightScore(1, around([token('1', top)]), [0, 10])
      expect(weighting.mode).toBe('weighted')
      expect(weighting.mode === 'weighted' && weighting.alternatives.map(({ value }) => value)).toEqual([
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
      ])
      expect(weighting.mode === 'weighted' && weighting.alternatives[1]?.probability).toBeCloseTo(0.7, 10)
    })

    it('" 10" with a leading space counts as the multi-digit token too', () => {
      const weighting = weightScore(9, around([token('9', { '9': 0.5, ' 1': 0.25, ' 10': 0.25 })]), [0, 10])
      expect(weighting.score).toBeCloseTo(9 * 0.5 + 1 * 0.25 + 10 * 0.25, 10)
    })

    it('an alternative whose logprob is not a number is left out, never read as probability 1', () => {
      const chosen = token('7', { '7': 0.5, '8': 0.5 })
      const broken = { ...chosen, topLogprobs: [...chosen.topLogprobs, { token: '2', logprob: null as never }] }
      expect(weightScore(7, around([broken]), [0, 10]).score).toBeCloseTo(7.5, 10)
    })

    it('on a scale that ends below 10, "1" is just the score 1', () => {
      expect(weightScore(1, around([token('1', { '1': 0.5, '2': 0.5 })]), [0, 5]).score).toBeCloseTo(1.5, 10)
    })
  })
})
