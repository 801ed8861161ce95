import { readFileSync } from 'node:fs'
import { calibrate, GEval, type LabelledCase, type LLMTestCase, LLMTestCaseParams } from '@judgetree/core'
import { expect, test } from 'vitest'
import { politenessJudge, usingRealJudge } from '../src/offline-judge.js'

// 36 replies of a support team, each labelled pass or fail by a person who read it: would a careful support lead
// accept its tone? Terse is fine; dismissive, blaming, sarcastic or mocking is not.
const labelled: LabelledCase<LLMTestCase>[] = readFileSync(
  new URL('../data/support-replies.jsonl', import.meta.url),
  'utf8',
)
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => {
    const { name, input, actualOutput, label } = JSON.parse(line)
    return { name, testCase: { input, actualOutput }, label }
  })

const politeness = new GEval({
  name: 'Politeness',
  criteria:
    'Is the support reply courteous and respectful to the customer? It may be short; it must not be dismissive, ' +
    'blaming, sarcastic or mocking.',
  evaluationParams: [LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT],
  threshold: 0.5,
  model: politenessJudge(),
})

test('the politeness judge agrees with the human labels well enough to gate on', async () => {
  // Prints the statistics, the confusion table, the fitted threshold and the worst disagreements.
  const calibration = await calibrate(politeness, labelled)

  expect(calibration).toAgreeWith({ kappa: 0.6, agreement: 0.8 })
  expect(calibration.errored).toBe(0)
  if (!usingRealJudge) {
    // The word-list judge, pinned: its disagreements are the replies it cannot read.
    // Six replies: three polite ones without a courtesy phrase, and three rude ones that say "please", "thank" or
    // "sorry" (one apologises, then blames the customer). The farthest from its label first, then in file order.
    expect(calibration.confusion).toEqual({ truePositive: 15, falsePositive: 3, trueNegative: 15, falseNegative: 3 })
    expect(calibration.disagreements.map((disagreement) => disagreement.name)).toEqual([
      'refund issued terse',
      'refund blame',
      'sarcastic thanks',
      'shipping abroad neutral',
      'cancel subscription simple',
      'apology but blames customer',
    ])
  }
})
