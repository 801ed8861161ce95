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
// examples/jest-quickstart/tests/show-failure.test.ts is the same test in Jest.
const showFailure = process.env.JUDGETREE_SHOW_FAILURE === '1'

// Does a support bot answer a return question well? Four steps deep: list the answer's claims, check the return
// window, then the refund method, then judge how the answer treats the customer. A right answer given rudely fails.
const tone = new NonBinaryJudgementNode({
  label: 'Tone',
  criteria: 'How does the actual output treat the customer?',
  evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
  children: [
    new VerdictNode({ verdict: 'Warmly', score: 10 }),
    new VerdictNode({ verdict: 'Neutrally', score: 7 }),
    new VerdictNode({ verdict: 'Rudely', score: 2 }),
  ],
})
const refundMethod = new BinaryJudgementNode({
  label: 'Refund',
  criteria: 'Do the claims give the expected refund method?',
  evaluationParams: [LLMTestCaseParams.EXPECTED_OUTPUT],
  children: [new VerdictNode({ verdict: false, score: 3 }), new VerdictNode({ verdict: true, child: tone })],
})
const returnWindow = new BinaryJudgementNode({
  label: 'Window',
  criteria: 'Do the claims give the expected return window?',
  evaluationParams: [LLMTestCaseParams.EXPECTED_OUTPUT],
  children: [new VerdictNode({ verdict: false, score: 0 }), new VerdictNode({ verdict: true, child: refundMethod })],
})
const claims = new TaskNode({
  label: 'Claims',
  instructions: 'List every claim the actual output makes about returns and refunds.',
  evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
  outputLabel: 'Claims',
  children: [returnWindow],
})

const supportAnswer = new DAGMetric({
  name: 'Support Answer',
  dag: new DeepAcyclicGraph({ rootNodes: [claims] }),
  model: exampleJudge([
    {
      match: 'List every claim',
      answer: { output: '1. Books can be returned within 30 days. 2. Refunds go to the original payment method.' },
    },
    { match: 'expected return window', answer: { reason: 'Both say 30 days.', verdict: true } },
    { match: 'expected refund method', answer: { reason: 'Both say the original payment method.', verdict: true } },
    {
      match: 'treat the customer',
      answer: { reason: 'It tells the customer to read the policy next time.', verdict: 'Rudely' },
    },
  ]),
})

const rightButRude: LLMTestCase = {
  input: 'Can I still return a book I bought three weeks ago?',
  actualOutput: 'Yes, within 30 days, refunded to your original payment method. Read the policy next time.',
  expectedOutput: 'Books can be returned within 30 days of delivery. Refunds go to the original payment method.',
}

test.runIf(showFailure)('fails on purpose: a right answer, given rudely', async () => {
  await expect(rightButRude).toPassMetric(supportAnswer)
})
