import { afterEach, describe, expect, it, vi } from 'vitest'
import { ConfigurationError } from '../errors.js'
import { OpenAIJudge } from './openai-judge.js'
import { resolveJudge } from './resolve-judge.js'
import type { JudgeModel } from './types.js'

afterEach(() => {
  vi.unstubAllEnvs()
})

describe('resolveJudge', () => {
  it('builds one OpenAIJudge per model name and shares it', () => {
    const first = resolveJudge('gpt-4.1-nano')

    expect(first).toBeInstanceOf(OpenAIJudge)
    expect(first.name).toBe('gpt-4.1-nano')
    expect(resolveJudge('gpt-4.1-nano')).toBe(first)
    expect(resolveJudge('gpt-4o-mini')).not.toBe(first)
  })

  it('uses the default model for undefined, shared with the same name given explicitly', () => {
    vi.stubEnv('JUDGETREE_MODEL', 'o4-mini')

    const fallback = resolveJudge(undefined)

    expect(fallback.name).toBe('o4-mini')
    expect(resolveJudge(undefined)).toBe(fallback)
    expect(resolveJudge('o4-mini')).toBe(fallback)
  })

  it('returns a JudgeModel as it is, without sharing it', () => {
    const custom: JudgeModel = { name: 'gpt-4.1', generate: () => Promise.reject(new Error('unused')) }

    expect(resolveJudge(custom)).toBe(custom)
    expect(resolveJudge('gpt-4.1')).not.toBe(custom)
  })

  it('rejects anything else, saying what was passed and what is accepted', () => {
    expect(() => resolveJudge(42 as never)).toThrow(ConfigurationError)
    expect(() => resolveJudge({ name: 'x' } as never)).toThrow(/got an object with keys `name` \(object\)/)
    expect(() => resolveJudge('')).toThrow(/a model name such as 'gpt-4.1', an object implementing JudgeModel/)
  })
})
