import { describe, expect, it } from 'vitest'
import { AdaptiveLimit } from './adaptive-limit.js'
import { CallGate } from './call-gate.js'

describe('AdaptiveLimit', () => {
  it('starts at the configured maximum and drops to 70% on a 429', () => {
    const limit = new AdaptiveLimit(10)
    expect(limit.current).toBe(10)
    limit.rateLimitedAt(limit.epoch)
    expect(limit.current).toBe(7)
    expect(limit.rateLimited).toBe(1)
  })

  it('counts the 429s of calls sent before a drop, but drops once for them', () => {
    const limit = new AdaptiveLimit(10)
    const sentTogether = limit.epoch
    for (let i = 0; i < 6; i++) limit.rateLimitedAt(sentTogether)
    expect(limit.current).toBe(7)
    expect(limit.rateLimited).toBe(6)
    limit.rateLimitedAt(limit.epoch)
    expect(limit.current).toBe(4)
  })

  it('recovers slowly: about one slot per two windows of successful calls', () => {
    const limit = new AdaptiveLimit(8)
    for (let i = 0; i < 3; i++) limit.rateLimitedAt(limit.epoch)
    expect(limit.current).toBe(2)
    const successesUntil = (target: number): number => {
      let calls = 0
      while (limit.current < target) {
        limit.succeeded()
        calls++
      }
      return calls
    }
    expect(successesUntil(3)).toBeLessThanOrEqual(6)
    expect(successesUntil(8)).toBeGreaterThan(30)
    expect(limit.current).toBe(8)
  })

  it('never exceeds the configured maximum however many calls succeed', () => {
    const limit = new AdaptiveLimit(5)
    for (let i = 0; i < 10_000; i++) limit.succeeded()
    expect(limit.current).toBe(5)
    limit.rateLimitedAt(limit.epoch)
    for (let i = 0; i < 10_000; i++) limit.succeeded()
    expect(limit.current).toBe(5)
  })

  it('never starves: at least one call may run however many 429s arrive', () => {
    const limit = new AdaptiveLimit(64)
    for (let i = 0; i < 1_000; i++) limit.rateLimitedAt(limit.epoch)
    expect(limit.current).toBe(1)
    expect(limit.lowest).toBe(1)
    limit.succeeded()
    expect(limit.current).toBeGreaterThanOrEqual(1)
  })

  it('counts only the last second of starts, however many came before', () => {
    const limit = new AdaptiveLimit(8)
    // 50,000 starts over 5 s (10 a millisecond): 9,999 of them after t = 4,000 ms, the last second before the 429.
    for (let i = 0; i < 50_000; i++) limit.started(i / 10)
    limit.rateLimitedAt(limit.epoch, 5_000)
    expect(limit.pace).toBeCloseTo(9_999 * 0.9, 6)
  })

  it('paces starts just under the rate that met the limit, and speeds up again slowly', () => {
    const limit = new AdaptiveLimit(8)
    expect(limit.pace).toBeUndefined()
    expect(limit.spacingMs).toBe(0)
    // 25 starts in the last second, then a 429.
    for (let i = 0; i < 25; i++) limit.started(1_040 + i * 40)
    limit.rateLimitedAt(limit.epoch, 2_000)
    expect(limit.pace).toBeCloseTo(22.5)
    expect(limit.spacingMs).toBeCloseTo(1000 / 22.5)
    // A second of calls at that pace gains about half a start per second.
    for (let i = 0; i < 22; i++) limit.succeeded()
    expect(limit.pace).toBeGreaterThan(22.9)
    expect(limit.pace).toBeLessThan(23.1)
    // Never below one start a second, however many 429s.
    for (let i = 0; i < 100; i++) limit.rateLimitedAt(limit.epoch, 10_000 + i)
    expect(limit.pace).toBe(1)
  })

  it('settles where a provider admits about N calls at once', () => {
    // A provider that 429s any call started while `capacity` or more are in flight: the limit must oscillate
    // just around it, never far below (wasting time) nor long above (wasting requests).
    const capacity = 6
    const limit = new AdaptiveLimit(16)
    const seen: number[] = []
    let rateLimited = 0
    for (let round = 0; round < 400; round++) {
      const current = limit.current
      const epoch = limit.epoch
      for (let call = 0; call < current; call++) {
        if (call >= capacity) {
          limit.rateLimitedAt(epoch)
          rateLimited++
        } else limit.succeeded()
      }
      if (round >= 100) seen.push(current)
    }
    const mean = seen.reduce((sum, n) => sum + n, 0) / seen.length
    expect(Math.max(...seen)).toBeLessThanOrEqual(capacity + 1)
    expect(mean).toBeGreaterThanOrEqual(capacity * 0.75)
    expect(rateLimited / (400 * capacity)).toBeLessThan(0.05)
  })
})

describe('CallGate', () => {
  it('runs no more than the adaptive limit at once, and hands slots to waiters in order', async () => {
    const gate = new CallGate({ concurrency: 2 })
    const first = await gate.acquire()
    await gate.acquire()
    const order: number[] = []
    const third = gate.acquire().then((slot) => {
      order.push(3)
      return slot
    })
    const fourth = gate.acquire().then((slot) => {
      order.push(4)
      return slot
    })
    await Promise.resolve()
    expect([gate.running, gate.waiting]).toEqual([2, 2])
    first.succeeded()
    ;(await third).succeeded()
    await fourth
    expect(order).toEqual([3, 4])
  })

  it('lowers the limit and pauses every start on a 429', async () => {
    const gate = new CallGate({ concurrency: 4 })
    const slot = await gate.acquire()
    const started = performance.now()
    slot.rateLimited(120)
    expect(gate.limit.current).toBe(2)
    await gate.acquire()
    expect(performance.now() - started).toBeGreaterThanOrEqual(110)
  })

  it('lets an aborted waiter leave the line at once, and keeps no timer when nobody waits', async () => {
    const gate = new CallGate({ concurrency: 1 })
    const slot = await gate.acquire()
    slot.rateLimited(60_000)
    const controller = new AbortController()
    const waiting = gate.acquire(controller.signal)
    expect(gate.waiting).toBe(1)
    controller.abort(new Error('gave up'))
    await expect(waiting).rejects.toThrow('gave up')
    expect(gate.waiting).toBe(0)
    expect(gate.pauseLeftMs).toBeGreaterThan(50_000)
  })
})
