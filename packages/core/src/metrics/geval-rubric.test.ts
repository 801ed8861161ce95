import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../errors.js'
import { LLMTestCaseParams, TurnParams } from '../test-case/params.js'
import { GEval, type GEvalOptions } from './geval.js'

const STEPS = ['Compare the facts in Actual Output with Expected Output.']

function geval(options: Partial<GEvalOptions> = {}): GEval {
  return new GEval({
    name: 'Correctness',
    criteria: 'Is the actual output factually correct given the expected output?',
    evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT, LLMTestCaseParams.EXPECTED_OUTPUT],
    model: { name: 'unused', generate: () => Promise.reject(new Error('no judge calls at construction')) },
    ...options,
  } as GEvalOptions)
}

describe('GEval options', () => {
  it('lists every problem at once, each saying how to fix it', () => {
    const build = () =>
      new GEval({
        name: 'Broken',
        criteria: 'Is it right?',
        evaluationSteps: ['Check it.'],
        evaluationParams: ['actual_output'],
        rubric: [
          { scoreRange: [0, 5], expectedOutcome: 'Bad.' },
          { scoreRange: [5, 11], expectedOutcome: 'Good.' },
          { scoreRange: [4, 6], expectedOutcome: 'Meh.' },
        ],
        topLogprobs: 50,
        window_size: 3,
      } as never)

    expect(build).toThrow(ConfigurationError)
    const message = messageOf(build)
    expect(message).toContain('Invalid options for GEval "Broken"')
    expect(message).toContain('give either criteria or evaluationSteps, not both')
    expect(message).toContain('"actual_output", which is not one of LLMTestCaseParams')
    expect(message).toContain('Expected `rubric[1].scoreRange` to be [start, end]: two whole numbers from 0 to 10')
    expect(message).toContain('rubric ranges [0, 5] and [4, 6] overlap at 4')
    expect(message).toContain('Expected `topLogprobs` to be a whole number from 0 to 20')
    expect(message).toContain('unknown option `window_size`')
  })

  it('requires criteria or steps, and evaluationParams', () => {
    expect(() => new GEval({ name: 'Empty' } as never)).toThrow(
      /needs criteria[\s\S]*needs evaluationParams: the fields the judge is shown/,
    )
  })

  it('names the metric, not a node, when evaluationParams holds the other kind of parameter', () => {
    expect(() => geval({ evaluationParams: [TurnParams.CONTENT] as never })).toThrow(
      'evaluationParams contains "content", which is one of TurnParams; this metric needs LLMTestCaseParams.',
    )
  })

  it('suggests the camelCase name of a snake_case option', () => {
    expect(() => geval({ evaluation_steps: STEPS } as never)).toThrow(
      'unknown option `evaluation_steps`; did you mean `evaluationSteps`?',
    )
  })

  it('rejects a rubric that covers a single score', () => {
    expect(() => geval({ rubric: [{ scoreRange: [5, 5], expectedOutcome: 'Only one.' }] })).toThrow(
      'rubric covers only the score 5',
    )
  })

  it('copies the steps it was given', () => {
    const steps = ['Check it.']
    const metric = geval({ evaluationSteps: steps, criteria: undefined })
    steps.push('Something else.')

    expect(metric.evaluationSteps).toEqual(['Check it.'])
    expect(metric.kind).toBe('single-turn')
  })
})

function messageOf(build: () => unknown): string {
  try {
    build()
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
  throw new Error('expected the constructor to throw')
}
