import type { JudgeRequest, LLMTestCase } from '@judgetree/core'
import { expect, test } from 'vitest'
import { exampleJudge } from '../src/judge.js'
import { NoPromisesMetric } from '../src/no-promises-metric.js'

// Your own metric (src/no-promises-metric.ts): one judge call lists the promises a support reply makes, then code
// checks them against the policy. It gets the same options, trace, cache and limits as the built-in metrics.
const apology: LLMTestCase = {
  input: 'My parcel is a week late.',
  actualOutput:
    'I am sorry about the delay. I have asked the courier to prioritise it, and I will email you the new date today.',
}
const refund: LLMTestCase = {
  input: 'My parcel is a week late.',
  actualOutput: 'So sorry! I guarantee you a full refund, and it will arrive tomorrow.',
}

// What the scripted judge answers offline, per reply.
const offlinePromises = new Map([
  [apology.actualOutput, ['ask the courier to prioritise the parcel', 'email the new delivery date today']],
  [refund.actualOutput, ['a full refund', 'the parcel arrives tomorrow']],
])

const noRefunds = new NoPromisesMetric({
  forbidden: ['refund', 'compensation'],
  model: exampleJudge([
    {
      match: 'List every promise',
      answer: (request: JudgeRequest<unknown>) => {
        const reply = request.messages.at(-1)?.content.split('Reply: ')[1] ?? ''
        return { promises: offlinePromises.get(reply) ?? [], reason: 'Listed the commitments in the reply.' }
      },
    },
  ]),
})

test('an apology that promises no refund passes', async () => {
  await expect(apology).toPassMetric(noRefunds)
})

test('a reply that promises a refund does not pass', async () => {
  await expect(refund).not.toPassMetric(noRefunds)
})
