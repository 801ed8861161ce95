import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { jsonReply, type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { PLAYFUL, playfulChatbotDag } from '../../test/support/walkthroughs.js'
import { ConfigurationError, MeasurementAbortedError } from '../errors.js'
import { OpenAIJudge } from '../judge/openai-judge.js'
import type { JudgeRequest } from '../judge/types.js'
import { ConversationalDAGMetric } from '../metrics/dag-metric.js'
import { createJudgeRuntime, defaultJudgeRuntime, isRuntimeJudge } from './judge-runtime.js'

const schema = z.object({ verdict: z.boolean() })
const ask = (content: string, signal?: AbortSignal): JudgeRequest<{ verdict: boolean }> => ({
  messages: [{ role: 'user', content }],
  schema,
  schemaName: 'verdict',
  promptVersion: 'test@1',
  signal,
})

let server: OpenAIServer
let dir: string

beforeAll(async () => {
  server = await startOpenAIServer()
})
afterAll(() => server.close())
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'judgetree-runtime-'))
  server.requests.length = 0
  server.respondWith(() => jsonReply({ verdict: true }, { delayMs: 100 }))
})
afterEach(async () => {
  vi.unstubAllEnvs()
  await rm(dir, { recursive: true, force: true })
})

const openai = () => new OpenAIJudge({ baseURL: server.baseURL, apiKey: 'sk-local', maxRetries: 0 })

describe('JudgeRuntime', () => {
  it('makes one call for identical requests in flight together, billing one of them', async () => {
    const runtime = createJudgeRuntime({ cache: 'read-write', cacheDir: dir, concurrency: 4 })
    const judge = runtime.wrap(openai())
    const responses = await Promise.all(Array.from({ length: 5 }, () => judge.generate(ask('same question'))))
    expect(server.requests).toHaveLength(1)
    expect(responses.map((response) => response.cached).sort()).toEqual([false, true, true, true, true])
    expect(responses.every((response) => response.value.verdict)).toBe(true)
    expect(runtime.stats()).toMatchObject({ requests: 5, sharedCalls: 4, judgeCalls: 1, cacheHits: 0 })
  })

  it('lets one waiter of a shared call give up alone, and cancels the call when all have', async () => {
    const runtime = createJudgeRuntime({ cache: 'read-only', cacheDir: dir, concurrency: 4 })
    const judge = runtime.wrap(openai())
    const quitter = new AbortController()
    const gaveUp = judge.generate(ask('shared', quitter.signal))
    const stayed = judge.generate(ask('shared'))
    setTimeout(() => quitter.abort(), 20)
    await expect(gaveUp).rejects.toBeInstanceOf(MeasurementAbortedError)
    expect((await stayed).value.verdict).toBe(true)
    expect(server.requests).toHaveLength(1)

    const everyone = new AbortController()
    const both = [judge.generate(ask('alone', everyone.signal)), judge.generate(ask('alone', everyone.signal))]
    setTimeout(() => everyone.abort(), 20)
    const started = performance.now()
    await expect(Promise.all(both)).rejects.toBeInstanceOf(MeasurementAbortedError)
    expect(performance.now() - started).toBeLessThan(90)
  })

  it('wraps a judge once: wrapping a wrapped judge, even in another runtime, returns it unchanged', () => {
    const runtime = createJudgeRuntime({ cache: 'off', cacheDir: dir, concurrency: 1 })
    const inner = openai()
    const wrapped = runtime.wrap(inner)
    expect(runtime.wrap(inner)).toBe(wrapped)
    expect(runtime.wrap(wrapped)).toBe(wrapped)
    expect(createJudgeRuntime({ cache: 'off', cacheDir: dir, concurrency: 2 }).wrap(wrapped)).toBe(wrapped)
    expect(wrapped.name).toBe(inner.name)
    expect(wrapped.cacheIdentity).toBe(inner.cacheIdentity)
    expect(isRuntimeJudge(wrapped)).toBe(true)
    expect(isRuntimeJudge(inner)).toBe(false)
  })

  it('serves every metric through the default runtime, and keeps an explicitly wrapped judge on its own', async () => {
    server.respondWith(() => jsonReply({ output: 'summary' }))
    const plain = new ConversationalDAGMetric({ name: 'P', dag: playfulChatbotDag(), model: openai() })
    expect(isRuntimeJudge(plain.options.judge)).toBe(true)
    expect(defaultJudgeRuntime().cache).toBe('off')

    const runtime = createJudgeRuntime({ cache: 'off', cacheDir: dir, concurrency: 1 })
    const explicit = new ConversationalDAGMetric({ name: 'P', dag: playfulChatbotDag(), model: runtime.wrap(openai()) })
    const before = defaultJudgeRuntime().stats().requests
    await explicit.measure({ turns: [{ role: 'user', content: PLAYFUL.summary }] })
    expect(runtime.stats().requests).toBeGreaterThan(0)
    expect(defaultJudgeRuntime().stats().requests).toBe(before)
  })

  it('reads unset options from JUDGETREE_* variables, resolving the directory against the working directory', () => {
    vi.stubEnv('JUDGETREE_CACHE', 'replay')
    vi.stubEnv('JUDGETREE_CACHE_DIR', 'some/cache')
    vi.stubEnv('JUDGETREE_CONCURRENCY', '3')
    vi.stubEnv('JUDGETREE_RPM', '120')
    const runtime = createJudgeRuntime()
    expect(runtime).toMatchObject({ cache: 'replay', concurrency: 3, requestsPerMinute: 120 })
    expect(runtime.cacheDir).toBe(resolve('some/cache'))
    expect(createJudgeRuntime({ cache: 'off', concurrency: 5 })).toMatchObject({ cache: 'off', concurrency: 5 })
  })

  it('defaults to read-write in .judgetree/cache with 8 calls at once and no rate limit', () => {
    for (const name of ['JUDGETREE_CACHE', 'JUDGETREE_CACHE_DIR', 'JUDGETREE_CONCURRENCY', 'JUDGETREE_RPM']) {
      vi.stubEnv(name, '')
    }
    const runtime = createJudgeRuntime()
    expect(runtime).toMatchObject({ cache: 'read-write', concurrency: 8, requestsPerMinute: undefined })
    expect(runtime.cacheDir).toBe(resolve('.judgetree/cache'))
  })

  it('names a malformed variable or option and what it should be', () => {
    vi.stubEnv('JUDGETREE_CACHE', 'sometimes')
    expect(() => createJudgeRuntime()).toThrow(
      "JUDGETREE_CACHE must be one of 'read-write', 'read-only', 'replay', 'off'; got 'sometimes'.",
    )
    vi.stubEnv('JUDGETREE_CACHE', '')
    vi.stubEnv('JUDGETREE_CONCURRENCY', '0')
    expect(() => createJudgeRuntime()).toThrow("JUDGETREE_CONCURRENCY must be a whole number from 1 and up; got '0'.")
    expect(() => createJudgeRuntime({ cache: 'off', cacheDir: dir, concurrency: 1.5 })).toThrow(ConfigurationError)
    expect(() => createJudgeRuntime({ cache: 'off', cacheDir: dir, concurrency: 1.5 })).toThrow(
      'Expected `concurrency` to be a whole number from 1 and up, got `1.5` (number).',
    )
    expect(() => createJudgeRuntime({ cache: 'sometimes' as never, cacheDir: dir, concurrency: 1 })).toThrow(
      "Expected `cache` to be one of 'read-write', 'read-only', 'replay', 'off', got 'sometimes' (string).",
    )
  })

  it('lists every wrong option at once, and names the option a mistyped key meant', () => {
    expect(() =>
      createJudgeRuntime({ cache: 'sometimes', cacheDir: dir, requestsPerMinute: 0, concurency: 4 } as never),
    ).toThrow(
      [
        'Invalid options for createJudgeRuntime:',
        "  - Expected `cache` to be one of 'read-write', 'read-only', 'replay', 'off', got 'sometimes' (string).",
        '  - Expected `requestsPerMinute` to be a number of requests per minute from 0.0000279 (one per 24.8 days) up, got `0` (number).',
        '  - unknown option `concurency`; did you mean `concurrency`?',
      ].join('\n'),
    )
  })
})
