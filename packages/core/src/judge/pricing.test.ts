import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../errors.js'
import { costOf, DEFAULT_MODEL_PRICES, registerModelPrices } from './pricing.js'

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
})
