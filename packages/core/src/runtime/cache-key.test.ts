import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { OpenAIJudge } from '../judge/openai-judge.js'
import type { JudgeModel, JudgeRequest } from '../judge/types.js'
import { cacheKeyOf, canonicalJson } from './cache-key.js'

const schema = z.object({ verdict: z.boolean(), reason: z.string() })
const request: JudgeRequest<unknown> = {
  messages: [
    { role: 'system', content: 'Judge.' },
    { role: 'user', content: 'Is it blue?' },
  ],
  schema,
  schemaName: 'binary_verdict',
  promptVersion: 'binary-judgement@1',
}
const judge = (options: ConstructorParameters<typeof OpenAIJudge>[0] = {}) =>
  new OpenAIJudge({ model: 'gpt-4.1', baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-one-key-000000000000', ...options })
const base = cacheKeyOf(judge(), request)

describe('cacheKeyOf', () => {
  it('is a sha256 that is stable for equal inputs', () => {
    expect(base).toMatch(/^[0-9a-f]{64}$/)
    expect(cacheKeyOf(judge(), { ...request, messages: request.messages.map((m) => ({ ...m })) })).toBe(base)
  })

  it.each([
    ['model', cacheKeyOf(judge({ model: 'gpt-4.1-mini' }), request)],
    ['temperature', cacheKeyOf(judge({ temperature: 0.7 }), request)],
    ['structured output mode', cacheKeyOf(judge({ structuredOutputs: 'json_object' }), request)],
    ['cache namespace', cacheKeyOf(judge({ cacheNamespace: 'other-server' }), request)],
    ['message text', cacheKeyOf(judge(), { ...request, messages: [{ role: 'user', content: 'Is it red?' }] })],
    ['message role', cacheKeyOf(judge(), { ...request, messages: [{ role: 'system', content: 'Is it blue?' }] })],
    ['schema', cacheKeyOf(judge(), { ...request, schema: z.object({ verdict: z.boolean() }) })],
    ['schema name', cacheKeyOf(judge(), { ...request, schemaName: 'other' })],
    ['prompt version', cacheKeyOf(judge(), { ...request, promptVersion: 'binary-judgement@2' })],
    ['logprobs request', cacheKeyOf(judge(), { ...request, topLogprobs: 5 })],
  ])('changes with the %s', (_what, key) => {
    expect(key).not.toBe(base)
  })

  it('ignores what does not change the answer: the API key, timeouts, retries, the signal', () => {
    const other = judge({ apiKey: 'sk-another-key-11111111111', timeoutMs: 5, maxRetries: 9 })
    expect(cacheKeyOf(other, { ...request, signal: new AbortController().signal })).toBe(base)
  })

  it('exposes an OpenAIJudge identity without the key, and keys a custom judge by name and identity', () => {
    expect(judge().cacheIdentity).toEqual({
      model: 'gpt-4.1',
      temperature: 0,
      structuredOutputs: 'auto',
    })
    expect(judge().endpoint).toBe('127.0.0.1:9/v1')
    // The server's address is not part of the key (a recording replays through any base URL); a namespace is.
    expect(cacheKeyOf(judge({ baseURL: 'http://10.0.0.2:8080/v1' }), request)).toBe(cacheKeyOf(judge(), request))
    expect(cacheKeyOf(judge({ cacheNamespace: 'q4' }), request)).not.toBe(cacheKeyOf(judge(), request))
    expect(() => judge({ cacheNamespace: '' })).toThrow(
      'Invalid options for OpenAIJudge:\n  - Expected `cacheNamespace` to be a non-empty name',
    )
    expect(JSON.stringify(judge().cacheIdentity)).not.toContain('sk-')
    const custom = (identity?: unknown): JudgeModel => ({
      name: 'mine',
      cacheIdentity: identity,
      generate: () => Promise.reject(new Error('unused')),
    })
    expect(cacheKeyOf(custom({ a: 1, b: 2 }), request)).toBe(cacheKeyOf(custom({ b: 2, a: 1 }), request))
    expect(cacheKeyOf(custom({ a: 1 }), request)).not.toBe(cacheKeyOf(custom({ a: 2 }), request))
    expect(cacheKeyOf(custom(), request)).not.toBe(cacheKeyOf({ ...custom(), name: 'yours' }, request))
  })
})

describe('canonicalJson', () => {
  it('sorts keys at every depth, keeps array order and drops undefined', () => {
    expect(canonicalJson({ b: [{ d: 1, c: undefined, a: 2 }], a: 'x' })).toBe('{"a":"x","b":[{"a":2,"d":1}]}')
    expect(canonicalJson([2, 1])).toBe('[2,1]')
  })
})
