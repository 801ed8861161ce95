import { createOpenAI } from '@ai-sdk/openai'
import {
  ConfigurationError,
  GEval,
  JudgeCallError,
  type JudgeRequest,
  LLMTestCaseParams,
  MeasurementAbortedError,
} from '@judgetree/core'
import {
  jsonReply,
  ln,
  schemaOf,
  scoreReply,
  scoreSevenWithRawLogprobs,
  useOpenAIServer,
} from '@judgetree/test-support'
import { describe, expect, test, vi } from 'vitest'
import { z } from 'zod'
import { aiSdkJudge } from '../src/index.js'

const server = useOpenAIServer()
const API_KEY = 'sk-test-aisdk-0123456789abcdef'

/** A judge on the local server through the real `@ai-sdk/openai` provider (Chat Completions, as the server speaks). */
function judge(options: Parameters<typeof aiSdkJudge>[1] = {}, model = 'gpt-4.1') {
  const openai = createOpenAI({ baseURL: server.baseURL, apiKey: API_KEY })
  return aiSdkJudge(openai.chat(model), { maxRetries: 0, ...options })
}

const verdictSchema = z.object({ reason: z.string(), verdict: z.boolean() })
const request = (extra: Partial<JudgeRequest<z.infer<typeof verdictSchema>>> = {}) => ({
  messages: [
    { role: 'system' as const, content: 'You are a judge.' },
    { role: 'user' as const, content: 'Is the sky blue?' },
  ],
  schema: verdictSchema,
  schemaName: 'binary_verdict',
  promptVersion: 'test@1',
  ...extra,
})

describe('aiSdkJudge through @ai-sdk/openai', () => {
  test('answers with the parsed value, usage and cost, having sent the zod schema as a strict json_schema', async () => {
    server.respondWith(() =>
      jsonReply({ reason: 'It is.', verdict: true }, { usage: { promptTokens: 1000, completionTokens: 500 } }),
    )
    const response = await judge().generate(request())
    expect(response).toEqual({
      value: { reason: 'It is.', verdict: true },
      usage: { promptTokens: 1000, completionTokens: 500, costUsd: (1000 * 2 + 500 * 8) / 1_000_000 },
      logprobs: undefined,
      cached: false,
      rawText: '{"reason":"It is.","verdict":true}',
    })
    const [sent] = server.requests
    expect(schemaOf(sent as never)).toBe('binary_verdict')
    expect(sent?.body).toMatchObject({
      model: 'gpt-4.1',
      temperature: 0,
      messages: [
        { role: 'system', content: 'You are a judge.' },
        { role: 'user', content: 'Is the sky blue?' },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { strict: true, schema: { required: ['reason', 'verdict'] } },
      },
    })
    expect(sent?.body.logprobs).toBeUndefined()
  })

  test('cost comes from the judge’s pricing option, and is undefined for a model with no known price', async () => {
    server.respondWith(() =>
      jsonReply({ reason: 'ok', verdict: true }, { usage: { promptTokens: 1_000_000, completionTokens: 0 } }),
    )
    const priced = await judge(
      { pricing: { 'my-model': { inputPerMillion: 3, outputPerMillion: 15 } } },
      'my-model',
    ).generate(request())
    expect(priced.usage.costUsd).toBe(3)
    const unpriced = await judge({}, 'unknown-model').generate(request())
    expect(unpriced.usage.costUsd).toBeUndefined()
  })

  test('asks for logprobs when the request does, and maps them to token logprobs', async () => {
    server.respondWith(() => scoreReply(8, ln({ '8': 0.5, '9': 0.25, '7': 0.25 })))
    const response = await judge().generate({
      ...request(),
      schema: z.object({ reason: z.string(), score: z.number() }),
      topLogprobs: 25,
    })
    expect(server.requests[0]?.body).toMatchObject({ logprobs: true, top_logprobs: 20 })
    expect(response.logprobsUnavailable).toBeUndefined()
    const scoreToken = response.logprobs?.find((token) => token.token === '8')
    expect(scoreToken?.logprob).toBeCloseTo(Math.log(0.5))
    expect(scoreToken?.topLogprobs.map((top) => top.token)).toEqual(['7', '8', '9']) // integer-like keys come out in numeric order
  })

  test('a model that rejects logprobs is asked again without them, once, and the response says why', async () => {
    server.respondWith((recorded) =>
      recorded.body.logprobs
        ? {
            status: 400,
            error: { message: 'logprobs is not supported with this model.', code: 'unsupported_parameter' },
          }
        : scoreReply(8, undefined),
    )
    const scoreRequest = { ...request(), schema: z.object({ reason: z.string(), score: z.number() }), topLogprobs: 5 }
    const reasoning = judge({}, 'gpt-4.1-rejects-logprobs')
    const first = await reasoning.generate(scoreRequest)
    expect(first.value.score).toBe(8)
    expect(first.logprobsUnavailable).toBe(
      'the model "gpt-4.1-rejects-logprobs" does not accept logprobs (logprobs is not supported with this model.), so it is asked without them',
    )
    await reasoning.generate(scoreRequest)
    expect(server.requests.map((recorded) => recorded.body.logprobs ?? false)).toEqual([true, false, false])
  })

  test('G-Eval weighs the score by the logprobs the provider returned', async () => {
    server.respondWith((recorded) =>
      schemaOf(recorded) === 'geval_steps'
        ? jsonReply({ steps: ['Check the facts.', 'Check the units.'] })
        : scoreReply(8, ln({ '8': 0.5, '10': 0.5 })),
    )
    const metric = new GEval({
      name: 'Correctness',
      criteria: 'Is the answer right?',
      evaluationParams: [LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT],
      model: judge(),
    })
    const result = await metric.measure({ input: 'Boiling point?', actualOutput: '100 °C' })
    expect(result.error).toBeUndefined()
    expect(result.score).toBeCloseTo(0.9)
    expect(result.reason).toContain('9 weighted by its logprobs')
  })

  test('G-Eval counts a "1" alternative as the score 1 when "10" is among the alternatives, as OpenAIJudge does', async () => {
    const top = ln({ '2': 0.5, '1': 0.4, '3': 0.09, '0': 0.005, '10': 0.005 })
    server.respondWith((recorded) =>
      schemaOf(recorded) === 'geval_steps' ? jsonReply({ steps: ['Check the facts.'] }) : scoreReply(2, top),
    )
    const metric = new GEval({
      name: 'Correctness',
      criteria: 'Is the answer right?',
      evaluationParams: [LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT],
      model: judge(),
    })
    const result = await metric.measure({ input: 'Boiling point?', actualOutput: '100 °C' })
    expect(result.error).toBeUndefined()
    expect(result.score).toBeCloseTo((2 * 0.5 + 1 * 0.4 + 3 * 0.09 + 10 * 0.005) / 10, 10)
  })

  test('a provider error names the provider and the model, says what to change and never shows the key', async () => {
    server.respondWith(() => ({ status: 401, error: { message: `Incorrect API key provided: ${API_KEY}` } }))
    const error = await judge()
      .generate(request())
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(JudgeCallError)
    expect((error as JudgeCallError).status).toBe(401)
    expect((error as Error).message).toMatchInlineSnapshot(
      `"The judge model "gpt-4.1" (AI SDK provider openai.chat) answered HTTP 401: Incorrect API key provided: sk-*** Check the API key the provider sends: OPENAI_API_KEY, or createOpenAI({ apiKey })."`,
    )
    // Every call of the run is refused the same way: runners say the fix once per run.
    expect((error as JudgeCallError).advice).toBe(
      'Check the API key the provider sends: OPENAI_API_KEY, or createOpenAI({ apiKey }).',
    )
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(API_KEY)
    expect(String((error as Error).cause)).not.toContain(API_KEY)
  })

  test('a 429 after the retries carries the wait the server asked for', async () => {
    server.respondWith(() => ({
      status: 429,
      error: { message: 'Rate limit reached' },
      headers: { 'retry-after': '7' },
    }))
    const error = (await judge()
      .generate(request())
      .catch((caught: unknown) => caught)) as JudgeCallError
    expect(error.retryAfterMs).toBe(7000)
    expect(error.message).toMatchInlineSnapshot(`
      "The judge model "gpt-4.1" (AI SDK provider openai.chat) answered HTTP 429: Rate limit reached
      Still rate limited after 0 retries: lower the concurrency, raise maxRetries or check your quota."
    `)
  })

  test('the SDK retries a 500 maxRetries times', async () => {
    server.respondWith(() => ({ status: 500, error: { message: 'boom' } }))
    const error = await judge({ maxRetries: 1 })
      .generate(request())
      .catch((caught: unknown) => caught)
    expect(server.requests).toHaveLength(2)
    expect((error as Error).message).toMatchInlineSnapshot(`
      "The judge model "gpt-4.1" (AI SDK provider openai.chat) answered HTTP 500: boom
      The server kept failing after 1 retry; try again later or raise maxRetries."
    `)
  })

  test('the abort signal cancels the call in flight', async () => {
    server.respondWith(() => ({ ...jsonReply({ reason: 'late', verdict: true }), delayMs: 5_000 }))
    const controller = new AbortController()
    const pending = judge().generate(request({ signal: controller.signal }))
    setTimeout(() => controller.abort(new Error('stopped by the test')), 50)
    await expect(pending).rejects.toBeInstanceOf(MeasurementAbortedError)
    await expect(pending).rejects.toThrow('The measurement was aborted: stopped by the test.')
  })

  test('a call slower than timeoutMs fails with a timeout error naming the option', async () => {
    server.respondWith(() => ({ ...jsonReply({ reason: 'late', verdict: true }), delayMs: 5_000 }))
    const error = await judge({ timeoutMs: 100 })
      .generate(request())
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(JudgeCallError)
    expect((error as Error).message).toMatchInlineSnapshot(
      `"The judge model "gpt-4.1" (AI SDK provider openai.chat) did not answer within 100 ms (timeoutMs). Raise timeoutMs, or shorten the input."`,
    )
  })
})

test("a 404 from the Responses API of a chat-completions server says to use openai.chat('…')", async () => {
  // The local server speaks Chat Completions only, as Ollama, vLLM and LM Studio do; `openai(…)` calls /responses.
  const openai = createOpenAI({ baseURL: server.baseURL, apiKey: API_KEY })
  const error = await aiSdkJudge(openai('gpt-4.1'), { maxRetries: 0 })
    .generate(request())
    .catch((caught: unknown) => caught)
  expect((error as JudgeCallError).status).toBe(404)
  expect((error as Error).message).toContain('(AI SDK provider openai.responses) answered HTTP 404')
  expect((error as Error).message).toContain("needs `openai.chat('…')` instead.")
  // A 404 from a Chat Completions model (a baseURL with the full path) keeps the plain advice.
  const wrongRoot = createOpenAI({ baseURL: `${server.baseURL}/chat/completions`, apiKey: API_KEY })
  const chat = await aiSdkJudge(wrongRoot.chat('gpt-4.1'), { maxRetries: 0 })
    .generate(request())
    .catch((caught: unknown) => caught)
  expect((chat as JudgeCallError).status).toBe(404)
  expect((chat as Error).message).not.toContain('openai.chat(')
})

test('a provider with no API key fails before any request, naming the variable to set', async () => {
  vi.stubEnv('OPENAI_API_KEY', undefined)
  try {
    const openai = createOpenAI({ baseURL: server.baseURL })
    const error = await aiSdkJudge(openai.chat('gpt-4.1'), { maxRetries: 0 })
      .generate(request())
      .catch((caught: unknown) => caught)
    expect(server.requests).toHaveLength(0)
    // A problem of the environment: every test would meet it, so runners say the provider's advice once per run.
    expect(error).toBeInstanceOf(ConfigurationError)
    expect((error as Error).message).toMatchInlineSnapshot(
      `"The judge model "gpt-4.1" (AI SDK provider openai.chat) has no API key. OpenAI API key is missing. Pass it using the 'apiKey' parameter or the OPENAI_API_KEY environment variable."`,
    )
    expect((error as ConfigurationError).advice).toBe(
      "OpenAI API key is missing. Pass it using the 'apiKey' parameter or the OPENAI_API_KEY environment variable.",
    )
  } finally {
    vi.unstubAllEnvs()
  }
})

describe('aiSdkJudge when the server sends malformed logprobs', () => {
  /** The score 7 with a null logprob, which @ai-sdk/openai's response schema refuses. */
  const malformed = () =>
    scoreSevenWithRawLogprobs({ content: [{ token: '7', logprob: null, bytes: [], top_logprobs: [] }], refusal: null })

  test('G-Eval keeps the raw score with a note, asks without logprobs from then on, and never fails', async () => {
    server.respondWith((recorded) =>
      schemaOf(recorded) === 'geval_steps'
        ? jsonReply({ steps: ['Check the facts.', 'Check the units.'] })
        : recorded.body.logprobs
          ? malformed()
          : scoreReply(7, undefined),
    )
    const metric = new GEval({
      name: 'Correctness',
      criteria: 'Is the answer right?',
      evaluationParams: [LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT],
      model: judge(),
    })
    const first = await metric.measure({ input: 'Boiling point?', actualOutput: '100 °C' })
    const second = await metric.measure({ input: 'Freezing point?', actualOutput: '0 °C' })
    for (const result of [first, second]) {
      expect(result.error).toBeUndefined()
      expect(result.score).toBe(0.7)
      expect(result.trace.notes.join('\n')).toMatch(/raw score: .*malformed logprobs/)
    }
    // steps, the score with logprobs (malformed), the score again without; then the second case without logprobs.
    const scoreRequests = server.requests.filter((recorded) => schemaOf(recorded) !== 'geval_steps')
    expect(scoreRequests.map((recorded) => recorded.body.logprobs ?? false)).toEqual([true, false, false])
  })
})
