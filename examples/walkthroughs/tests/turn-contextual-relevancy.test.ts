import { type ConversationalTestCase, type JudgeRequest, TurnContextualRelevancyMetric } from '@judgetree/core'
import { requestData } from '@judgetree/core/testing'
import { expect, test } from 'vitest'
import { exampleJudge } from '../src/judge.js'

// Is the context a RAG pipeline retrieved for each reply relevant to what the user asked? The judge splits every
// chunk into statements and judges each; turn score = relevant statements / statements, and the metric's score is
// the mean over the assistant turns that have retrieval context. Here: turn 1 2/3, turn 3 1/1, mean 0.83.
const routerSupport: ConversationalTestCase = {
  turns: [
    { role: 'user', content: 'My Wi-Fi keeps dropping. How do I reset the router?' },
    {
      role: 'assistant',
      content:
        'Hold the reset button on the back for 10 seconds until the power light blinks; the router then restarts.',
      retrievalContext: [
        'To reset the router, press and hold the reset button on the back for 10 seconds until the power light blinks. The router then restarts with its factory settings.',
        'Our support offices are closed on public holidays.',
      ],
    },
    { role: 'user', content: 'Will that change my Wi-Fi password?' },
    {
      role: 'assistant',
      content:
        'Yes: after a reset, the Wi-Fi name and password go back to the ones printed on the label under the router.',
      retrievalContext: [
        'A factory reset restores the default Wi-Fi name and password, which are printed on the label under the router.',
      ],
    },
  ],
}

interface JudgedStatement {
  statement: string
  reason: string
  relevant: boolean
}

// What the scripted judge answers offline: the statements of each retrieved chunk, keyed by the chunk's text.
const offlineStatements = new Map<string, JudgedStatement[]>([
  [
    'To reset the router, press and hold the reset button on the back for 10 seconds until the power light blinks. The router then restarts with its factory settings.',
    [
      {
        statement: 'Press and hold the reset button on the back for 10 seconds until the power light blinks.',
        reason: 'This is how to reset the router, which is what the user asked.',
        relevant: true,
      },
      {
        statement: 'The router then restarts with its factory settings.',
        reason: 'Tells the user what the reset does.',
        relevant: true,
      },
    ],
  ],
  [
    'Our support offices are closed on public holidays.',
    [
      {
        statement: 'Support offices are closed on public holidays.',
        reason: 'Opening hours do not help the user reset a router.',
        relevant: false,
      },
    ],
  ],
  [
    'A factory reset restores the default Wi-Fi name and password, which are printed on the label under the router.',
    [
      {
        statement: 'A factory reset restores the default Wi-Fi name and password, printed under the router.',
        reason: 'Answers whether the reset changes the Wi-Fi password.',
        relevant: true,
      },
    ],
  ],
])

const contextRelevancy = new TurnContextualRelevancyMetric({
  threshold: 0.7,
  model: exampleJudge([
    {
      match: 'For every chunk',
      answer: (request: JudgeRequest<unknown>) => {
        const data = requestData<{ 'Retrieved context': { chunk: number; text: string }[] }>(request)
        return {
          chunks: data['Retrieved context'].map(({ chunk, text }) => ({
            chunk,
            statements: offlineStatements.get(text),
          })),
        }
      },
    },
  ]),
})

test('the router assistant retrieves mostly relevant context', async () => {
  await expect(routerSupport).toPassMetric(contextRelevancy)
})
