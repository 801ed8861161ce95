// The same distributions give the same pass probability whichever way they arrive: a chat judge's logprobs through the
// real OpenAI SDK against the local server, or a decision judge's probabilities.
import { jsonReply, ln, schemaOf, scoreReply, useOpenAIServer } from '@judgetree/test-support'
import { describe, expect, test } from 'vitest'
import { distributionJudge } from '../../test/support/distribution-judge.js'
import { serverJudge } from '../../test/support/server-judge.js'
import { scriptedJudge } from '../judge/scripted-judge.js'
import { LLMTestCaseParams } from '../test-case/params.js'
import { GEval, type GEvalOptions } from './geval.js'

const LEVELS = { '2': 0.1, '5': 0.3, '6': 0.2, '9': 0.4 }
const testCase = { input: 'Greet me', actualOutput: 'Hello there, friend!' }
const server = useOpenAIServer((request) =>
  schemaOf(request) === 'geval_steps' ? jsonReply({ steps: ['Check the reply is warm'] }) : scoreReply(9, ln(LEVELS)),
)

const warmth = (options: Partial<GEvalOptions>) =>
  new GEval({
    name: 'Warmth',
    evaluationSteps: ['Check the reply is warm'],
    evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
    threshold: 0.55,
    ...options,
  } as GEvalOptions)

describe('G-Eval’s pass probability from logprobs and from a decision judge', () => {
  test('logprobs {2: .1, 5: .3, 6: .2, 9: .4} through the SDK give what the same decision distribution gives', async () => {
    const chat = await warmth({ model: serverJudge(server.baseURL) }).measure(testCase)
    expect(chat.error).toBeUndefined()
    expect(server.requests[0]?.body).toMatchObject({ logprobs: true })
    const decided = await warmth({
      model: scriptedJudge({ rules: [] }),
      decisionModel: distributionJudge(() => LEVELS),
    }).measure(testCase)
    expect(chat.passProbability?.p).toBeCloseTo(0.6, 9)
    expect(chat.passProbability?.expectedScore).toBeCloseTo(0.65, 9)
    expect(chat.passProbability).toMatchObject({ source: 'judge', pivot: { label: 'Score', verdict: '9' } })
    expect(chat.passProbability?.pivot?.probability).toBeCloseTo(0.4, 9)
    const rounded = (value: unknown) =>
      JSON.parse(JSON.stringify(value, (_, n) => (typeof n === 'number' ? Math.round(n * 1e9) / 1e9 : n)))
    expect(rounded(decided.passProbability)).toEqual(rounded(chat.passProbability))
    expect(chat.score).toBeCloseTo(decided.score, 9)
  })

  test('with logprobs off the score is a point, and there is no probability', async () => {
    const result = await warmth({ model: serverJudge(server.baseURL), topLogprobs: 0 }).measure(testCase)
    expect(result.score).toBe(0.9)
    expect(result.passProbability).toBeUndefined()
  })
})
