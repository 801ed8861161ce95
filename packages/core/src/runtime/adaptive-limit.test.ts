import { describe, expect, it, vi } from 'vitest'
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
    limit.succeeded(4_999)
    limit.rateLimitedAt(limit.epoch, 5_000)
    // One of them was answered 429: 9,998 were accepted.
    expect(limit.pace).toBeCloseTo(9_998 * 0.9, 6)
  })

  it('paces starts just under the rate the provider accepted over the last second', () => {
    const limit = new AdaptiveLimit(8)
    expect(limit.pace).toBeUndefined()
    expect(limit.spacingMs).toBe(0)
    // 25 starts in the last second of a run that began earlier; the 429 answers one of them.
    limit.started(0)
    for (let i = 0; i < 25; i++) limit.started(1_040 + i * 40)
    limit.succeeded(1_990)
    limit.rateLimitedAt(limit.epoch, 2_000)
    expect(limit.pace).toBeCloseTo(24 * 0.9)
    expect(limit.spacingMs).toBeCloseTo(1000 / (24 * 0.9))
  })

  it('measures a 429 in the first second of a run over the time there was', () => {
    const limit = new AdaptiveLimit(16)
    for (let i = 0; i < 16; i++) limit.started(1_000 + i)
    limit.succeeded(1_015)
    limit.rateLimitedAt(limit.epoch, 1_020)
    // 16 starts in 20 ms, one answered 429: 750 a second accepted, not 15.
    expect(limit.pace).toBeCloseTo(750 * 0.9)
  })

  it('lowers the pace again only when 429s are more than a stray few, and not while every call meets one', () => {
    const limit = new AdaptiveLimit(8)
    limit.started(0)
    for (let i = 0; i < 40; i++) limit.started(1_001 + i * 25)
    // While every call meets a 429 (a burst at the start), there is no accepted rate to pace at.
    limit.rateLimitedAt(limit.epoch, 1_990)
    expect(limit.pace).toBeUndefined()
    limit.succeeded(1_995)
    limit.rateLimitedAt(limit.epoch, 2_000)
    // 40 starts in the last second, 2 answered 429.
    const pace = limit.pace as number
    expect(pace).toBeCloseTo(38 * 0.9)
    // A run of 429s with no call getting through (a burst): the server's pauses help, the pace stays.
    for (let i = 1; i <= 5; i++) limit.rateLimitedAt(limit.epoch, 2_000 + i * 40)
    expect(limit.pace).toBe(pace)
    // A call gets through, then a stray 429: still the same pace.
    limit.succeeded(2_300)
    expect(limit.pace).toBe(pace)
    const stray = new AdaptiveLimit(8)
    stray.started(0)
    for (let i = 0; i < 40; i++) stray.started(1_001 + i * 25)
    stray.succeeded(1_995)
    stray.rateLimitedAt(stray.epoch, 2_000)
    const strayPace = stray.pace
    stray.succeeded(2_100)
    for (let i = 0; i < 30; i++) stray.started(2_101 + i * 10)
    stray.rateLimitedAt(stray.epoch, 2_400)
    expect(stray.pace).toBe(strayPace)
    // Calls got through since, and 429s are 8 of the last second's 40 starts: too fast still.
    limit.rateLimitedAt(limit.epoch, 2_350)
    expect(limit.pace).toBeLessThan(pace)
  })

  it('drops the pace after a quiet while, and waits twice as long after a 429 soon after', () => {
    const limit = new AdaptiveLimit(8)
    limit.started(0)
    for (let i = 0; i < 20; i++) limit.started(1_001 + i * 50)
    limit.succeeded(1_990)
    limit.rateLimitedAt(limit.epoch, 2_000)
    expect(limit.quietMs).toBe(500)
    limit.succeeded(2_400)
    expect(limit.pace).toBeDefined()
    limit.succeeded(2_500)
    expect(limit.pace).toBeUndefined()
    // A 429 within two seconds of the drop: the limit is real.
    limit.rateLimitedAt(limit.epoch, 3_000)
    expect(limit.pace).toBeDefined()
    expect(limit.quietMs).toBe(1_000)
    limit.succeeded(3_900)
    expect(limit.pace).toBeDefined()
    limit.succeeded(4_000)
    expect(limit.pace).toBeUndefined()
    // A 429 long after the drop was a stray one: try sooner next time.
    limit.rateLimitedAt(limit.epoch, 9_000)
    expect(limit.quietMs).toBe(500)
  })

  it('never paces below one start a second, however many 429s', () => {
    const limit = new AdaptiveLimit(8)
    for (let i = 0; i < 100; i++) {
      limit.succeeded(10_000 + i * 100)
      limit.rateLimitedAt(limit.epoch, 10_050 + i * 100)
    }
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

/**
 * Runs `calls` judge calls through a real CallGate on a fake clock: each call holds its slot for `latencyMs`, and the
 * provider's `answer` to each request (retries count) is a 429's wait in ms, or undefined for an answer. The client's
 * own speed (its CPU, in real runs) is a fixed spacing of `capacity` starts a second. Returns the run's milliseconds.
 */
async function runThroughGate(options: {
  readonly calls: number
  readonly concurrency: number
  readonly capacity: number
  readonly latencyMs: number
  readonly answer: (request: number, now: number) => number | undefined
}): Promise<{ ms: number; requests: number; rateLimited: number }> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'], loopLimit: 1_000_000 })
  try {
    const gate = new CallGate({ concurrency: options.concurrency, requestsPerMinute: options.capacity * 60 })
    let requests = 0
    let rateLimited = 0
    const call = async (): Promise<void> => {
      for (;;) {
        const slot = await gate.acquire()
        const wait = options.answer(requests++, performance.now())
        await new Promise((resolve) => setTimeout(resolve, options.latencyMs))
        if (wait === undefined) return slot.succeeded()
        rateLimited++
        slot.rateLimited(wait)
      }
    }
    const started = performance.now()
    const all = Promise.all(Array.from({ length: options.calls }, call))
    await vi.runAllTimersAsync()
    await all
    return { ms: performance.now() - started, requests, rateLimited }
  } finally {
    vi.useRealTimers()
  }
}

/** A seeded generator, so a run of random 429s is the same every time. */
function seeded(seed: number): () => number {
  let state = seed
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31
    return state / 2 ** 31
  }
}

describe('the pace on a fake clock, through the gate', () => {
  // As bench/rate-limits.mjs's recovery scenarios: 1,000 calls, 16 in flight, a client that manages 170 a second.
  const run = { calls: 1000, concurrency: 16, capacity: 170, latencyMs: 5 }

  it('runs at full speed again soon after a burst of 429s: 30 at the start, then none', async () => {
    const none = await runThroughGate({ ...run, answer: () => undefined })
    const burst = await runThroughGate({ ...run, answer: (request) => (request < 30 ? 20 : undefined) })
    expect(burst.rateLimited).toBe(30)
    // The 429s' own pauses cost about 0.6 s; the pace made this run 15× slower before it could be dropped.
    expect(burst.ms / none.ms).toBeLessThan(1.25)
  })

  it('keeps most of the speed under random 3% 429s', async () => {
    const random = seeded(7)
    const none = await runThroughGate({ ...run, answer: () => undefined })
    const scattered = await runThroughGate({
      ...run,
      answer: () => (random() < 0.03 ? Math.round(20 + random() * 180) : undefined),
    })
    expect(scattered.rateLimited).toBeGreaterThan(15)
    // The 429s' own pauses cost about 1.5× here; the pace made it 11.8× (this seed) before it could be dropped.
    expect(scattered.ms / none.ms).toBeLessThan(4)
  })

  it('still settles under a provider that admits 20 requests in any second, with few 429s', async () => {
    const admitted: number[] = []
    const limited = await runThroughGate({
      calls: 600,
      concurrency: 8,
      capacity: 1000,
      latencyMs: 300,
      answer: (_request, now) => {
        while (admitted.length > 0 && (admitted[0] as number) <= now - 1000) admitted.shift()
        if (admitted.length >= 20) return Math.ceil((admitted[0] as number) + 1000 - now)
        admitted.push(now)
        return undefined
      },
    })
    // As bench/rate-limits.mjs: the ideal is 600 ÷ 20/s = 30 s; at most 1.25× that, and 5% of requests answered 429.
    expect(limited.ms / 30_000).toBeLessThan(1.25)
    expect(limited.rateLimited / limited.requests).toBeLessThan(0.05)
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

  it('takes every waiter of an aborted signal out of the line, and only those, however often the signal waited', async () => {
    const gate = new CallGate({ concurrency: 1 })
    const walk = new AbortController()
    const other = new AbortController()
    // The signal's first call got a slot and ended; its later calls queue behind another caller's.
    ;(await gate.acquire(walk.signal)).succeeded()
    const running = await gate.acquire(other.signal)
    const outcomes: string[] = []
    const track = (name: string, waiting: Promise<{ succeeded(): void }>) =>
      waiting.then(
        (slot) => {
          outcomes.push(`${name} started`)
          slot.succeeded()
        },
        (error: { code?: string }) => outcomes.push(`${name} ${error.code}`),
      )
    const calls = [
      track('walk 1', gate.acquire(walk.signal)),
      track('other', gate.acquire(other.signal)),
      track('walk 2', gate.acquire(walk.signal)),
    ]
    expect(gate.waiting).toBe(3)
    walk.abort(new Error('stopped'))
    expect(gate.waiting).toBe(1)
    running.succeeded()
    await Promise.all(calls)
    expect(outcomes).toEqual(['walk 1 MEASUREMENT_ABORTED', 'walk 2 MEASUREMENT_ABORTED', 'other started'])
    expect([gate.running, gate.waiting]).toEqual([0, 0])
    await expect(gate.acquire(walk.signal)).rejects.toThrow('stopped')
  })
})
