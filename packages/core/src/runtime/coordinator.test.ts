import { setTimeout as sleep } from 'node:timers/promises'
import { jsonReply, type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { bundleScript, runScript } from '../../test/support/fork-script.js'
import { ConfigurationError, MeasurementAbortedError } from '../errors.js'
import { OpenAIJudge } from '../judge/openai-judge.js'
import { type Coordinator, type CoordinatorStats, startCoordinator } from './coordinator.js'
import { acquireSlot } from './coordinator-client.js'
import { createJudgeRuntime } from './judge-runtime.js'

let server: OpenAIServer
let script: string
let coordinator: Coordinator | undefined

beforeAll(async () => {
  server = await startOpenAIServer()
  script = await bundleScript('coordinator-worker.ts')
})
afterAll(() => server.close())
afterEach(async () => {
  await coordinator?.close()
  coordinator = undefined
})

async function until(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; waited < 5_000; waited += 10) {
    if (check()) return
    await sleep(10)
  }
  throw new Error(`timed out waiting until ${what}`)
}

describe('coordinator', () => {
  it('caps the calls in flight across two processes at its limit, however high their own limits', async () => {
    let active = 0
    let peak = 0
    server.respondWith(async () => {
      active += 1
      peak = Math.max(peak, active)
      await sleep(40)
      active -= 1
      return jsonReply({ ok: true })
    })
    coordinator = await startCoordinator({ concurrency: 3 })
    const url = coordinator.url
    const workers = [0, 1].map(() => runScript(script, ['calls', url, server.baseURL, '12']))
    await Promise.all(workers.map((worker) => worker.done))
    expect(peak).toBe(3)
    expect(coordinator.stats()).toMatchObject({ granted: 24, peakInFlight: 3, inFlight: 0, waiting: 0 })
  }, 30_000)

  it('pauses every worker for the Retry-After of a 429 one of them got, and lowers the run’s limit', async () => {
    const arrivals: number[] = []
    let limitedAt = 0
    server.respondWith(async () => {
      arrivals.push(performance.now())
      const index = arrivals.length - 1
      await sleep(20)
      if (index === 3) {
        limitedAt = performance.now()
        return { status: 429, error: { message: 'Rate limit reached' }, headers: { 'retry-after-ms': '500' } }
      }
      return jsonReply({ ok: true })
    })
    coordinator = await startCoordinator({ concurrency: 4 })
    const url = coordinator.url
    const workers = [0, 1].map(() => runScript(script, ['calls', url, server.baseURL, '10', '2']))
    await Promise.all(workers.map((worker) => worker.done))
    // Every call succeeded (the 429 was retried by the runtime, not the SDK). In the pause nothing was sent but the
    // calls granted before the 429 reached the coordinator: at most one per other slot (3), however slow the
    // machine; without the shared pause, both workers would keep sending all through it.
    expect(arrivals).toHaveLength(21)
    const sentInPause = arrivals.filter((at) => at > limitedAt && at < limitedAt + 480)
    expect(sentInPause.length).toBeLessThanOrEqual(3)
    expect(coordinator.stats()).toMatchObject({ rateLimited: 1, granted: 21, inFlight: 0 })
    expect(coordinator.stats().lowestConcurrency).toBe(2)
  }, 30_000)

  it('takes back the slot of a worker that crashes while holding it', async () => {
    const running = await startCoordinator({ concurrency: 1 })
    coordinator = running
    const worker = runScript(script, ['hold', running.url])
    await worker.waitFor('held')
    expect(running.stats().inFlight).toBe(1)
    worker.child.kill('SIGKILL')
    await until(() => running.stats().inFlight === 0, 'the slot is free')
    const lease = await acquireSlot(running.url)
    expect(running.stats().inFlight).toBe(1)
    lease.release()
  })

  it('spaces grants under requestsPerMinute', async () => {
    const running = await startCoordinator({ concurrency: 5, requestsPerMinute: 600 })
    coordinator = running
    const times: number[] = []
    const leases = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const lease = await acquireSlot(running.url)
        times.push(performance.now())
        return lease
      }),
    )
    times.sort((a, b) => a - b)
    for (let i = 1; i < times.length; i++) expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThan(85)
    for (const lease of leases) lease.release()
  })

  it('lets a waiter that aborts leave the line, and expires a lease held past leaseTimeoutMs', async () => {
    const running = await startCoordinator({ concurrency: 1, leaseTimeoutMs: 150 })
    coordinator = running
    await acquireSlot(running.url)
    const controller = new AbortController()
    const waiting = acquireSlot(running.url, controller.signal)
    await until(() => running.stats().waiting === 1, 'the second acquire waits')
    controller.abort()
    await expect(waiting).rejects.toBeInstanceOf(MeasurementAbortedError)
    await until(() => running.stats().waiting === 0, 'the waiter left')
    await until(() => running.stats().inFlight === 0, 'the lease expired')
    expect(running.stats()).toMatchObject<Partial<CoordinatorStats>>({ expired: 1, granted: 1 })
  })

  it('falls back to the local limit with one warning when the coordinator is unreachable', async () => {
    server.respondWith(() => jsonReply({ ok: true }))
    const closed = await startCoordinator({ concurrency: 1 })
    await closed.close()
    const warnings: string[] = []
    const runtime = createJudgeRuntime({
      cache: 'off',
      concurrency: 2,
      coordinatorUrl: closed.url,
      warn: (message) => warnings.push(message),
    })
    const judge = runtime.wrap(new OpenAIJudge({ baseURL: server.baseURL, apiKey: 'sk-local', maxRetries: 0 }))
    const schema = z.object({ ok: z.boolean() })
    const answers = await Promise.all(
      [1, 2, 3].map((i) =>
        judge.generate({ messages: [{ role: 'user', content: `${i}` }], schema, schemaName: 'ok', promptVersion: 'v' }),
      ),
    )
    expect(answers.map((answer) => answer.value.ok)).toEqual([true, true, true])
    expect(warnings).toEqual([expect.stringContaining(`the coordinator at ${closed.url} is unreachable`)])
  })

  it('is found through JUDGETREE_COORDINATOR_URL, read at the first call', async () => {
    server.respondWith(() => jsonReply({ ok: true }))
    const running = await startCoordinator({ concurrency: 2 })
    coordinator = running
    const runtime = createJudgeRuntime({ cache: 'off', concurrency: 4 })
    vi.stubEnv('JUDGETREE_COORDINATOR_URL', running.url)
    const judge = runtime.wrap(new OpenAIJudge({ baseURL: server.baseURL, apiKey: 'sk-local', maxRetries: 0 }))
    const schema = z.object({ ok: z.boolean() })
    await Promise.all(
      [1, 2, 3].map((i) =>
        judge.generate({ messages: [{ role: 'user', content: `${i}` }], schema, schemaName: 'ok', promptVersion: 'v' }),
      ),
    )
    vi.unstubAllEnvs()
    expect(running.stats().granted).toBe(3)
  })

  it('rejects a nonsensical limit', async () => {
    await expect(startCoordinator({ concurrency: 0 })).rejects.toThrow(ConfigurationError)
    await expect(startCoordinator({ concurrency: 2, requestsPerMinute: -1 })).rejects.toThrow(
      'Expected `requestsPerMinute` to be a number of requests per minute from 0.0000279 (one per 24.8 days) up, got `-1` (number).',
    )
  })
})
