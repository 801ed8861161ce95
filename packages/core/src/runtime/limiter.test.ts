import { setTimeout as sleep } from 'node:timers/promises'
import { jsonReply, type OpenAIServer, type Responder, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { JudgeCallError, MeasurementAbortedError } from '../errors.js'
import { OpenAIJudge } from '../judge/openai-judge.js'
import type { JudgeRequest } from '../judge/types.js'
import { createJudgeRuntime, type JudgeRuntimeOptions } from './judge-runtime.js'

const schema = z.object({ ok: z.boolean() })
const ask = (i: number, signal?: AbortSignal): JudgeRequest<{ ok: boolean }> => ({
  messages: [{ role: 'user', content: `call ${i}` }],
  schema,
  schemaName: 'ok',
  promptVersion: 'ok@1',
  signal,
})

let server: OpenAIServer
let arrivals: number[]
let active = 0
let peak = 0

/** Answers after `ms`, recording when each request arrived and how many were in flight at once. */
const slowly =
  (ms: number): Responder =>
  async () => {
    arrivals.push(performance.now())
    active += 1
    peak = Math.max(peak, active)
    await sleep(ms)
    active -= 1
    return jsonReply({ ok: true })
  }

beforeAll(async () => {
  server = await startOpenAIServer()
})
afterAll(() => server.close())
beforeEach(() => {
  server.requests.length = 0
  arrivals = []
  active = 0
  peak = 0
})

function judge(options: JudgeRuntimeOptions, warn?: (message: string) => void) {
  const runtime = createJudgeRuntime({ cache: 'off', cacheDir: '.unused', warn, ...options })
  return runtime.wrap(new OpenAIJudge({ baseURL: server.baseURL, apiKey: 'sk-local', maxRetries: 0 }))
}

describe('judge call limits through the OpenAI SDK', () => {
  it('keeps at most `concurrency` calls in flight at the server, and uses all of them', async () => {
    server.respondWith(slowly(40))
    const limited = judge({ concurrency: 3 })
    await Promise.all(Array.from({ length: 20 }, (_, i) => limited.generate(ask(i))))
    expect(server.requests).toHaveLength(20)
    expect(peak).toBe(3)
  })

  it('spaces call starts evenly under requestsPerMinute', async () => {
    server.respondWith(slowly(0))
    const limited = judge({ concurrency: 10, requestsPerMinute: 600 })
    await Promise.all(Array.from({ length: 5 }, (_, i) => limited.generate(ask(i))))
    const gaps = arrivals.slice(1).map((at, i) => at - (arrivals[i] as number))
    expect(gaps).toHaveLength(4)
    // Arrival times jitter by a few ms around the 100 ms spacing; unlimited, all five arrive within a few ms.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(70)
    expect((arrivals[4] as number) - (arrivals[0] as number)).toBeGreaterThanOrEqual(380)
  })

  it('pauses the queue for the Retry-After of a 429 that outlived the retries, without a warning per call', async () => {
    let first = true
    server.respondWith(async () => {
      arrivals.push(performance.now())
      if (first) {
        first = false
        return { status: 429, error: { message: 'Rate limit reached' }, headers: { 'retry-after-ms': '300' } }
      }
      return jsonReply({ ok: true })
    })
    const warnings: string[] = []
    const limited = judge({ concurrency: 1 }, (message) => warnings.push(message))
    const [limitedCall, next] = await Promise.allSettled([limited.generate(ask(1)), limited.generate(ask(2))])
    expect(limitedCall.status).toBe('rejected')
    const error = (limitedCall as PromiseRejectedResult).reason
    expect(error).toBeInstanceOf(JudgeCallError)
    expect(error).toMatchObject({ status: 429, retryAfterMs: 300 })
    expect(next.status).toBe('fulfilled')
    expect((arrivals[1] as number) - (arrivals[0] as number)).toBeGreaterThanOrEqual(280)
    expect(warnings).toEqual([])
  })

  it('retries a 429 itself after its Retry-After, holding back the other calls meanwhile, and counts it', async () => {
    server.respondWith(async ({ index }) => {
      arrivals.push(performance.now())
      if (index === 0) return { status: 429, error: { message: 'slow down' }, headers: { 'retry-after-ms': '250' } }
      return jsonReply({ ok: true })
    })
    const runtime = createJudgeRuntime({ cache: 'off', cacheDir: '.unused', concurrency: 1 })
    const limited = runtime.wrap(new OpenAIJudge({ baseURL: server.baseURL, apiKey: 'sk-local', maxRetries: 2 }))
    const results = await Promise.all([limited.generate(ask(1)), limited.generate(ask(2))])
    expect(results.map((result) => result.value)).toEqual([{ ok: true }, { ok: true }])
    expect(server.requests).toHaveLength(3)
    // Nothing reached the server during the pause, and the limit dropped for a while.
    expect((arrivals[1] as number) - (arrivals[0] as number)).toBeGreaterThanOrEqual(230)
    expect(runtime.stats()).toMatchObject({ rateLimited: 1, judgeCalls: 3 })
  })

  it('gives up on a 429 after maxRetries retries, with the status and the wait in the error', async () => {
    server.respondWith(() => ({ status: 429, error: { message: 'slow down' }, headers: { 'retry-after-ms': '20' } }))
    const runtime = createJudgeRuntime({ cache: 'off', cacheDir: '.unused', concurrency: 2 })
    const limited = runtime.wrap(new OpenAIJudge({ baseURL: server.baseURL, apiKey: 'sk-local', maxRetries: 2 }))
    const error = await limited.generate(ask(1)).catch((caught: unknown) => caught)
    expect(error).toMatchObject({ status: 429, retryAfterMs: 20 })
    expect(String((error as Error).message)).toContain('Still rate limited after the judge runtime’s retries')
    expect(server.requests).toHaveLength(3)
    expect(runtime.stats()).toMatchObject({ rateLimited: 3, currentConcurrency: 1 })
  })

  it('reads a Retry-After given in seconds', async () => {
    server.respondWith(() => ({ status: 429, error: { message: 'slow down' }, headers: { 'retry-after': '2' } }))
    const error = await judge({ concurrency: 1 }, () => {})
      .generate(ask(1))
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ status: 429, retryAfterMs: 2000 })
  })

  it('drops a queued call whose signal aborts before it starts, without calling the server', async () => {
    server.respondWith(slowly(80))
    const limited = judge({ concurrency: 1 })
    const controller = new AbortController()
    const running = limited.generate(ask(1))
    const queued = limited.generate(ask(2, controller.signal))
    controller.abort()
    await expect(queued).rejects.toBeInstanceOf(MeasurementAbortedError)
    await running
    expect(server.requests.map((request) => request.body.messages.at(-1)?.content)).toEqual(['call 1'])
  })
})
