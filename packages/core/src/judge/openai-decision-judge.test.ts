import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decideEach, jsonReply, mostProbable, useOpenAIServer } from '@judgetree/test-support'
import OpenAI from 'openai'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { ConfigurationError, JudgeCallError, JudgeOutputError, MeasurementAbortedError } from '../errors.js'
import { createJudgeRuntime } from '../runtime/judge-runtime.js'
import { OpenAIDecisionJudge, type OpenAIDecisionJudgeOptions } from './openai-decision-judge.js'
import { OpenAIJudge } from './openai-judge.js'
import type { JudgeQuestion, JudgeRequest, JudgeResponse } from './types.js'

const KEY = 'sk-test-DECISION-SECRET-1234567890'
const STATE = 'User: Where is my order?\nAssistant: It ships tomorrow, sorry for the wait!'

const server = useOpenAIServer(undefined, { decisions: decideEach(() => mostProbable(true)) })
afterEach(() => vi.unstubAllEnvs())

function judge(options: OpenAIDecisionJudgeOptions = {}): OpenAIDecisionJudge {
  return new OpenAIDecisionJudge({ apiKey: KEY, baseURL: server.baseURL, maxRetries: 0, timeoutMs: 2_000, ...options })
}

const polite: JudgeQuestion = {
  kind: 'predicate',
  instructions: 'Is the reply polite?',
  state: STATE,
  field: 'verdict',
}
const tone: JudgeQuestion = {
  kind: 'choice',
  instructions: 'What is the tone of the reply?',
  state: STATE,
  options: ['Rude', 'Neutral', 'Warm'],
  field: 'verdict',
}
const helpful: JudgeQuestion = {
  kind: 'score',
  instructions: 'How helpful is the reply?',
  state: STATE,
  levels: [1, 2, 3, 4, 5],
  descriptions: ['Useless', undefined, 'Partly', undefined, 'Fully'],
  field: 'score',
}

function ask(question: JudgeQuestion | undefined, signal?: AbortSignal): JudgeRequest<unknown> {
  return {
    messages: [{ role: 'user', content: question?.instructions ?? 'Extract the statements.' }],
    schema: z.unknown(),
    schemaName: question === undefined ? 'statements' : `${question.kind}_verdict`,
    promptVersion: 'decision-test@1',
    question,
    signal,
  }
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    (value) => new Error(`Expected a rejection, got ${JSON.stringify(value)}`),
    (error: unknown) => error,
  )
  if (outcome instanceof Error && /^Expected a rejection/.test(outcome.message)) throw outcome
  return outcome as Error
}

describe('OpenAIDecisionJudge on /v1/decisions (openai v6 SDK, local server)', () => {
  it('asks a predicate with the state as input and reads P(true) into value and distribution', async () => {
    const response = await judge().generate(ask(polite))

    expect(server.requests).toHaveLength(0)
    const [request] = server.decisionRequests
    expect(request?.url).toBe('/v1/decisions')
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(request?.body).toEqual({
      model: 'gpt-6-luna',
      input: STATE,
      questions: [{ type: 'predicate', name: 'q1', instructions: 'Is the reply polite?' }],
    })
    expect(response.value).toEqual({ verdict: true })
    expect(response.distribution).toEqual({ true: 0.9, false: 0.1 })
    expect(response.extraSample).toBeUndefined()
    // gpt-6-luna's decision price: $0.10 per million input tokens, output free.
    expect(response.usage).toEqual({
      promptTokens: 20,
      completionTokens: 0,
      cachedPromptTokens: 0,
      reasoningTokens: 0,
      costUsd: 0.000002,
    })
  })

  it('asks a choice with its options in declaration order; a tie goes to the first declared', async () => {
    server.decideWith(decideEach(() => mostProbable('Warm', 0.7)))
    const warm = await judge().generate(ask(tone))
    expect(server.decisionRequests[0]?.body.questions).toEqual([
      {
        type: 'choice',
        name: 'q1',
        instructions: 'What is the tone of the reply?',
        choices: [{ value: 'Rude' }, { value: 'Neutral' }, { value: 'Warm' }],
      },
    ])
    expect(warm.value).toEqual({ verdict: 'Warm' })
    expect(warm.distribution).toEqual({ Rude: 0.15, Neutral: 0.15, Warm: 0.7 })

    server.decideWith(decideEach(() => ({ probabilities: { Rude: 0.1, Neutral: 0.45, Warm: 0.45 } })))
    expect((await judge().generate(ask(tone))).value).toEqual({ verdict: 'Neutral' })
  })

  it('asks a score on levels labelled by the integer, with the rubric descriptions', async () => {
    server.decideWith(decideEach(() => mostProbable(4, 0.6)))
    const response = await judge().generate(ask(helpful))

    expect(server.decisionRequests[0]?.body.questions[0]).toEqual({
      type: 'score',
      name: 'q1',
      instructions: 'How helpful is the reply?',
      levels: [
        { label: '1', description: 'Useless' },
        { label: '2' },
        { label: '3', description: 'Partly' },
        { label: '4' },
        { label: '5', description: 'Fully' },
      ],
    })
    expect(response.value).toEqual({ score: 4 })
    expect(response.distribution).toEqual({ '1': 0.1, '2': 0.1, '3': 0.1, '4': 0.6, '5': 0.1 })
  })

  it('renders a state that is not a string as indented JSON', async () => {
    const state = { turns: [{ role: 'user', content: 'Hi' }] }
    await judge().generate(ask({ ...polite, state }))
    expect(server.decisionRequests[0]?.body.input).toBe(JSON.stringify(state, null, 2))
  })

  it('asks three questions about one state in ONE request; the 2nd and 3rd are extra samples with no usage', async () => {
    server.decideWith((request) => ({
      answers: [mostProbable(false, 0.8), mostProbable('Rude', 0.5), mostProbable(2, 0.55)],
      usage: { inputTokens: 1_000, cachedTokens: 400, outputTokens: 3, reasoningTokens: 1 },
      ...(request.body.questions.length === 3 ? {} : { status: 400 }),
    }))
    const entries = await judge().generateMany([ask(polite), ask(tone), ask(helpful)])

    expect(server.decisionRequests).toHaveLength(1)
    expect(server.decisionRequests[0]?.body.questions.map((q) => [q.type, q.name])).toEqual([
      ['predicate', 'q1'],
      ['choice', 'q2'],
      ['score', 'q3'],
    ])
    const [first, second, third] = entries as JudgeResponse<unknown>[]
    expect([first?.value, second?.value, third?.value]).toEqual([{ verdict: false }, { verdict: 'Rude' }, { score: 2 }])
    expect(first?.distribution).toEqual({ true: 0.2, false: 0.8 })
    // No cached-input price is published for decisions: cached tokens cost the input price.
    expect(first?.usage).toEqual({
      promptTokens: 1_000,
      completionTokens: 3,
      cachedPromptTokens: 400,
      reasoningTokens: 1,
      costUsd: 0.0001,
    })
    expect(first?.extraSample).toBeUndefined()
    for (const extra of [second, third]) {
      expect(extra?.extraSample).toBe(true)
      expect(extra?.usage).toEqual({ promptTokens: 0, completionTokens: 0, costUsd: 0 })
    }
  })

  it('a refused question is an Error for its request alone, quoting its instructions', async () => {
    server.decideWith(() => ({ answers: [mostProbable(true), { refusal: true }, mostProbable(3)] }))
    const entries = await judge().generateMany([ask(polite), ask(tone), ask(helpful)])

    expect((entries[0] as JudgeResponse<unknown>).value).toEqual({ verdict: true })
    expect(entries[1]).toBeInstanceOf(JudgeOutputError)
    expect((entries[1] as Error).message).toMatch(
      /^The decision model "gpt-6-luna" at 127\.0\.0\.1:\d+ refused to answer question 2 of 3 \("What is the tone of the reply\?"\)/,
    )
    expect((entries[2] as JudgeResponse<unknown>).value).toEqual({ score: 3 })
    // A refused first question does not take the call's usage with it: the first answer given carries it.
    server.decideWith(() => ({ answers: [{ refusal: true }, mostProbable('Warm')], usage: { inputTokens: 50 } }))
    const [refused, answered] = await judge().generateMany([ask(polite), ask(tone)])
    expect(refused).toBeInstanceOf(JudgeOutputError)
    expect((answered as JudgeResponse<unknown>).usage.promptTokens).toBe(50)
    expect((answered as JudgeResponse<unknown>).extraSample).toBeUndefined()
    // Through generate, the refusal rejects.
    server.decideWith(() => ({ answers: [{ refusal: true }] }))
    expect((await rejection(judge().generate(ask(polite)))).message).toMatch(/refused to answer question 1 of 1/)
  })

  it('a malformed answer is a JudgeCallError naming what was wrong', async () => {
    const cases: [unknown, RegExp][] = [
      [{ probabilities: { Rude: 0.5, Neutral: 0.3, Warm: 0.1 } }, /probabilities that sum to 0\.9, not 1/],
      [
        { raw: { type: 'choice', name: 'q1', choice: 'Cold', confidence: 1, probabilities: [] } },
        /no probability for "Rude"/,
      ],
      [
        {
          raw: {
            type: 'choice',
            name: 'q1',
            choice: 'Warm',
            probabilities: [
              { value: 'Warm', probability: 0.5 },
              { value: 'Cold', probability: 0.5 },
            ],
          },
        },
        /a probability for "Cold", which was not asked/,
      ],
      [{ raw: { type: 'predicate', name: 'q1', probability: 0.7 } }, /a predicate answer to a choice question/],
      [{ raw: { type: 'choice', name: 'q9', choice: 'Warm', probabilities: [] } }, /named "q9" where "q1" was asked/],
    ]
    for (const [answer, expected] of cases) {
      server.decideWith(() => ({ answers: [answer as never] }))
      const error = await rejection(judge().generate(ask(tone)))
      expect(error).toBeInstanceOf(JudgeCallError)
      expect(error.message).toMatch(/gave a malformed answer to question 1 of 1 \("What is the tone of the reply\?"\)/)
      expect(error.message).toMatch(expected)
    }
  })

  it('a wrong number of answers fails the whole call', async () => {
    server.decideWith(() => ({ rawBody: JSON.stringify({ model: 'gpt-6-luna', answers: [], usage: {} }) }))
    const error = await rejection(judge().generateMany([ask(polite), ask(tone)]))
    expect(error).toBeInstanceOf(JudgeCallError)
    expect(error.message).toMatch(/returned 0 answers for 2 questions/)
  })

  it("a 400 is a JudgeCallError with the server's words, the key scrubbed", async () => {
    server.decideWith(() => ({
      status: 400,
      error: { message: `Invalid question: bad instructions (key ${KEY})`, param: 'questions[0]' },
    }))
    const error = await rejection(judge().generate(ask(polite)))
    expect(error).toBeInstanceOf(JudgeCallError)
    expect((error as JudgeCallError).status).toBe(400)
    expect(error.message).toMatch(
      /^The decision model "gpt-6-luna" at 127\.0\.0\.1:\d+ answered HTTP 400: Invalid question/,
    )
    expect(JSON.stringify({ message: error.message, cause: String(error.cause) })).not.toContain(KEY)
  })

  it('the server refuses a body OpenAI would refuse (a choice with one option)', async () => {
    const error = await rejection(judge().generate(ask({ ...tone, options: ['Only'] })))
    expect(error.message).toMatch(/HTTP 400: questions\[0\]\.choices must hold 2 to 255 choices/)
  })

  it('a 401 says where the key comes from, without the key', async () => {
    server.decideWith(() => ({ status: 401, error: { message: `Incorrect API key provided: ${KEY}` } }))
    const error = await rejection(judge().generate(ask(polite)))
    expect((error as JudgeCallError).status).toBe(401)
    expect(`${error.message} ${(error as { advice?: string }).advice}`).toMatch(/OPENAI_API_KEY/)
    expect(`${error.message} ${String(error.cause)}`).not.toContain(KEY)
  })

  it('a 429 goes to the judge runtime, which waits for Retry-After and retries', async () => {
    server.decideWith((request) =>
      request.index === 0
        ? { status: 429, headers: { 'retry-after-ms': '30' }, error: { message: 'Rate limit reached' } }
        : { answers: [mostProbable(true, 0.95)] },
    )
    const runtime = createJudgeRuntime({ cache: 'off', cacheDir: mkdtempSync(join(tmpdir(), 'decisions-')) })
    const response = await runtime.wrap(judge({ maxRetries: 2 })).generate(ask(polite))

    expect(response.value).toEqual({ verdict: true })
    expect(response.distribution).toEqual({ true: 0.95, false: 0.05 })
    expect(server.decisionRequests).toHaveLength(2)
  })

  it('retries a body cut short, and a 5xx through the SDK', async () => {
    server.decideWith((request) =>
      request.index === 0 ? { truncateBody: true, answers: [mostProbable(true)] } : { answers: [mostProbable(true)] },
    )
    expect((await judge({ maxRetries: 1 }).generate(ask(polite))).value).toEqual({ verdict: true })
    expect(server.decisionRequests).toHaveLength(2)

    server.decideWith(() => ({ status: 503, error: { message: 'Overloaded' } }))
    const error = await rejection(judge({ maxRetries: 0 }).generate(ask(polite)))
    expect(error.message).toMatch(/answered HTTP 503: Overloaded\nThe server kept failing after 0 retries/)
  })

  it('stops at once when the signal aborts', async () => {
    server.decideWith(() => ({ delayMs: 5_000, answers: [mostProbable(true)] }))
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('test cancelled')), 50)
    const started = Date.now()
    const error = await rejection(judge().generate(ask(polite, controller.signal)))
    expect(error).toBeInstanceOf(MeasurementAbortedError)
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('refuses a request without a question: tasks and steps go to the chat model', async () => {
    const error = await rejection(judge().generate(ask(undefined)))
    expect(error).toBeInstanceOf(JudgeCallError)
    expect(error.message).toBe(
      'The decision model "gpt-6-luna" answers only decisions (requests with a question), and the "statements" ' +
        'request is a task or a step that needs a written answer. Give the metric a chat `model` for those and this ' +
        'judge as its `decisionModel`.',
    )
    expect(server.decisionRequests).toHaveLength(0)
  })

  it('never prices a decision at a chat price; its own `pricing` applies', async () => {
    const chatOnly = await judge({ model: 'gpt-4.1' }).generate(ask(polite))
    expect(chatOnly.usage.costUsd).toBeUndefined()
    const priced = await judge({
      model: 'gpt-4.1',
      pricing: { 'gpt-4.1': { inputPerMillion: 1, outputPerMillion: 0 } },
    }).generate(ask(polite))
    expect(priced.usage.costUsd).toBe(0.00002)
  })

  it('takes your own v6 client, and reads OPENAI_BASE_URL and OPENAI_API_KEY', async () => {
    const client = new OpenAI({ apiKey: KEY, baseURL: server.baseURL, maxRetries: 0 })
    const own = new OpenAIDecisionJudge({ client })
    expect(own.rateLimitRetries).toBe(0)
    expect((await own.generate(ask(polite))).value).toEqual({ verdict: true })

    vi.stubEnv('OPENAI_BASE_URL', server.baseURL)
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-the-environment-123456')
    const fromEnv = new OpenAIDecisionJudge()
    expect(fromEnv.endpoint).toBe(server.baseURL.replace('http://', ''))
    expect(fromEnv.decides).toBe(true)
    expect(fromEnv.cacheIdentity).toEqual({ model: 'gpt-6-luna', api: 'decisions' })
    await fromEnv.generate(ask(polite))
    expect(server.decisionRequests.at(-1)?.headers.authorization).toBe('Bearer sk-from-the-environment-123456')
  })

  it('shares one server with a chat judge, each API recorded apart; no questions make no request', async () => {
    server.respondWith(() => jsonReply({ output: 'Order #12' }))
    const chat = new OpenAIJudge({ apiKey: KEY, baseURL: server.baseURL, maxRetries: 0 })
    const task = await chat.generate({ ...ask(undefined), schema: z.object({ output: z.string() }) })
    const decision = await judge().generate(ask(polite))

    expect(task.value).toEqual({ output: 'Order #12' })
    expect(decision.value).toEqual({ verdict: true })
    expect(server.requests.map((request) => request.url)).toEqual(['/v1/chat/completions'])
    expect(server.decisionRequests.map((request) => request.url)).toEqual(['/v1/decisions'])
    expect(await judge().generateMany([])).toEqual([])
    expect(server.decisionRequests).toHaveLength(1)
  })

  it('checks its options, naming every wrong one', () => {
    expect(() => new OpenAIDecisionJudge({ timeoutMs: 0, temperature: 1 } as never)).toThrow(ConfigurationError)
    expect(() => new OpenAIDecisionJudge({ timeoutMs: 0, temprature: 1 } as never)).toThrow(
      /Invalid options for OpenAIDecisionJudge:\n {2}- Expected `timeoutMs` .*\n {2}- unknown option `temprature`/s,
    )
  })
})
