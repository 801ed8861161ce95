import { createOpenAI } from '@ai-sdk/openai'
import {
  ConfigurationError,
  JudgeCallError,
  JudgeOutputError,
  type JudgeQuestion,
  type JudgeRequest,
  type JudgeResponse,
  MeasurementAbortedError,
  OpenAIDecisionJudge,
} from '@judgetree/core'
import { type DecisionQuestionBody, decideEach, mostProbable, useOpenAIServer } from '@judgetree/test-support'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { aiSdkDecisionJudge } from '../src/index.js'

const KEY = 'sk-test-aisdk-decisions-0123456789'
const server = useOpenAIServer(undefined, { decisions: decideEach(() => mostProbable(true)) })
const STATE = 'User: Cancel my plan.\nAssistant: Done, your plan ends today.'

const provider = () => createOpenAI({ baseURL: server.baseURL, apiKey: KEY })
const judge = (options: Parameters<typeof aiSdkDecisionJudge>[1] = {}) =>
  aiSdkDecisionJudge(provider().decisionModel('gpt-6-luna'), { maxRetries: 0, ...options })

const questions: JudgeQuestion[] = [
  { kind: 'predicate', instructions: 'Was the request done?', state: STATE, field: 'verdict' },
  { kind: 'choice', instructions: 'Tone?', state: STATE, options: ['curt', 'neutral', 'warm'], field: 'verdict' },
  {
    kind: 'score',
    instructions: 'How complete is the answer?',
    state: STATE,
    levels: [0, 1, 2, 3],
    descriptions: ['Nothing', undefined, undefined, 'Everything'],
    field: 'score',
  },
]

function ask(question: JudgeQuestion | undefined, signal?: AbortSignal): JudgeRequest<unknown> {
  return {
    messages: [{ role: 'user', content: question?.instructions ?? 'Write the steps.' }],
    schema: z.unknown(),
    schemaName: question === undefined ? 'geval_steps' : 'verdict',
    promptVersion: 'ai-sdk-decision@1',
    question,
    signal,
  }
}

/** The same answers whichever client asks: a score's by the level's position, as both clients label levels apart. */
const sameAnswers = decideEach(
  (question: DecisionQuestionBody) =>
    question.type === 'predicate'
      ? mostProbable(false, 0.74)
      : question.type === 'choice'
        ? { probabilities: { curt: 0.2, neutral: 0.5, warm: 0.3 } }
        : mostProbable((question.levels ?? [])[2]?.label ?? '', 0.61),
  { usage: { inputTokens: 500, cachedTokens: 100, outputTokens: 3 } },
)

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    (value) => {
      throw new Error(`Expected a rejection, got ${JSON.stringify(value)}`)
    },
    (error: unknown) => error as Error,
  )

describe('aiSdkDecisionJudge with @ai-sdk/openai decisionModel on the local server', () => {
  test('gives the same values and distributions as OpenAIDecisionJudge, each in one request', async () => {
    server.decideWith(sameAnswers)
    const viaAiSdk = (await judge().generateMany(questions.map((q) => ask(q)))) as JudgeResponse<unknown>[]
    const openAI = new OpenAIDecisionJudge({ baseURL: server.baseURL, apiKey: KEY, maxRetries: 0 })
    const viaOpenAI = (await openAI.generateMany(questions.map((q) => ask(q)))) as JudgeResponse<unknown>[]

    expect(server.decisionRequests).toHaveLength(2)
    const pick = (entries: JudgeResponse<unknown>[]) =>
      entries.map(({ value, distribution }) => ({ value, distribution }))
    expect(pick(viaAiSdk)).toEqual(pick(viaOpenAI))
    expect(pick(viaAiSdk)).toEqual([
      { value: { verdict: false }, distribution: { true: 0.26, false: 0.74 } },
      { value: { verdict: 'neutral' }, distribution: { curt: 0.2, neutral: 0.5, warm: 0.3 } },
      { value: { score: 2 }, distribution: { '0': 0.13, '1': 0.13, '2': 0.61, '3': 0.13 } },
    ])
    // Usage, cached tokens included, on the first answer; the others are extra samples of the one call.
    expect(viaAiSdk.map((entry) => entry.usage)).toEqual([
      { promptTokens: 500, completionTokens: 3, cachedPromptTokens: 100, reasoningTokens: 0, costUsd: 0.00005 },
      { promptTokens: 0, completionTokens: 0, costUsd: 0 },
      { promptTokens: 0, completionTokens: 0, costUsd: 0 },
    ])
    expect(viaAiSdk.map((entry) => entry.extraSample)).toEqual([undefined, true, true])
  })

  test('sends the state as one user message and a score as levels indexed from 0, described by their numbers', async () => {
    await judge().generate(ask(questions[0] as JudgeQuestion))
    server.decideWith(decideEach(() => mostProbable('1')))
    await judge().generate(ask(questions[2] as JudgeQuestion))

    const [predicate, score] = server.decisionRequests
    expect(predicate?.body).toEqual({
      model: 'gpt-6-luna',
      input: [{ role: 'user', content: [{ type: 'input_text', text: STATE }] }],
      questions: [{ type: 'predicate', name: 'q1', instructions: 'Was the request done?' }],
    })
    expect(score?.body.questions[0]?.levels).toEqual([
      { label: '0', description: '0: Nothing' },
      { label: '1', description: '1' },
      { label: '2', description: '2' },
      { label: '3', description: '3: Everything' },
    ])
    expect(predicate?.headers.authorization).toBe(`Bearer ${KEY}`)
  })

  test('a refused question is an Error for its request alone', async () => {
    server.decideWith(() => ({ answers: [mostProbable(true), { refusal: true }, mostProbable('3')] }))
    const entries = await judge().generateMany(questions.map((q) => ask(q)))

    expect((entries[0] as JudgeResponse<unknown>).value).toEqual({ verdict: true })
    expect(entries[1]).toBeInstanceOf(JudgeOutputError)
    expect((entries[1] as Error).message).toBe(
      'The decision model "gpt-6-luna" (AI SDK provider openai.decision) refused to answer question 2 of 3 ' +
        '("Tone?"). Rephrase the criteria, or use a chat model for this judgement.',
    )
    expect((entries[2] as JudgeResponse<unknown>).value).toEqual({ score: 3 })
    expect(server.decisionRequests).toHaveLength(1)
  })

  test('a malformed answer (probabilities not summing to 1) is a JudgeCallError naming it', async () => {
    server.decideWith(() => ({ answers: [{ probabilities: { curt: 0.5, neutral: 0.2, warm: 0.1 } }] }))
    const error = await rejection(judge().generate(ask(questions[1] as JudgeQuestion)))
    expect(error).toBeInstanceOf(JudgeCallError)
    expect(error.message).toMatch(/its answers are malformed: Question "q1" probabilities must sum to 1/)
  })

  test('a 400 is a JudgeCallError with its status, never the key', async () => {
    server.decideWith(() => ({ status: 400, error: { message: `Bad request for key ${KEY}` } }))
    const error = await rejection(judge().generate(ask(questions[0] as JudgeQuestion)))
    expect(error).toBeInstanceOf(JudgeCallError)
    expect((error as JudgeCallError).status).toBe(400)
    expect(error.message).toMatch(/answered HTTP 400: Bad request for key sk-\*\*\*/)
    expect(`${error.message} ${String(error.cause)}`).not.toContain(KEY)
  })

  test("a 429 is retried after the server's Retry-After", async () => {
    server.decideWith((request) =>
      request.index === 0
        ? { status: 429, headers: { 'retry-after-ms': '20' }, error: { message: 'Slow down' } }
        : { answers: [mostProbable(true)] },
    )
    const response = await judge({ maxRetries: 1 }).generate(ask(questions[0] as JudgeQuestion))
    expect(response.value).toEqual({ verdict: true })
    expect(server.decisionRequests).toHaveLength(2)
  })

  test('stops when the signal aborts', async () => {
    server.decideWith(() => ({ delayMs: 5_000, answers: [mostProbable(true)] }))
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('cancelled')), 50)
    const error = await rejection(judge().generate(ask(questions[0] as JudgeQuestion, controller.signal)))
    expect(error).toBeInstanceOf(MeasurementAbortedError)
  })

  test('refuses a request without a question, and a model that is not a decision model', async () => {
    const error = await rejection(judge().generate(ask(undefined)))
    expect(error.message).toMatch(/answers only decisions .* "geval_steps" request is a task or a step/)
    expect(() => aiSdkDecisionJudge(provider().chat('gpt-4.1') as never)).toThrow(ConfigurationError)
    expect(() => aiSdkDecisionJudge(provider().chat('gpt-4.1') as never)).toThrow(/pass it to aiSdkJudge/)
    expect(() => aiSdkDecisionJudge(provider().decisionModel('gpt-6-luna'), { temperature: 0 } as never)).toThrow(
      /unknown option `temperature`/,
    )
  })
})
