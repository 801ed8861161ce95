// The wire format checked from the other side: the openai v7 SDK's own `client.decisions.create` (its
// resources/decisions.d.ts types) against the local server, and OpenAIDecisionJudge given a v7 client. openai 7
// declares Node >= 22; it runs on Node 20 for these calls (fetch, AbortSignal and Headers are Node 20's own).
import { decideEach, mostProbable, useOpenAIServer } from '@judgetree/test-support'
import OpenAIV7 from 'openai-v7'
import type { Decision, DecisionCreateParams } from 'openai-v7/resources/decisions'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { JudgeCallError, MeasurementAbortedError } from '../errors.js'
import { OpenAIDecisionJudge } from './openai-decision-judge.js'
import type { JudgeQuestion, JudgeRequest, JudgeResponse } from './types.js'

const KEY = 'sk-test-V7-SECRET-0987654321'
const server = useOpenAIServer(undefined, { decisions: decideEach(() => mostProbable(true)) })
const client = () => new OpenAIV7({ apiKey: KEY, baseURL: server.baseURL, maxRetries: 0 })

describe('the openai v7 SDK against the local decision server', () => {
  it('client.decisions.create sends what the server takes and parses what it answers', async () => {
    server.decideWith(() => ({
      answers: [mostProbable(true, 0.83), mostProbable('refund', 0.6), mostProbable('2', 0.7), { refusal: true }],
      usage: { inputTokens: 120, cachedTokens: 64, outputTokens: 4 },
    }))
    const params: DecisionCreateParams = {
      model: 'gpt-6-luna',
      input: [{ role: 'user', content: 'I want my money back.' }],
      questions: [
        { type: 'predicate', name: 'angry', instructions: 'Is the customer angry?' },
        {
          type: 'choice',
          name: 'intent',
          instructions: 'What does the customer want?',
          choices: [{ value: 'refund', description: 'Money back' }, { value: 'exchange' }, { value: 'info' }],
        },
        {
          type: 'score',
          name: 'urgency',
          instructions: 'How urgent is it?',
          levels: [{ label: '0', description: 'Not at all' }, { label: '1' }, { label: '2', description: 'Very' }],
        },
        { type: 'predicate', instructions: 'Is it spam?' },
      ],
      safety_identifier: 'user-1',
    }
    const decision: Decision = await client().decisions.create(params)

    expect(server.decisionRequests).toHaveLength(1)
    expect(server.decisionRequests[0]?.url).toBe('/v1/decisions')
    expect(server.decisionRequests[0]?.body).toEqual(params)
    expect(decision.model).toBe('gpt-6-luna')
    expect(decision.answers).toEqual([
      { type: 'predicate', name: 'angry', probability: 0.83 },
      {
        type: 'choice',
        name: 'intent',
        choice: 'refund',
        confidence: 0.6,
        probabilities: [
          { value: 'refund', probability: 0.6 },
          { value: 'exchange', probability: 0.2 },
          { value: 'info', probability: 0.2 },
        ],
      },
      {
        type: 'score',
        name: 'urgency',
        score: 1.55,
        confidence: 0.7,
        probabilities: [
          { label: '0', value: 0, probability: 0.15 },
          { label: '1', value: 1, probability: 0.15 },
          { label: '2', value: 2, probability: 0.7 },
        ],
      },
      { type: 'refusal', name: null },
    ])
    expect(decision.usage).toEqual({
      input_tokens: 120,
      input_tokens_details: { cached_tokens: 64, cache_write_tokens: 0 },
      output_tokens: 4,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 124,
    })
  })

  it("client.decisions.create gets OpenAI's 400 for a body OpenAI refuses", async () => {
    const params = {
      model: 'gpt-6-luna',
      input: 'hi',
      questions: [{ type: 'choice', instructions: 'Which?', choices: [{ value: 'a' }, { value: 'a' }] }],
    } satisfies DecisionCreateParams
    const error = await client()
      .decisions.create(params)
      .then(
        () => undefined,
        (failure: unknown) => failure,
      )
    expect(error).toBeInstanceOf(OpenAIV7.BadRequestError)
    expect((error as Error).message).toMatch(/questions\[0\]\.choices must be unique/)
  })
})

describe('OpenAIDecisionJudge given a v7 client', () => {
  const schema = z.unknown()
  const ask = (question: JudgeQuestion, signal?: AbortSignal): JudgeRequest<unknown> => ({
    messages: [{ role: 'user', content: question.instructions }],
    schema,
    schemaName: 'verdict',
    promptVersion: 'v7@1',
    question,
    signal,
  })
  const state = 'The answer was short and kind.'
  const questions: JudgeQuestion[] = [
    { kind: 'predicate', instructions: 'Is it kind?', state, field: 'verdict' },
    { kind: 'choice', instructions: 'How long?', state, options: ['short', 'long'], field: 'verdict' },
    { kind: 'score', instructions: 'Quality?', state, levels: [0, 1, 2, 3], field: 'score' },
  ]

  it('posts through client.decisions.create: one request for the three questions', async () => {
    server.decideWith(() => ({ answers: [mostProbable(true, 0.7), mostProbable('short', 0.8), mostProbable(3, 0.5)] }))
    const judge = new OpenAIDecisionJudge({ client: client() })
    const entries = (await judge.generateMany(questions.map((question) => ask(question)))) as JudgeResponse<unknown>[]

    expect(server.decisionRequests).toHaveLength(1)
    expect(server.decisionRequests[0]?.headers['user-agent']).toMatch(/OpenAI\/JS 7\./)
    expect(entries.map((entry) => entry.value)).toEqual([{ verdict: true }, { verdict: 'short' }, { score: 3 }])
    expect(entries[2]?.distribution).toEqual({ '0': 0.17, '1': 0.17, '2': 0.16, '3': 0.5 })
    expect(judge.rateLimitRetries).toBe(0)
  })

  it("classifies the v7 SDK's errors by shape: a 400 with its status, an abort as an abort", async () => {
    server.decideWith(() => ({ status: 400, error: { message: `Bad question (${KEY})` } }))
    const judge = new OpenAIDecisionJudge({ client: client() })
    const failed = await judge.generate(ask(questions[0] as JudgeQuestion)).catch((error: unknown) => error)
    expect(failed).toBeInstanceOf(JudgeCallError)
    expect((failed as JudgeCallError).status).toBe(400)
    expect((failed as Error).message).toMatch(/answered HTTP 400: Bad question \(sk-\*\*\*\)/)
    expect((failed as Error).message).not.toContain(KEY)

    server.decideWith(() => ({ delayMs: 5_000, answers: [mostProbable(true)] }))
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    const aborted = await judge
      .generate(ask(questions[0] as JudgeQuestion, controller.signal))
      .catch((error: unknown) => error)
    expect(aborted).toBeInstanceOf(MeasurementAbortedError)
  })
})
