import { describe, expect, it } from 'vitest'
import { addUsage, NO_USAGE, usageOf } from '../metric/usage.js'
import { type EvaluationSummary, formatCost, formatCount, renderFooter } from '../report/summary.js'

const summary: EvaluationSummary = {
  evaluations: 12,
  metrics: 12,
  passed: 10,
  failed: 1,
  errored: 1,
  skipped: 0,
  judgeCalls: 37,
  cachedCalls: 5,
  promptTokens: 10_000,
  completionTokens: 2_345,
  costUsd: 0.0123,
  durationMs: 1,
  byMetric: [],
}

describe('evaluation summary line', () => {
  it('reads as one line of totals', () => {
    expect(renderFooter(summary)).toBe(
      'judgetree: 12 evaluations, 10 passed, 1 failed, 1 errored · 37 judge calls (5 cached) · 12345 tokens · $0.0123',
    )
  })

  it('mentions skipped pairs and an unknown cost', () => {
    expect(renderFooter({ ...summary, skipped: 3, costUsd: undefined })).toBe(
      'judgetree: 12 evaluations, 10 passed, 1 failed, 1 errored, 3 skipped · 37 judge calls (5 cached) · 12345 tokens · cost unknown',
    )
  })

  it('says once what the rate limits did, and only when a 429 came', () => {
    expect(renderFooter({ ...summary, rateLimits: { rateLimited: 12, concurrency: 6 } })).toBe(
      'judgetree: 12 evaluations, 10 passed, 1 failed, 1 errored · 37 judge calls (5 cached) · 12345 tokens · $0.0123 · rate-limited 12 times; concurrency settled at 6',
    )
    expect(renderFooter({ ...summary, rateLimits: { rateLimited: 1, concurrency: 2 } })).toMatch(
      / · rate-limited once; concurrency settled at 2$/,
    )
  })

  it('counts evaluations, one per (test case, metric) pair, in the singular for one', () => {
    expect(renderFooter({ ...summary, evaluations: 1, metrics: 1, passed: 1, failed: 0, errored: 0 })).toMatch(
      /^judgetree: 1 evaluation, 1 passed, 0 failed, 0 errored · /,
    )
    expect(renderFooter({ ...summary, evaluations: 1234, metrics: 1234 })).toMatch(/^judgetree: 1234 evaluations, /)
  })

  it('formats counts and costs the same on every machine', () => {
    expect([0, 999, 1_000, 1_234_567].map(formatCount)).toEqual(['0', '999', '1,000', '1,234,567'])
    expect([0, 0.00054, 0.5, 12.345].map(formatCost)).toEqual(['$0.0000', '$0.0005', '$0.5000', '$12.3450'])
  })

  it('is the one footer of every run: runners name .not failures and unpriced evaluations, evaluate() skipped pairs', () => {
    const runner = { ...summary, costUsd: 0.0019, expectedFailures: 1, unpricedEvaluations: 1, judgeCalls: 1 }
    expect(renderFooter(runner)).toBe(
      'judgetree: 12 evaluations, 10 passed, 1 failed (1 expected by .not), 1 errored · 1 judge call (5 cached) · 12345 tokens · $0.0019 (+ 1 evaluation unpriced)',
    )
    // evaluate()'s summary leaves the cost unknown when any is: no count of unpriced ones to add to it.
    expect(renderFooter({ ...summary, skipped: 2, costUsd: undefined, unpricedEvaluations: 3 })).toMatch(
      /, 1 errored, 2 skipped · .* · cost unknown$/,
    )
  })

  it("adds the tokens a reasoning model reported, only where there are some, so other runs' lines are unchanged", () => {
    expect(renderFooter({ ...summary, cachedPromptTokens: 8_000, reasoningTokens: 1_234 })).toBe(
      'judgetree: 12 evaluations, 10 passed, 1 failed, 1 errored · 37 judge calls (5 cached) · 12345 tokens (8,000 cached input, 1,234 reasoning) · $0.0123',
    )
    expect(renderFooter({ ...summary, cachedPromptTokens: 0, reasoningTokens: 78 })).toMatch(
      / · 12345 tokens \(78 reasoning\) · \$0\.0123$/,
    )
    expect(renderFooter({ ...summary, cachedPromptTokens: 0, reasoningTokens: 0 })).toBe(renderFooter(summary))
  })
})

describe('usage sums', () => {
  const reported = { judgeCalls: 1, cachedCalls: 0, promptTokens: 100, completionTokens: 50, costUsd: 0.001 }

  it('sums cached prompt and reasoning tokens where a call reported them, and leaves them out where none did', () => {
    const withDetails = { ...reported, cachedPromptTokens: 60, reasoningTokens: 40 }

    expect(addUsage(withDetails, reported)).toEqual({
      judgeCalls: 2,
      cachedCalls: 0,
      promptTokens: 200,
      completionTokens: 100,
      cachedPromptTokens: 60,
      reasoningTokens: 40,
      costUsd: 0.002,
    })
    expect(addUsage(addUsage(NO_USAGE, withDetails), withDetails)).toMatchObject({
      cachedPromptTokens: 120,
      reasoningTokens: 80,
    })
    expect(Object.keys(addUsage(reported, reported))).not.toContain('cachedPromptTokens')
    expect(Object.keys(addUsage(reported, reported))).not.toContain('reasoningTokens')
  })

  it('takes the details from a judge answer, and bills none for an answer from the cache', () => {
    const usage = {
      promptTokens: 100,
      completionTokens: 50,
      cachedPromptTokens: 60,
      reasoningTokens: 40,
      costUsd: 0.001,
    }
    const answer = { value: {}, usage, cached: false }

    expect(usageOf(answer)).toEqual({ judgeCalls: 1, cachedCalls: 0, ...usage })
    expect(usageOf({ ...answer, cached: true })).toEqual({ ...NO_USAGE, judgeCalls: 1, cachedCalls: 1 })
  })
})
