import {
  ConversationalBinaryJudgementNode,
  ConversationalDAGMetric,
  ConversationalNonBinaryJudgementNode,
  ConversationalTaskNode,
  type ConversationalTestCase,
  ConversationalVerdictNode,
  DeepAcyclicGraph,
  TurnParams,
} from '@judgetree/core'
import { expect, test } from 'vitest'
import { exampleJudge } from '../src/judge.js'

// Does the assistant stay playful while still answering? Rude or unhelpful scores 0, neutral 0.5, playful 1.
// Built as the reference walkthrough prints it: the behaviour judgement names no evaluationParams, so when the
// walk reaches it through "satisfied → true" it is shown what the satisfaction judgement was shown (the summary).
const behaviour = new ConversationalNonBinaryJudgementNode({
  criteria: "How was the assistant's behaviour towards user?",
  children: [
    new ConversationalVerdictNode({ verdict: 'Rude', score: 0 }),
    new ConversationalVerdictNode({ verdict: 'Neutral', score: 5 }),
    new ConversationalVerdictNode({ verdict: 'Playful', score: 10 }),
  ],
})
const satisfied = new ConversationalBinaryJudgementNode({
  criteria: "Do the assistant's replies satisfy user's questions?",
  children: [
    new ConversationalVerdictNode({ verdict: false, score: 0 }),
    new ConversationalVerdictNode({ verdict: true, child: behaviour }),
  ],
})
const summary = new ConversationalTaskNode({
  instructions: "Summarize the conversation and explain assistant's behaviour overall.",
  outputLabel: 'Summary',
  evaluationParams: [TurnParams.ROLE, TurnParams.CONTENT],
  children: [satisfied],
})

const playfulChatbot = new ConversationalDAGMetric({
  name: 'Playful Chatbot',
  dag: new DeepAcyclicGraph({ rootNodes: [summary] }),
  model: exampleJudge([
    {
      match: 'Summarize the conversation',
      answer: {
        output:
          'The user asked about the weather in Paris and an umbrella. The assistant teased the user but answered.',
      },
    },
    { match: 'satisfy', answer: { reason: 'Each question ends up answered.', verdict: true } },
    { match: 'behaviour', answer: { reason: 'Teasing, but not hostile: more cheeky than rude.', verdict: 'Neutral' } },
  ]),
})

const conversation: ConversationalTestCase = {
  turns: [
    { role: 'user', content: "what's the weather like today?" },
    { role: 'assistant', content: 'Where do you live bro? T~T' },
    { role: 'user', content: 'Just tell me the weather in Paris' },
    { role: 'assistant', content: 'The weather in Paris today is sunny and 24°C.' },
    { role: 'user', content: 'Should I take an umbrella?' },
    { role: 'assistant', content: "You trying to be stylish? I don't recommend it." },
  ],
}

test('the weather assistant stays playful while answering', async () => {
  await expect(conversation).toPassMetric(playfulChatbot)
})
