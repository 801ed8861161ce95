import { GEval, type JudgeRequest, type LLMTestCase, LLMTestCaseParams } from '@judgetree/core'
import { requestData } from '@judgetree/core/testing'
import { expect, test } from 'vitest'
import { exampleJudge } from '../src/judge.js'

// G-Eval: the judge turns the criteria into evaluation steps (once for this metric), then scores each test case on
// the rubric. A score of g on 0..10 becomes g / 10; the threshold is 0.7.
const input = 'At what temperature does water boil at sea level, in Celsius and in Fahrenheit?'
const expectedOutput = 'Water boils at 100 °C (212 °F) at sea level.'

const rightAnswer: LLMTestCase = {
  input,
  actualOutput: 'At sea level water boils at 100 degrees Celsius, which is 212 degrees Fahrenheit.',
  expectedOutput,
}
const wrongAnswer: LLMTestCase = {
  input,
  actualOutput: 'Water boils at 90 °C (194 °F) at sea level; it only reaches 100 °C under pressure.',
  expectedOutput,
}

// What the scripted judge answers offline, per actual output.
const offlineScores = new Map([
  [
    rightAnswer.actualOutput,
    {
      reason:
        'Both temperatures match the expected output: 100 degrees Celsius and 212 degrees Fahrenheit at sea level.',
      score: 10,
    },
  ],
  [
    wrongAnswer.actualOutput,
    {
      reason:
        'It gives 90 °C / 194 °F, contradicting the expected 100 °C / 212 °F, and adds a false claim about pressure.',
      score: 1,
    },
  ],
])

const correctness = new GEval({
  name: 'Correctness',
  criteria:
    'Is the actual output factually consistent with the expected output? Leaving out detail is acceptable; contradicting it is not.',
  evaluationParams: [LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT, LLMTestCaseParams.EXPECTED_OUTPUT],
  rubric: [
    { scoreRange: [0, 3], expectedOutcome: 'Contradicts the expected output' },
    { scoreRange: [4, 7], expectedOutcome: 'Partly consistent, or vague where the expected output is precise' },
    { scoreRange: [8, 10], expectedOutcome: 'Fully consistent with the expected output' },
  ],
  threshold: 0.7,
  model: exampleJudge([
    {
      match: 'Write the evaluation steps',
      answer: {
        steps: [
          'Read the Input to see which facts the answer must give.',
          'List the facts stated in the Expected Output.',
          'Check each fact in the Actual Output against the Expected Output and note any contradiction.',
          'Treat missing detail as a smaller problem than a contradiction.',
        ],
      },
    },
    {
      match: 'Evaluate it by following these steps',
      answer: (request: JudgeRequest<unknown>) =>
        offlineScores.get(requestData<{ 'Actual Output': string }>(request)['Actual Output']),
    },
  ]),
})

test('a correct answer passes', async () => {
  await expect(rightAnswer).toPassMetric(correctness)
})

test('an answer that contradicts the expected output does not pass', async () => {
  await expect(wrongAnswer).not.toPassMetric(correctness)
})
