import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createOpenAI } from '@ai-sdk/openai'
import { concurrencyProbe, jsonReply, useOpenAIServer } from '@judgetree/test-support'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { z } from 'zod'
import { DAGMetric } from '../../core/src/index.js'
import { createJudgeRuntime } from '../../core/src/runtime.js'
import { MEETING, meetingSummary, meetingSummaryDag, routeByPrompt } from '../../core/test/support/walkthroughs.js'
import { aiSdkJudge } from '../src/index.js'

const server = useOpenAIServer()
const API_KEY = 'sk-test-runtime-0123456789abcdef'
const answers = routeByPrompt([
  [MEETING.extract, { output: 'Intro, Body, Conclusion' }],
  [MEETING.present, { reason: 'All three are there.', verdict: true }],
  [MEETING.order, { reason: 'In order.', verdict: 'Yes' }],
])

let cacheDir: string
beforeEach(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'judgetree-ai-sdk-'))
})
afterEach(() => rm(cacheDir, { recursive: true, force: true }))

const judge = (baseURL = server.baseURL, model = 'gpt-4.1') =>
  aiSdkJudge(createOpenAI({ baseURL, apiKey: API_KEY }).chat(model), { maxRetries: 0 })
const measure = (model: ReturnType<typeof judge> | ReturnType<ReturnType<typeof createJudgeRuntime>['wrap']>) =>
  new DAGMetric({ name: 'Format Correctness', dag: meetingSummaryDag(), model }).measure(meetingSummary)

describe('aiSdkJudge under the judge runtime', () => {
  test('cacheIdentity tells provider and model apart, not the server (a recording replays anywhere), and holds no key', () => {
    expect(judge().cacheIdentity).toEqual({ provider: 'openai.chat', model: 'gpt-4.1', temperature: 0 })
    expect(judge().endpoint).toBe(`${new URL(server.baseURL).host}/v1`)
    expect(judge('http://127.0.0.1:1/v1').cacheIdentity).toEqual(judge().cacheIdentity)
    const apart = aiSdkJudge(createOpenAI({ baseURL: server.baseURL, apiKey: API_KEY }).chat('gpt-4.1'), {
      cacheNamespace: 'q4',
    })
    expect(apart.cacheIdentity).toMatchObject({ namespace: 'q4' })
    expect(JSON.stringify(judge().cacheIdentity)).not.toContain(API_KEY)
  })

  test('a second run is answered from the cache on disk, which holds no key; replay then needs no server', async () => {
    server.respondWith(answers)
    const runtime = createJudgeRuntime({ cache: 'read-write', cacheDir, warn: () => {} })
    const first = await measure(runtime.wrap(judge()))
    expect(first.score).toBe(1)
    expect(server.requests).toHaveLength(3)

    const second = await measure(createJudgeRuntime({ cache: 'read-write', cacheDir }).wrap(judge()))
    expect(second.score).toBe(1)
    expect(second.usage).toMatchObject({ judgeCalls: 3, cachedCalls: 3 })
    expect(server.requests).toHaveLength(3)

    const files = await readdir(cacheDir, { recursive: true })
    const texts = await Promise.all(
      files.filter((file) => file.endsWith('.json')).map((file) => readFile(join(cacheDir, file), 'utf8')),
    )
    expect(texts.length).toBeGreaterThan(0)
    for (const text of texts) expect(text).not.toContain(API_KEY)

    server.respondWith(() => ({ status: 500, error: { message: 'replay must not call the server' } }))
    const replayed = await measure(createJudgeRuntime({ cache: 'replay', cacheDir }).wrap(judge()))
    expect(replayed.score).toBe(1)
    expect(server.requests).toHaveLength(3)

    const otherModel = await measure(
      createJudgeRuntime({ cache: 'replay', cacheDir }).wrap(judge(server.baseURL, 'gpt-4.1-mini')),
    )
    expect(otherModel.error?.code).toBe('CACHE_MISS')
    expect(otherModel.error?.message).toContain('judge gpt-4.1-mini')
  })

  test('the runtime’s concurrency limit holds for aiSdkJudge calls', async () => {
    const probe = concurrencyProbe(30)
    server.respondWith(async () => {
      await probe.hold()
      return jsonReply({ output: 'Intro, Body, Conclusion' })
    })
    const runtime = createJudgeRuntime({ cache: 'off', concurrency: 2 })
    const wrapped = runtime.wrap(judge())
    await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        wrapped.generate({
          messages: [{ role: 'user', content: `Task ${index}` }],
          schema: z.object({ output: z.string() }),
          schemaName: 'task_output',
          promptVersion: 'test@1',
        }),
      ),
    )
    expect(server.requests).toHaveLength(6)
    expect(probe.max).toBe(2)
  })
})
