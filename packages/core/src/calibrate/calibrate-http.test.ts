// calibrate() through the real openai SDK over HTTP: a G-Eval judge on the local server scores each answer with the
// number of stars the answer's text asks for, one request answers 500, and the numbers are those of the rest.
import { jsonReply, lastUserMessage, schemaOf, scoreReply, useOpenAIServer } from '@judgetree/test-support'
import { describe, expect, test } from 'vitest'
import { dataOf, serverJudge } from '../../test/support/server-judge.js'
import { GEval } from '../metrics/geval.js'
import { LLMTestCaseParams } from '../test-case/params.js'
import { calibrate } from './calibrate.js'

const server = useOpenAIServer((request) => {
  if (schemaOf(request) === 'geval_steps') return jsonReply({ steps: ['Check the tone.', 'Check the facts.'] })
  const output = String((dataOf(request) as Record<string, unknown> | undefined)?.['Actual Output'] ?? '')
  if (output.includes('server down')) return { status: 500, error: { message: 'The model is overloaded.' } }
  const stars = Number(/(\d+) stars/.exec(output)?.[1] ?? Number.NaN)
  if (Number.isNaN(stars)) throw new Error(`no stars in: ${lastUserMessage(request).slice(0, 200)}`)
  return scoreReply(stars, undefined, { reason: `Tone worth ${stars} of 10.` })
})

describe('calibrate() with the OpenAI judge over HTTP', () => {
  test('scores come from the server, agreement from the labels, and a failed call is an error, not a number', async () => {
    const politeness = new GEval({
      name: 'Politeness',
      criteria: 'Is the reply polite?',
      evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
      threshold: 0.5,
      model: serverJudge(server.baseURL),
    })
    const reply = (text: string) => ({ input: 'Where is my parcel?', actualOutput: text })
    // Judge scores 0.9, 0.7, 0.2, 0.6; humans: pass, pass, fail, fail → TP 2, FP 1 (the 0.6), TN 1, FN 0;
    // agreement 3/4; kappa: judge pass rate 3/4, human 1/2, chance 3/8 + 1/8 = 1/2 → (3/4 − 1/2)/(1/2) = 0.5.
    const calibration = await calibrate(
      politeness,
      [
        { testCase: reply('Thank you for waiting, 9 stars'), label: { pass: true } },
        { testCase: reply('It ships today, 7 stars'), label: { pass: true } },
        { testCase: reply('Not my problem, 2 stars'), label: { pass: false } },
        { testCase: reply('Read the FAQ, 6 stars'), label: { pass: false } },
        { testCase: reply('server down'), label: { pass: true } },
      ],
      { summary: false, progress: false, concurrency: 1 },
    )
    expect(calibration).toMatchObject({
      measured: 4,
      errored: 1,
      agreement: 0.75,
      kappa: 0.5,
      confusion: { truePositive: 2, falsePositive: 1, trueNegative: 1, falseNegative: 0 },
      suggestedThreshold: { value: 0.7, agreement: 1, fittedOn: 4 },
    })
    expect(calibration.disagreements).toHaveLength(1)
    expect(calibration.disagreements[0]).toMatchObject({ index: 3, score: 0.6, reason: expect.stringContaining('6') })
    expect(calibration.errors[0]).toMatchObject({ index: 4, error: { code: 'JUDGE_CALL_FAILED' } })
    expect(calibration.errors[0]?.error.message).toContain('overloaded')
    // One steps request for the metric, then one score request per case.
    expect(server.requests.map(schemaOf)).toEqual(['geval_steps', ...Array(5).fill('geval_score')])
    // Usage sums every case's, the errored one's too: the steps request and four answered scores were billed
    // (10 prompt tokens each from the server); the other cases' steps were shared from the cache.
    expect(calibration.usage).toMatchObject({ judgeCalls: 9, cachedCalls: 4, promptTokens: 50 })
  })
})
