import { describe, expect, test } from 'vitest'
import {
  ConfigurationError,
  errorAt,
  JudgeCallError,
  JudgetreeError,
  MeasurementAbortedError,
  toJudgetreeError,
  withoutAdvice,
} from './errors.js'

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

  test('anything else was thrown by code, not a judge: a METRIC_FAILED error caused by it', () => {
    const cause = new TypeError("Cannot read properties of undefined (reading 'content')")
    const located = errorAt(cause, 'Judging the reply at turn 3')
    expect(located).toBeInstanceOf(JudgetreeError)
    expect(located).toMatchObject({ code: 'METRIC_FAILED', cause, node: undefined })
    expect(located.message).toBe(
      "Judging the reply at turn 3 failed: Cannot read properties of undefined (reading 'content')",
    )
  })
})

describe('toJudgetreeError', () => {
  test('a judgetree error passes unchanged, so a judge failure keeps its code', () => {
    const judgeFailure = new JudgeCallError('The judge model "m" answered HTTP 503: overloaded', { status: 503 })
    expect(toJudgetreeError(judgeFailure, 'The metric "Polite" failed')).toBe(judgeFailure)
  })

  test("anything else is the metric's own failure, METRIC_FAILED, named and caused by it", () => {
    const cause = new TypeError("Cannot read properties of undefined (reading 'length')")
    const wrapped = toJudgetreeError(cause, 'The metric "No Promises" failed')
    expect(wrapped).toBeInstanceOf(JudgetreeError)
    expect(wrapped).toMatchObject({ code: 'METRIC_FAILED', cause })
    expect(wrapped.message).toBe(
      `The metric "No Promises" failed: Cannot read properties of undefined (reading 'length')`,
    )
    expect(toJudgetreeError('plain text', 'x failed').message).toBe('x failed: plain text')
  })
})

describe('advice: how to fix a problem of the environment, which every evaluation of a run meets', () => {
  test('ends the message, and stays on the error wherever errorAt says it happened', () => {
    const error = new ConfigurationError('The judge model "m" has no API key.', { advice: 'Set OPENAI_API_KEY.' })
    expect(error.message).toBe('The judge model "m" has no API key. Set OPENAI_API_KEY.')
    expect(error.advice).toBe('Set OPENAI_API_KEY.')
    const located = errorAt(errorAt(error, 'TaskNode "T"'), 'VerdictNode "yes"')
    expect(located.message).toBe(
      'VerdictNode "yes" failed: TaskNode "T" failed: The judge model "m" has no API key. Set OPENAI_API_KEY.',
    )
    expect(located.advice).toBe('Set OPENAI_API_KEY.')
  })

  test('errors without it are unchanged', () => {
    const error = new ConfigurationError('Invalid options for GEval "G".')
    expect(error.message).toBe('Invalid options for GEval "G".')
    expect(error.advice).toBeUndefined()
  })

  test('withoutAdvice takes it out of a whole report, wherever the message was repeated', () => {
    const text = 'error: A failed: No key. Set KEY.\n[1] Task\n│ error: B failed: No key. Set KEY.'
    expect(withoutAdvice(text, 'Set KEY.')).toBe('error: A failed: No key.\n[1] Task\n│ error: B failed: No key.')
    expect(withoutAdvice(text, '')).toBe(text)
  })
})

describe('MeasurementAbortedError', () => {
  test("says the runner's reason in one sentence, with one period", () => {
    const timeout = new Error('Test timed out in 500ms. Configure it globally with "testTimeout".')
    expect(new MeasurementAbortedError(timeout).message).toBe(
      'The measurement was aborted: Test timed out in 500ms. Configure it globally with "testTimeout".',
    )
    expect(new MeasurementAbortedError('cancelled by the user').message).toBe(
      'The measurement was aborted: cancelled by the user.',
    )
    expect(new MeasurementAbortedError().message).toBe('The measurement was aborted.')
  })
})
