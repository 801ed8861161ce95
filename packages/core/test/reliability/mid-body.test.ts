import { type ScriptedReply, useOpenAIServer } from '@judgetree/test-support'
import { describe, expect, test } from 'vitest'
import { ConversationalDAGMetric, evaluate, OpenAIJudge } from '../../src/index.js'
import { createJudgeRuntime } from '../../src/runtime.js'
import { PLAYFUL, playfulChatbotDag, playfulConversation } from '../support/walkthroughs.js'

// Faults that strike after the server has answered 200: the socket is reset while the body is read, or the body
// ends half way through its JSON. The SDK reads the body outside its own retry loop, so judgetree retries these.

const SUMMARY_NODE = `ConversationalTaskNode (instructions: "Summarize the conversation and explain assistant'…")`

function healthyAnswer(prompt: string): ScriptedReply {
  if (prompt.includes(PLAYFUL.summary)) return { json: { output: 'The assistant teased but answered.' } }
  if (prompt.includes(PLAYFUL.satisfied)) return { json: { reason: 'Answered.', verdict: true } }
  return { json: { reason: 'Cheeky.', verdict: 'Neutral' } }
}

const promptOf = (messages: readonly { role: string; content: string }[]) =>
  messages.find((message) => message.role === 'user')?.content ?? ''

const server = useOpenAIServer()
const off = createJudgeRuntime({ cache: 'off', concurrency: 16 })

function metric(
  options: {
    maxRetries?: number
    name?: string
    timeoutMs?: number
    runtime?: ReturnType<typeof createJudgeRuntime>
  } = {},
) {
  const judge = new OpenAIJudge({
    model: options.name ?? 'mid-body',
    baseURL: server.baseURL,
    apiKey: 'sk-test-mid-body-0123456789',
    maxRetries: options.maxRetries ?? 3,
    timeoutMs: options.timeoutMs ?? 2_000,
  })
  return new ConversationalDAGMetric({
    name: 'Playful',
    dag: playfulChatbotDag(),
    model: (options.runtime ?? off).wrap(judge),
  })
}

/** Serves `fault` on the first `times` requests, then healthy answers. */
function faultFirst(fault: ScriptedReply, times: number): void {
  server.respondWith((request) => {
    const reply = healthyAnswer(promptOf(request.body.messages))
    return request.index < times ? { ...reply, ...fault } : reply
  })
}

describe('a fault after the headers is retried like a connection error', () => {
  test('a reset mid-body, once, is recovered with one more request', async () => {
    faultFirst({ resetAfterHeaders: true }, 1)
    const result = await metric().measure(playfulConversation)
    expect(result.error).toBeUndefined()
    expect(result.score).toBe(0.5)
    expect(server.requests).toHaveLength(4)
  })

  test('a truncated JSON body, once, is recovered with one more request', async () => {
    faultFirst({ truncateBody: true }, 1)
    const result = await metric().measure(playfulConversation)
    expect(result.error).toBeUndefined()
    expect(result.score).toBe(0.5)
    expect(server.requests).toHaveLength(4)
  })

  test('a reset mid-body every time fails after maxRetries retries, saying what, where and which node', async () => {
    faultFirst({ resetAfterHeaders: true }, Number.POSITIVE_INFINITY)
    const result = await metric({ maxRetries: 2 }).measure(playfulConversation)
    expect(server.requests).toHaveLength(3)
    expect(result.error?.code).toBe('JUDGE_CALL_FAILED')
    expect(result.error?.node).toBe(SUMMARY_NODE)
    const host = new URL(server.baseURL).host
    expect(result.error?.message).toContain(
      `${SUMMARY_NODE} failed: The judge model "mid-body" at ${host}: the connection was reset mid-response`,
    )
    expect(result.error?.message).toContain('after 2 retries')
  })

  test('a truncated body every time fails after maxRetries retries, saying the body was truncated', async () => {
    faultFirst({ truncateBody: true }, Number.POSITIVE_INFINITY)
    const result = await metric({ maxRetries: 1 }).measure(playfulConversation)
    expect(server.requests).toHaveLength(2)
    expect(result.error?.code).toBe('JUDGE_CALL_FAILED')
    expect(result.error?.message).toMatch(/sent a truncated body \(not valid JSON/)
    expect(result.error?.message).toContain(new URL(server.baseURL).host)
    expect(result.error?.message).toContain('after 1 retry')
  })

  test('a body that stalls after the headers is abandoned after timeoutMs and retried; every time, it says so', async () => {
    faultFirst({ stallAfterHeaders: true }, 1)
    const started = performance.now()
    const recovered = await metric({ timeoutMs: 300 }).measure(playfulConversation)
    expect(recovered.error).toBeUndefined()
    expect(server.requests).toHaveLength(4)
    expect(performance.now() - started).toBeLessThan(1_500)

    server.requests.length = 0
    faultFirst({ stallAfterHeaders: true }, Number.POSITIVE_INFINITY)
    const failed = await metric({ timeoutMs: 300, maxRetries: 1 }).measure(playfulConversation)
    expect(server.requests).toHaveLength(2)
    expect(failed.error?.code).toBe('JUDGE_CALL_FAILED')
    expect(failed.error?.message).toContain(
      'stopped sending the answer mid-body: nothing more arrived within 300 ms (timeoutMs), after 1 retry',
    )
  })

  test('maxRetries: 0 means no retry of a mid-body fault either', async () => {
    faultFirst({ resetAfterHeaders: true }, Number.POSITIVE_INFINITY)
    const result = await metric({ maxRetries: 0 }).measure(playfulConversation)
    expect(server.requests).toHaveLength(1)
    expect(result.error?.message).toMatch(/reset mid-response/)
  })

  test('an abort during the retries ends the measurement at once, with no further request', async () => {
    faultFirst({ resetAfterHeaders: true }, Number.POSITIVE_INFINITY)
    const controller = new AbortController()
    const measuring = metric({ maxRetries: 50 }).measure(playfulConversation, { signal: controller.signal })
    while (server.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 5))
    controller.abort(new Error('user cancelled'))
    const started = performance.now()
    const result = await measuring
    expect(performance.now() - started).toBeLessThan(500)
    expect(result.error?.code).toBe('MEASUREMENT_ABORTED')
    const seen = server.requests.length
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(server.requests.length).toBe(seen)
    expect(seen).toBeLessThan(50)
  })
})

describe('trials: faults on the one call that asks for every sample with `n`', () => {
  /** Serves `faults` in turn on the first requests, then healthy answers with one choice per sample asked. */
  function faultsThenSamples(faults: readonly ScriptedReply[]): void {
    server.respondWith((request) => {
      const reply = healthyAnswer(promptOf(request.body.messages))
      const samples = Array.from({ length: request.body.n ?? 1 }, () => reply)
      const fault = faults[request.index]
      return fault === undefined ? { ...reply, samples } : { ...reply, samples, ...fault }
    })
  }

  test('a 429, then a reset mid-body, on the sampling call: all 5 trials recover, 2 requests later', async () => {
    faultsThenSamples([
      { status: 429, headers: { 'retry-after-ms': '50' }, error: { message: 'Rate limit reached' } },
      { resetAfterHeaders: true },
    ])
    // A runtime of its own: the 429 slows its runtime's pace for a while, which must not slow the soak below.
    const runtime = createJudgeRuntime({ cache: 'off', concurrency: 16 })
    const result = await metric({ runtime }).measure(playfulConversation, { trials: 5 })
    expect(result.error).toBeUndefined()
    expect(result.passRate).toBe(1)
    expect(result.score).toBe(0.5)
    expect(server.requests.map((request) => request.body.n)).toEqual([5, 5, 5, 5, 5])
  })
})

describe('soak: mid-body faults at 5%', () => {
  test('300 measurements (900 calls) with 5% resets and truncations: none errors, every fault was retried', async () => {
    // A seeded generator, so a failure reproduces: mulberry32.
    let seed = 17
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296
    }
    let faults = 0
    server.respondWith((request) => {
      const reply = healthyAnswer(promptOf(request.body.messages))
      const roll = random()
      if (roll >= 0.05) return reply
      faults += 1
      return roll < 0.025 ? { ...reply, resetAfterHeaders: true } : { ...reply, truncateBody: true }
    })
    const conversations = Array.from({ length: 300 }, (_, at) => ({
      ...playfulConversation,
      name: `conversation ${at}`,
    }))
    const { results, summary } = await evaluate(conversations, [metric({ maxRetries: 3 })], {
      summary: false,
      progress: false,
      concurrency: 16,
    })
    expect(results).toHaveLength(300)
    expect(faults).toBeGreaterThan(20)
    expect(results.filter((entry) => entry.result.error).map((entry) => entry.result.error?.message)).toEqual([])
    expect(summary.errored).toBe(0)
    // Each fault cost exactly one more request: 900 calls plus one per fault.
    expect(server.requests).toHaveLength(900 + faults)
  })
})
