import { describe, expect, test } from 'vitest'
import { errorAt, JudgeCallError, JudgetreeError } from './errors.js'

describe('errorAt', () => {
  test('names where the error happened and keeps its class and fields, leaving the original untouched', () => {
    const original = new JudgeCallError('The judge model "m" answered HTTP 503: overloaded', { status: 503 })
    const located = errorAt(original, 'BinaryJudgementNode "Polite?"', { node: 'BinaryJudgementNode "Polite?"' })
    expect(located).toBeInstanceOf(JudgeCallError)
    expect(located).toMatchObject({
      name: 'JudgeCallError',
      code: 'JUDGE_CALL_FAILED',
      status: 503,
      node: 'BinaryJudgementNode "Polite?"',
      message: 'BinaryJudgementNode "Polite?" failed: The judge model "m" answered HTTP 503: overloaded',
    })
    expect(located.stack).toContain('BinaryJudgementNode "Polite?" failed: The judge model')
    // Judge runtimes hand one failure to every identical call, so the original must not change.
    expect(original.message).toBe('The judge model "m" answered HTTP 503: overloaded')
    expect(original.node).toBeUndefined()
  })

  test('anything else becomes a JUDGE_CALL_FAILED error caused by it', () => {
    const cause = new TypeError('fetch failed')
    const located = errorAt(cause, 'Judging the reply at turn 3')
    expect(located).toBeInstanceOf(JudgetreeError)
    expect(located).toMatchObject({ code: 'JUDGE_CALL_FAILED', cause, node: undefined })
    expect(located.message).toBe('Judging the reply at turn 3 failed: fetch failed')
  })
})
