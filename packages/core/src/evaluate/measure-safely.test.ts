import { describe, expect, it } from 'vitest'
import type { MetricResult, SingleTurnMetric } from '../metric/types.js'
import { measureSafely } from './measure-safely.js'

const testCase = { input: 'hi', actualOutput: 'hello' }

function plainMetric(score: (call: number) => number): SingleTurnMetric & { calls: number } {
  const metric = {
    name: 'Plain',
    kind: 'single-turn' as const,
    threshold: 0.5,
    calls: 0,
    measure: async (): Promise<MetricResult> => {
      const value = score(metric.calls++)
      return {
        name: 'Plain',
        score: value,
        threshold: 0.5,
        success: value >= 0.5,
        reason: undefined,
        strictMode: false,
        error: undefined,
        trace: { metric: 'Plain', nodes: [], roots: [], notes: [] },
        verboseLogs: '',
        usage: { judgeCalls: 1, cachedCalls: 0, promptTokens: 1, completionTokens: 1, costUsd: 0 },
        durationMs: 1,
        judgeModel: 'm',
      }
    },
  }
  return metric
}

describe('measureSafely', () => {
  it('turns a metric that throws, or resolves to something else, into an errored result', async () => {
    const throwing: SingleTurnMetric = { ...plainMetric(() => 1), measure: () => Promise.reject(new Error('bug')) }
    const thrown = await measureSafely(throwing, testCase)
    expect(thrown).toMatchObject({ name: 'Plain', score: 0, threshold: 0.5, success: false, judgeModel: 'unknown' })
    expect(thrown.error?.message).toBe('The metric "Plain" failed instead of returning a result: bug')
    const odd = { ...throwing, measure: () => Promise.resolve(42 as unknown as MetricResult) }
    const wrong = await measureSafely(odd, testCase, { failure: 'The metric "Plain" failed' })
    expect(wrong.error?.message).toBe('The metric "Plain" failed: measure() resolved to 42 instead of a MetricResult')
  })

  it('measures trials on any metric and combines them by the aggregate asked for', async () => {
    const metric = plainMetric((call) => [0.2, 0.9, 0.8][call] ?? 0)
    const result = await measureSafely(metric, testCase, { trials: 3, aggregate: 'median' })
    expect(metric.calls).toBe(3)
    expect(result).toMatchObject({ score: 0.8, aggregate: 'median', success: true })
    expect(result.trials?.map((trial) => trial.score)).toEqual([0.2, 0.9, 0.8])
  })
})
