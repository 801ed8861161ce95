import {
  BinaryJudgementNode,
  DAGMetric,
  DeepAcyclicGraph,
  type LLMTestCase,
  LLMTestCaseParams,
  NonBinaryJudgementNode,
  SingleTurnParams,
  TaskNode,
  VerdictNode,
} from '@judgetree/core'
import { expect, test } from 'vitest'
import { exampleJudge } from '../src/judge.js'

// A meeting summary must have the headings intro, body and conclusion, in that order.
const correctOrder = new NonBinaryJudgementNode({
  criteria: "Are the summary headings in the correct order: 'intro' => 'body' => 'conclusion'?",
  children: [
    new VerdictNode({ verdict: 'Yes', score: 10 }),
    new VerdictNode({ verdict: 'Two are out of order', score: 4 }),
    new VerdictNode({ verdict: 'All out of order', score: 2 }),
  ],
})
const correctHeadings = new BinaryJudgementNode({
  criteria: "Does the summary headings contain all three: 'intro', 'body', and 'conclusion'?",
  children: [new VerdictNode({ verdict: false, score: 0 }), new VerdictNode({ verdict: true, child: correctOrder })],
})
const extractHeadings = new TaskNode({
  instructions: 'Extract all headings in `actual_output`',
  evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
  outputLabel: 'Summary headings',
  children: [correctHeadings, correctOrder],
})

const printedDag = new DeepAcyclicGraph({ rootNodes: [extractHeadings] })

// The same DAG written from the root down, as the reference library's newer releases write it.
function topDownDag() {
  const extract = new TaskNode({
    instructions: 'Extract all headings in `actual_output`',
    evaluationParams: [SingleTurnParams.ACTUAL_OUTPUT],
    outputLabel: 'Summary headings',
  })
  const headings = extract.addNode(
    new BinaryJudgementNode({
      criteria: "Does the summary headings contain all three: 'intro', 'body', and 'conclusion'?",
    }),
  )
  // Reads the extracted headings too, and is asked only when all three are there.
  const order = extract.addNode(
    new NonBinaryJudgementNode({
      criteria: "Are the summary headings in the correct order: 'intro' => 'body' => 'conclusion'?",
    }),
  )
  headings.addVerdict(false, { score: 0 })
  headings.addVerdict(true, { then: order })
  order.addVerdict('Yes', { score: 10 })
  order.addVerdict('Two are out of order', { score: 4 })
  order.addVerdict('All out of order', { score: 2 })
  return new DeepAcyclicGraph({ rootNodes: [extract] })
}

const formatCorrectness = (dag: typeof printedDag) =>
  new DAGMetric({
    name: 'Format Correctness',
    dag,
    model: exampleJudge([
      { match: 'Extract all headings', answer: { output: 'Intro, Body, Conclusion' } },
      { match: 'contain all three', answer: { reason: 'Intro, Body and Conclusion are all present.', verdict: true } },
      { match: 'correct order', answer: { reason: 'They appear as intro, body, conclusion.', verdict: 'Yes' } },
    ]),
  })

const meeting: LLMTestCase = {
  input: `Alice: "Today's agenda: product update, blockers, and marketing timeline. Bob, updates?"
Bob: "Core features are done, but we're optimizing performance for large datasets. Fixes by Friday, testing next week."
Alice: "Charlie, does this timeline work for marketing?"
Charlie: "We need finalized messaging by Monday."
Alice: "Bob, can we provide a stable version by then?"
Bob: "Yes, we'll share an early build."
Charlie: "Great, we'll start preparing assets."
Alice: "Plan: fixes by Friday, marketing prep Monday, sync next Wednesday. Thanks, everyone!"`,
  actualOutput: `Intro:
Alice outlined the agenda: product updates, blockers, and marketing alignment.

Body:
Bob reported performance issues being optimized, with fixes expected by Friday. Charlie requested finalized messaging by Monday for marketing preparation. Bob confirmed an early stable build would be ready.

Conclusion:
The team aligned on next steps: engineering finalizing fixes, marketing preparing content, and a follow-up sync scheduled for Wednesday.`,
}

test('the meeting summary has intro, body and conclusion in order', async () => {
  await expect(meeting).toPassMetric(formatCorrectness(printedDag))
})

test('built top-down, it is the same DAG and the summary passes the same way', async () => {
  const dag = topDownDag()
  expect(dag.toJSON()).toEqual(printedDag.toJSON())
  await expect(meeting).toPassMetric(formatCorrectness(dag))
})
