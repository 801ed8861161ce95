import { describe, expect, test } from 'vitest'
import { CallBudget } from './call-budget.js'
import type { TransportCall } from './structured-judge.js'

const call = (): TransportCall => ({
  messages: [],
  schema: undefined as never,
  schemaName: 'verdict',
  jsonSchema: undefined,
  n: 1,
  topLogprobs: undefined,
  defaultTemperature: undefined,
  temperature: undefined,
  signal: undefined,
  withheld: new Set(),
  scrub: (text) => text,
})
const failing = (times: number, retryAfterMs?: number) => {
  let calls = 0
  return async () => {
    calls += 1
    if (calls <= times) throw Object.assign(new Error(`failure ${calls}`), { retryAfterMs })
    return calls
  }
}
const budget = (timeoutMs: number, firstDelayMs: number) =>
  new CallBudget({
    timeoutMs,
    maxRetries: 2,
    retryable: () => true,
    firstDelayMs,
    retryAfterMs: (error) => (error as { retryAfterMs?: number }).retryAfterMs,
  })

describe('CallBudget', () => {
  test("waits the server's Retry-After instead of a longer backoff, and counts the retries", async () => {
    const calls = budget(5_000, 4_000)
    const made = call()
    const started = Date.now()
    await expect(calls.run(made, failing(2, 20))).resolves.toBe(3)
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(calls.retriesOf(made)).toEqual({ retries: 2, skipped: undefined })
  })

  test('a retry whose wait would end after timeoutMs is not made, and the reason is worded for the error', async () => {
    const calls = budget(1_000, 2_000)
    const made = call()
    await expect(calls.run(made, failing(1))).rejects.toThrow('failure 1')
    expect(calls.retriesOf(made)).toEqual({
      retries: 0,
      skipped:
        'It was not retried: the next retry was due in 2000 ms, after timeoutMs (1000 ms) would have ended the ' +
        'call. Raise timeoutMs above the wait, or pass maxRetries: 0.',
    })
    expect(calls.timedOut(made)).toBeUndefined()
    expect(calls.noRetryWarning('The judge', 'the backoff')).toContain('has timeoutMs 1000, no longer than')
    expect(budget(5_000, 2_000).noRetryWarning('The judge', 'the backoff')).toBeUndefined()
  })

  test('timeoutMs ending a call is a timeout, with the retries made and what the attempt before met', async () => {
    const calls = budget(150, 10)
    const made = call()
    let attempts = 0
    const slowAfterOne = (signal: AbortSignal) => {
      attempts += 1
      if (attempts === 1) return Promise.reject(new Error('overloaded'))
      return new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)))
    }
    await expect(calls.run(made, slowAfterOne)).rejects.toBeDefined()
    expect(calls.timedOut(made)).toEqual({ kind: 'timeout', retries: 1, earlier: 'overloaded' })
  })
})
