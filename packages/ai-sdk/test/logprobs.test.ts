import { describe, expect, test } from 'vitest'
import { readLogprobs, returnsLogprobs } from '../src/internal/provider.js'

const token = (text: string, logprob: number) => ({
  token: text,
  logprob,
  bytes: [],
  top_logprobs: [{ token: text, logprob, bytes: [] }],
})

describe('readLogprobs', () => {
  test('reads the flat list of Chat Completions and the per-text lists of the Responses API alike', () => {
    const expected = [
      { token: '{"', logprob: 0, topLogprobs: [{ token: '{"', logprob: 0 }] },
      { token: '8', logprob: -0.5, topLogprobs: [{ token: '8', logprob: -0.5 }] },
    ]
    expect(readLogprobs({ openai: { logprobs: [token('{"', 0), token('8', -0.5)] } })).toEqual(expected)
    expect(readLogprobs({ openai: { logprobs: [[token('{"', 0)], [token('8', -0.5)]] } })).toEqual(expected)
  })

  test('is undefined when there are none or when they are not token logprobs', () => {
    expect(readLogprobs(undefined)).toBeUndefined()
    expect(readLogprobs({ openai: {} })).toBeUndefined()
    expect(readLogprobs({ openai: { logprobs: [] } })).toBeUndefined()
    expect(readLogprobs({ openai: { logprobs: [{ token: 8, logprob: 'high' }] } })).toBeUndefined()
  })

  test.each([
    ['a null alternative logprob', [{ ...token('7', -0.5), top_logprobs: [{ token: '2', logprob: null }] }]],
    ['top_logprobs that are not a list', [{ ...token('7', -0.5), top_logprobs: 'nope' }]],
    ['an alternative that is not an object', [{ ...token('7', -0.5), top_logprobs: [null] }]],
  ])(
    '%s makes the logprobs unreadable: never read as probability 1, never coerced, never thrown',
    (_case, logprobs) => {
      expect(readLogprobs({ openai: { logprobs } })).toBeUndefined()
    },
  )
})

test('only the @ai-sdk/openai providers are asked for logprobs', () => {
  expect(['openai.chat', 'openai.responses', 'openai'].map(returnsLogprobs)).toEqual([true, true, true])
  expect(['anthropic.messages', 'local.chat', 'openaiish.chat'].map(returnsLogprobs)).toEqual([false, false, false])
})
