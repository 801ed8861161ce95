import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../errors.js'
import {
  costOf,
  DEFAULT_DECISION_PRICES,
  DEFAULT_MODEL_PRICES,
  decisionCostOf,
  PRICES_CHECKED,
  registerModelPrices,
} from './pricing.js'

describe('costOf', () => {
  it('prices a known model per million tokens', () => {
    expect(costOf('gpt-4.1', 1_000, 500)).toBe(0.006)
    expect(costOf('gpt-4o-mini', 1_000_000, 1_000_000)).toBe(0.75)
    expect(costOf('gpt-5-nano', 0, 0)).toBe(0)
  })

  it('prices a dated snapshot like its alias, without confusing mini with the full model', () => {
    expect(costOf('gpt-4.1-2025-04-14', 1_000, 500)).toBe(0.006)
    expect(costOf('gpt-4.1-mini-2025-04-14', 1_000_000, 0)).toBe(0.4)
    expect(costOf('gpt-4o-2024-08-06', 0, 1_000_000)).toBe(10)
  })

  it('returns undefined for an unknown model, including Object.prototype names', () => {
    expect(costOf('llama3.1:8b', 1_000, 500)).toBeUndefined()
    expect(costOf('gpt-4.1-preview', 1_000, 500)).toBeUndefined()
    expect(costOf('constructor', 1_000, 500)).toBeUndefined()
  })

  it('lets extra prices add models and override the built-in ones', () => {
    const extra = {
      'llama3.1:8b': { inputPerMillion: 0, outputPerMillion: 0 },
      'gpt-4.1': { inputPerMillion: 1, outputPerMillion: 1 },
    }

    expect(costOf('llama3.1:8b', 1_000, 500, extra)).toBe(0)
    expect(costOf('gpt-4.1', 1_000_000, 0, extra)).toBe(1)
    expect(costOf('gpt-4.1-2025-04-14', 1_000_000, 0, extra)).toBe(1)
    expect(costOf('gpt-4o', 1_000_000, 0, extra)).toBe(2.5)
  })

  it('cannot be changed by callers', () => {
    expect(Object.isFrozen(DEFAULT_MODEL_PRICES)).toBe(true)
  })

  it("takes prices registered for the process, below a judge's own pricing and above the built-in table", () => {
    registerModelPrices({ 'registered-model-x': { inputPerMillion: 3, outputPerMillion: 0 } })

    expect(costOf('registered-model-x', 1_000_000, 1_000_000)).toBe(3)
    expect(costOf('registered-model-x-2025-01-01', 1_000_000, 0)).toBe(3)
    expect(
      costOf('registered-model-x', 1_000_000, 0, { 'registered-model-x': { inputPerMillion: 7, outputPerMillion: 0 } }),
    ).toBe(7)
  })

  it('rejects malformed prices, listing each, and registers none of the batch', () => {
    const register = () =>
      registerModelPrices({
        'good-model-y': { inputPerMillion: 1, outputPerMillion: 1 },
        'bad-model-z': { inputPerMillion: -1, outputPerMillion: Number.NaN },
      })

    expect(register).toThrow(ConfigurationError)
    expect(register).toThrow(/"bad-model-z".inputPerMillion[\s\S]*"bad-model-z".outputPerMillion/)
    expect(costOf('good-model-y', 1_000_000, 0)).toBeUndefined()
  })

  it('prices cached prompt tokens at the cached-input price, and the rest of the prompt at the input price', () => {
    // gpt-6-luna: $0.10 input, $0.01 cached input, $0.50 output per 1M tokens.
    // 600,000 uncached × 0.10 + 400,000 cached × 0.01 + 200,000 output × 0.50 = 60,000 + 4,000 + 100,000 micro-USD.
    expect(costOf('gpt-6-luna', 1_000_000, 200_000, undefined, 400_000)).toBeCloseTo(0.164, 12)
    expect(costOf('gpt-6-luna', 1_000_000, 200_000)).toBeCloseTo(0.2, 12)
    // Reasoning tokens are part of the completion tokens and cost the output price: nothing to pass.
    expect(costOf('gpt-6-luna-2026-09-22', 0, 1_000_000, undefined, 0)).toBe(0.5)
  })

  it('bills cached tokens as input for a model without a cached price, and never more cached than prompt tokens', () => {
    expect(costOf('gpt-4o', 1_000_000, 0, undefined, 1_000_000)).toBe(2.5)
    expect(costOf('gpt-4.1', 1_000, 0, undefined, 5_000)).toBe(costOf('gpt-4.1', 1_000, 0, undefined, 1_000))
    expect(costOf('gpt-4.1', 1_000, 0, undefined, -5)).toBe(costOf('gpt-4.1', 1_000, 0))
  })

  it('covers the current families with the prices their sources state, dated, and leaves the rest unpriced', () => {
    expect(PRICES_CHECKED).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(DEFAULT_MODEL_PRICES['gpt-6-luna']).toEqual({
      inputPerMillion: 0.1,
      cachedInputPerMillion: 0.01,
      outputPerMillion: 0.5,
    })
    expect(DEFAULT_MODEL_PRICES['gpt-6-sol']).toEqual({
      inputPerMillion: 2,
      cachedInputPerMillion: 0.2,
      outputPerMillion: 10,
    })
    expect(costOf('gpt-6.1-sol', 1_000_000, 0, undefined, 1_000_000)).toBe(0.1)
    expect(costOf('gpt-5.1-2025-11-13', 0, 1_000_000)).toBe(10)
    // Not in any source read: no price rather than a guess.
    expect(costOf('gpt-5.6-sol', 1_000, 500)).toBeUndefined()
    expect(costOf('gpt-6-terra', 1_000, 500)).toBeUndefined()
    expect(costOf('gpt-7-luna', 1_000, 500)).toBeUndefined()
  })

  it('registers a cached-input price, and rejects a malformed one naming it', () => {
    registerModelPrices({ 'cached-model-w': { inputPerMillion: 4, cachedInputPerMillion: 1, outputPerMillion: 0 } })
    expect(costOf('cached-model-w', 1_000_000, 0, undefined, 500_000)).toBe(2.5)

    const register = () =>
      registerModelPrices({
        'cached-model-v': { inputPerMillion: 1, outputPerMillion: 1, cachedInputPerMillion: -0.1 },
      })
    expect(register).toThrow(/"cached-model-v".cachedInputPerMillion must be a number of USD from 0 and up/)
    expect(costOf('cached-model-v', 1_000_000, 0)).toBeUndefined()
  })
})

describe('decisionCostOf', () => {
  it("prices gpt-6-luna's decisions at the Decisions API price, never at a chat price", () => {
    expect(DEFAULT_DECISION_PRICES['gpt-6-luna']).toEqual({ inputPerMillion: 0.1, outputPerMillion: 0 })
    expect(decisionCostOf('gpt-6-luna', 1_000_000, 1_000_000)).toBe(0.1)
    expect(decisionCostOf('gpt-6-luna-2026-10-06', 1_000_000, 0, undefined, 500_000)).toBe(0.1)
    // The chat price of gpt-6-luna (output $0.50) and a registered chat price never apply to decisions.
    expect(costOf('gpt-6-luna', 1_000_000, 1_000_000)).not.toBe(0.1)
    registerModelPrices({ 'decision-test-model': { inputPerMillion: 9, outputPerMillion: 9 } })
    expect(decisionCostOf('decision-test-model', 1_000, 0)).toBeUndefined()
    expect(
      decisionCostOf('decision-test-model', 1_000_000, 0, {
        'decision-test-model': { inputPerMillion: 2, outputPerMillion: 0 },
      }),
    ).toBe(2)
  })
})
