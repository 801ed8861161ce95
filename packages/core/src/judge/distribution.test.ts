import { describe, expect, it } from 'vitest'
import { distributionOf } from './distribution.js'
import type { TokenLogprob } from './types.js'

const token = (text: string, top: Record<string, number> = {}): TokenLogprob => ({
  token: text,
  logprob: Math.log(top[text] ?? 1),
  topLogprobs: Object.entries(top).map(([alternative, p]) => ({ token: alternative, logprob: Math.log(p) })),
})
const choice = {
  kind: 'choice',
  instructions: 'Tone?',
  state: {},
  options: ['Polite', 'Rude', 'Neutral'],
  field: 'verdict',
} as const

describe('distributionOf', () => {
  it('shares a choice among the options its answer token begins, renormalised over those returned', () => {
    const logprobs = [token('{"verdict":"'), token('Pol', { Pol: 0.6, Rude: 0.2, Ne: 0.1, xyz: 0.1 }), token('ite"}')]
    const distribution = distributionOf(choice, { verdict: 'Polite' }, logprobs)
    expect(distribution?.Polite).toBeCloseTo(0.6 / 0.9, 9)
    expect(distribution?.Rude).toBeCloseTo(0.2 / 0.9, 9)
    expect(distribution?.Neutral).toBeCloseTo(0.1 / 0.9, 9)
  })

  it('gives none when an alternative begins two options, or the answer token is not there', () => {
    const same = { ...choice, options: ['Polite', 'Poor'] }
    expect(
      distributionOf(same, { verdict: 'Polite' }, [token('"'), token('Po', { Po: 0.9 }), token('lite"')]),
    ).toBeUndefined()
    expect(distributionOf(choice, { verdict: 'Rude' }, [token('{"verdict":"Polite"}')])).toBeUndefined()
    expect(distributionOf(choice, { verdict: 'Rude' }, undefined)).toBeUndefined()
  })

  it('reads a score over its levels as G-Eval does, and no score distribution from a raw score', () => {
    const score = { kind: 'score', instructions: 'Rate', state: {}, levels: [1, 2, 3, 4, 5], field: 'score' } as const
    const logprobs = [token('{"score":'), token('4', { '4': 0.5, '5': 0.3, '3': 0.2 }), token('}')]
    const read = distributionOf(score, { score: 4 }, logprobs) ?? {}
    expect(Object.keys(read)).toEqual(['1', '2', '3', '4', '5'])
    for (const [level, p] of Object.entries({ '1': 0, '2': 0, '3': 0.2, '4': 0.5, '5': 0.3 })) {
      expect(read[level]).toBeCloseTo(p, 9)
    }
    expect(distributionOf(score, { score: 4 }, [token('{"score":4}')])).toBeUndefined()
  })
})
