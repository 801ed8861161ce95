import {
  BinaryJudgementNode,
  DAGMetric,
  DeepAcyclicGraph,
  type LLMTestCase,
  LLMTestCaseParams,
  NonBinaryJudgementNode,
  TaskNode,
  VerdictNode,
} from '@judgetree/core'
import { expect, test } from 'vitest'
import { exampleJudge } from '../src/judge.js'

// This test fails on purpose, to show what a failing evaluation reports: the one-line summary, the reason and the
// trace tree of the judge's walk. It runs only with JUDGETREE_SHOW_FAILURE=1, so the default run stays green.
const showFailure = process.env.JUDGETREE_SHOW_FAILURE === '1'

// Does a support answer state the return policy correctly? A wrong return window scores 0; otherwise the score
// depends on how much of the rest (refund method, who pays return shipping) is right.
const details = new NonBinaryJudgementNode({
  criteria:
    'How many of these does the actual output state as the expected output does: refund method, who pays return shipping?',
  evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT, LLMTestCaseParams.EXPECTED_OUTPUT],
  children: [
    new VerdictNode({ verdict: 'Both', score: 10 }),
    new VerdictNode({ verdict: 'One', score: 6 }),
    new VerdictNode({ verdict: 'Neither', score: 3 }),
  ],
})
const returnWindow = new BinaryJudgementNode({
  criteria: 'Do the claims give the same return window as the expected output?',
  evaluationParams: [LLMTestCaseParams.EXPECTED_OUTPUT],
  children: [new VerdictNode({ verdict: false, score: 0 }), new VerdictNode({ verdict: true, child: details })],
})
const claims = new TaskNode({
  instructions: 'List every claim the actual output makes about returns and refunds.',
  evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
  outputLabel: 'Claims',
  children: [returnWindow],
})

const returnPolicy = new DAGMetric({
  name: 'Return Policy',
  dag: new DeepAcyclicGraph({ rootNodes: [claims] }),
  model: exampleJudge([
    {
      match: 'List every claim',
      answer: { output: '1. Items can be returned within 60 days. 2. Refunds go to the original payment method.' },
    },
    {
      match: 'same return window',
      answer: { reason: 'The answer says 60 days; the policy allows 30 days.', verdict: false },
    },
  ]),
})

const wrongWindow: LLMTestCase = {
  input: 'How long do I have to return a book?',
  actualOutput: 'You can return any book within 60 days, and we refund you to your original payment method.',
  expectedOutput:
    'Books can be returned within 30 days of delivery. Refunds go to the original payment method; we pay return shipping.',
}

test.runIf(showFailure)(
  'fails on purpose (runs with JUDGETREE_SHOW_FAILURE=1): the answer gives the wrong return window',
  async () => {
    await expect(wrongWindow).toPassMetric(returnPolicy)
  },
)
