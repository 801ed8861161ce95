import { readFileSync } from 'node:fs'
import { ConversationalGEval, conversationalTestCaseSchema, type JudgeRequest, TurnParams } from '@judgetree/core'
import { requestData } from '@judgetree/core/testing'
import { expect, test } from 'vitest'
import { exampleJudge } from '../src/judge.js'

// A dataset of conversations, one JSON object per line, becomes one test each. Every line is checked against the
// test-case schema as it is read, so a bad line fails with its line number instead of a confusing judge answer.
const conversations = readFileSync(new URL('../data/conversations.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line, index) => {
    const parsed = conversationalTestCaseSchema.safeParse(JSON.parse(line))
    if (!parsed.success) throw new Error(`data/conversations.jsonl line ${index + 1}: ${parsed.error.message}`)
    return { ...parsed.data, name: parsed.data.name ?? `line ${index + 1}` }
  })

// What the scripted judge answers offline, per conversation name.
const offlineScores: Record<string, { reason: string; score: number }> = {
  'late order': {
    reason:
      'The assistant gives the parcel’s location and expected delivery, then promises a replacement or refund if it is late.',
    score: 9,
  },
  'change delivery address': {
    reason: 'The assistant checks the order has not shipped, takes the new office address and confirms the change.',
    score: 10,
  },
  'gift wrapping': {
    reason: 'The assistant confirms gift wrapping, states the price per book and explains how to add the message.',
    score: 10,
  },
  'damaged book': {
    reason: 'The assistant apologises and sends a free replacement, telling the customer not to return the torn copy.',
    score: 9,
  },
}

const resolution = new ConversationalGEval({
  name: 'Resolution',
  criteria:
    'Does the assistant bring the conversation to the expected outcome for the scenario, politely and without asking the customer for anything it does not need?',
  evaluationParams: [TurnParams.SCENARIO, TurnParams.EXPECTED_OUTCOME],
  threshold: 0.7,
  model: exampleJudge([
    {
      match: 'Write the evaluation steps',
      answer: {
        steps: [
          'Read the Scenario and the Expected Outcome to know what the customer needs.',
          'Follow the assistant turns (Role and Content) and check whether they reach the Expected Outcome.',
          'Note any request the assistant makes that the customer did not need to answer.',
          'Check that the assistant stays polite throughout.',
        ],
      },
    },
    {
      match: 'Evaluate it by following these steps',
      answer: (request: JudgeRequest<unknown>) => {
        const scenario = requestData<{ Scenario: string }>(request).Scenario
        const name = conversations.find((conversation) => conversation.scenario === scenario)?.name ?? ''
        return offlineScores[name]
      },
    },
  ]),
})

test.each(conversations)('support conversation: $name', async (conversation) => {
  await expect(conversation).toPassMetric(resolution)
})
