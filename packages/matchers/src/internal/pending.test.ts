import { describe, expect, test } from 'vitest'
import { anySignal, PendingAssertions } from './pending.js'

describe('PendingAssertions', () => {
  test('nothing running: no error, nothing aborted', async () => {
    const pending = new PendingAssertions()
    const running = pending.start()
    running.settle()
    expect(await pending.cancelUnfinished()).toBeUndefined()
    expect(running.signal.aborted).toBe(false)
  })

  test('aborts what is still running at once, waits for it to settle, and fails for both causes', async () => {
    const pending = new PendingAssertions()
    const settled: string[] = []
    for (const name of ['a', 'b']) {
      const running = pending.start(`Error\n    at ${name} (file.test.ts:8:3)`)
      running.signal.addEventListener('abort', () =>
        setTimeout(() => {
          settled.push(name)
          running.settle()
        }, 10),
      )
    }
    const error = await pending.cancelUnfinished()
    expect(settled).toEqual(['a', 'b'])
    expect(error?.message).toBe(
      '2 toPassMetric() assertions were still running when the test ended, so their judge calls were cancelled. If the test timed out, raise its timeout; otherwise write: await expect(testCase).toPassMetric(metric)',
    )
    expect(error?.stack?.split('\n')[1]).toBe('    at a (file.test.ts:8:3)')
    expect(await pending.cancelUnfinished()).toBeUndefined()
  })

  test('calls `abandoned` of each assertion still unsettled when it stops waiting, before it resolves', async () => {
    const pending = new PendingAssertions()
    const abandoned: string[] = []
    const prompt = pending.start(undefined, [], () => abandoned.push('prompt'))
    prompt.signal.addEventListener('abort', () => prompt.settle())
    pending.start(undefined, [], () => abandoned.push('stubborn'))
    await pending.cancelUnfinished()
    expect(abandoned).toEqual(['stubborn'])
  })

  test('does not wait long for an assertion that ignores the abort', async () => {
    const pending = new PendingAssertions()
    pending.start()
    const started = Date.now()
    expect((await pending.cancelUnfinished())?.message).toMatch(/^1 toPassMetric\(\) assertion was still running/)
    expect(Date.now() - started).toBeLessThan(1_500)
  })

  test("an assertion's signal also follows the signals it was started with", () => {
    const test = new AbortController()
    const running = new PendingAssertions().start(undefined, [undefined, test.signal])
    test.abort()
    expect(running.signal.aborted).toBe(true)
    // Aborted by the test's signal, not cancelled by the guard: the assertion still reports its own failure.
    expect(running.cancelled()).toBe(false)
  })

  test('cancelled() tells the matcher the guard cancelled it', async () => {
    const pending = new PendingAssertions()
    const running = pending.start()
    running.signal.addEventListener('abort', () => running.settle())
    expect(running.cancelled()).toBe(false)
    await pending.cancelUnfinished()
    expect(running.cancelled()).toBe(true)
  })
})

test('anySignal: undefined without signals, the signal itself for one, a combination for more', () => {
  const [a, b] = [new AbortController(), new AbortController()]
  expect(anySignal([undefined])).toBeUndefined()
  expect(anySignal([a.signal, undefined])).toBe(a.signal)
  const both = anySignal([a.signal, b.signal])
  b.abort('why')
  expect(both?.aborted).toBe(true)
  expect(both?.reason).toBe('why')
})
