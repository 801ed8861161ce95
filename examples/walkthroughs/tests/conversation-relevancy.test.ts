import { type ConversationalTestCase, ConversationRelevancyMetric, type JudgeRequest } from '@judgetree/core'
import { requestData } from '@judgetree/core/testing'
import { expect, test } from 'vitest'
import { exampleJudge } from '../src/judge.js'

// Is each assistant reply relevant to the conversation so far? The judge sees the last 3 exchanges up to each reply.
// Score = relevant replies / replies. Here one reply in four changes the subject: 0.75, above the threshold 0.7.
const tripPlanning: ConversationalTestCase = {
  turns: [
    { role: 'user', content: "I'm going to Lisbon in March. What's the weather usually like?" },
    {
      role: 'assistant',
      content:
        'March in Lisbon is mild: highs around 18 °C, lows near 10 °C, and some rainy days. Pack a light jacket.',
    },
    { role: 'user', content: 'Nice. Which neighbourhood would you stay in?' },
    {
      role: 'assistant',
      content: 'Baixa and Alfama are central and walkable; Príncipe Real is quieter and has good restaurants.',
    },
    { role: 'user', content: 'How do I get there from the airport?' },
    { role: 'assistant', content: 'Did you know Lisbon is famous for its custard tarts? Try one in Belém!' },
    { role: 'user', content: 'Noted. But how do I get from the airport to the centre?' },
    {
      role: 'assistant',
      content:
        'Take the red metro line from the airport and change at Alameda for the green line to Baixa: about 25 minutes. A taxi costs around 15 euros.',
    },
  ],
}

// What the scripted judge answers offline, per reply (0-based turn index).
const offlineVerdicts = new Map([
  [1, { reason: 'It answers the question about the weather in Lisbon in March.', relevant: true }],
  [3, { reason: 'It recommends neighbourhoods to stay in, as asked.', relevant: true }],
  [
    5,
    { reason: 'The user asked how to get from the airport; the reply talks about pastries instead.', relevant: false },
  ],
  [
    7,
    { reason: 'It explains the metro and taxi options from the airport, which the user asked again.', relevant: true },
  ],
])

const relevancy = new ConversationRelevancyMetric({
  windowSize: 3,
  threshold: 0.7,
  model: exampleJudge([
    {
      match: 'Decide whether the reply is relevant',
      answer: (request: JudgeRequest<unknown>) =>
        offlineVerdicts.get(requestData<{ 'Reply to judge': { index: number } }>(request)['Reply to judge'].index),
    },
  ]),
})

test('the travel assistant stays on topic (one reply in four drifts)', async () => {
  await expect(tripPlanning).toPassMetric(relevancy)
})
