import { expect, test } from '@jest/globals'
import {
  ConversationalBinaryJudgementNode,
  ConversationalDAGMetric,
  ConversationalTaskNode,
  type ConversationalTestCase,
  ConversationalVerdictNode,
  DeepAcyclicGraph,
  type JudgeRequest,
  TurnParams,
} from '@judgetree/core'
import { requestData } from '@judgetree/core/testing'
import { exampleJudge } from '../src/judge.js'

// The README's quickstart DAG in Jest: summarize the conversation, then judge from the summary whether the
// assistant's replies satisfy the user's questions (score 1) or not (score 0).
const bookTip: ConversationalTestCase = {
  turns: [
    { role: 'user', content: 'Hi! Can you recommend a science-fiction book for a long flight?' },
    {
      role: 'assistant',
      content: "Try 'Project Hail Mary' by Andy Weir: fast-paced, funny, and hard to put down for ten hours.",
    },
  ],
}
const dodgedQuestion: ConversationalTestCase = {
  turns: [
    { role: 'user', content: 'What is your refund policy for e-books?' },
    { role: 'assistant', content: "Sorry, I can't help with that." },
  ],
}

// What the scripted judge answers offline, per conversation: its summary, and the verdict on that summary.
const offlineAnswers = [
  {
    conversation: bookTip,
    summary:
      'The user asked for a science-fiction book for a flight; the assistant recommended Project Hail Mary and said why.',
    verdict: { reason: 'The user asked for one recommendation and got one, with a reason.', verdict: true },
  },
  {
    conversation: dodgedQuestion,
    summary: 'The user asked about the refund policy for e-books; the assistant declined without pointing anywhere.',
    verdict: { reason: 'The question about refunds is left unanswered.', verdict: false },
  },
]

const satisfied = new ConversationalBinaryJudgementNode({
  criteria: "Do the assistant's replies satisfy the user's questions?",
  children: [
    new ConversationalVerdictNode({ verdict: false, score: 0 }),
    new ConversationalVerdictNode({ verdict: true, score: 10 }),
  ],
})
const summary = new ConversationalTaskNode({
  instructions: 'Summarize the conversation.',
  outputLabel: 'Summary',
  evaluationParams: [TurnParams.ROLE, TurnParams.CONTENT],
  children: [satisfied],
})

const helpful = new ConversationalDAGMetric({
  name: 'Helpful',
  dag: new DeepAcyclicGraph({ rootNodes: [summary] }),
  model: exampleJudge([
    {
      match: 'Summarize the conversation',
      answer: (request: JudgeRequest<unknown>) => {
        const shown = JSON.stringify(requestData(request))
        const entry = offlineAnswers.find(({ conversation }) => shown.includes(conversation.turns[0]?.content ?? ''))
        return { output: entry?.summary }
      },
    },
    {
      match: 'satisfy',
      answer: (request: JudgeRequest<unknown>) => {
        const shown = JSON.stringify(requestData(request))
        return offlineAnswers.find((entry) => shown.includes(entry.summary))?.verdict
      },
    },
  ]),
})

test('a book recommendation satisfies the user', async () => {
  await expect(bookTip).toPassMetric(helpful)
})

test('a dodged question does not', async () => {
  await expect(dodgedQuestion).not.toPassMetric(helpful)
})
