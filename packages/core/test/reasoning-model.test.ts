// Every metric and the reference walkthroughs against a judge that behaves like a reasoning model (the local
// server's reasoning mode: 400 to any temperature but 1 and to logprobs), through the real openai SDK. Each metric
// still scores as it would, the judge warns once per refused parameter, and the results say what was left out.
import { jsonReply, type OpenAIServer, schemaOf, scoreReply, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { z } from 'zod'
import {
  ConversationalGEval,
  ConversationRelevancyMetric,
  GEval,
  LLMTestCaseParams,
  OpenAIJudge,
  TurnContextualRelevancyMetric,
} from '../src/index.js'
import { describeWalkthroughs } from './support/walkthrough-suite.js'

let server: OpenAIServer
beforeAll(async () => {
  server = await startOpenAIServer(undefined, { reasoningModel: true })
})
afterAll(() => server.close())

/** A judge with its warnings kept; the walkthroughs' scripts name the model gpt-4.1, so every judge here does. */
function reasoningJudge() {
  const warnings: string[] = []
  const judge = new OpenAIJudge({
    model: 'gpt-4.1',
    baseURL: server.baseURL,
    apiKey: 'sk-test-reasoning',
    maxRetries: 0,
    timeoutMs: 30_000,
    warn: (message) => warnings.push(message),
  })
  return { judge, warnings }
}

const TEMPERATURE_NOTE =
  /^the judge model "gpt-4\.1" refused `temperature` \(Unsupported value: 'temperature' does not support 0 with this model\. Only the default \(1\) value is supported\.\), so it sampled at its own temperature$/

describe('the walkthroughs against a reasoning model', () => {
  let walkthroughs: ReturnType<typeof reasoningJudge>
  beforeAll(async () => {
    walkthroughs = reasoningJudge()
    // The first call meets the refusal and is made again; after it, every call goes out without a temperature, so
    // the suite's counts of requests per measurement hold.
    server.respondWith(() => jsonReply({ verdict: true }))
    await walkthroughs.judge.generate({
      messages: [{ role: 'user', content: 'Warm up.' }],
      schema: z.object({ verdict: z.boolean() }),
      schemaName: 'binary_verdict',
      promptVersion: 'warm-up@1',
    })
    server.requests.length = 0
  })

  describeWalkthroughs('a reasoning model', { server: () => server, judge: () => walkthroughs.judge })

  test('the walkthroughs sent no temperature and no token limit, and the judge warned once', () => {
    expect(walkthroughs.warnings).toHaveLength(1)
    expect(walkthroughs.warnings[0]).toContain('refused `temperature`')
    expect(server.requests.length).toBeGreaterThan(0)
    for (const { body } of server.requests) {
      expect(body.temperature).toBeUndefined()
      expect(body).not.toHaveProperty('max_tokens')
    }
  })
})

describe('every metric against a reasoning model', () => {
  const STEPS = ['Compare the facts.', 'Penalise omissions.']
  const gevalReplies = () =>
    server.respondWith((request) =>
      schemaOf(request) === 'geval_steps' ? jsonReply({ steps: STEPS }) : scoreReply(8, undefined),
    )
  const correctness = (model: OpenAIJudge, extra: { topLogprobs?: number; trials?: number } = {}) =>
    new GEval({
      name: 'Correctness',
      criteria: 'Is the actual output correct?',
      evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
      model,
      ...extra,
    })
  const catCase = { input: 'Who ran up the tree?', actualOutput: 'The cat.' }

  test('G-Eval scores from the raw score and says so, and says it sampled at the model’s temperature', async () => {
    gevalReplies()
    const { judge, warnings } = reasoningJudge()

    const result = await correctness(judge).measure(catCase)

    expect(result.error).toBeUndefined()
    expect(result.score).toBeCloseTo(0.8, 10)
    expect(result.trace.notes).toContainEqual(
      expect.stringMatching(
        /^raw score: the model "gpt-4\.1" does not accept logprobs \(Unsupported parameter: 'logprobs'/,
      ),
    )
    expect(result.trace.notes).toContainEqual(expect.stringMatching(TEMPERATURE_NOTE))
    const at = `judgetree: the judge model "gpt-4.1" at ${new URL(server.baseURL).host}`
    expect(warnings).toEqual([
      expect.stringMatching(new RegExp(`^${at} refused \`temperature\`: Unsupported value`)),
      expect.stringMatching(new RegExp(`^${at} refused logprobs: Unsupported parameter`)),
    ])
  })

  test('G-Eval trials sample at the model’s own temperature, and say so', async () => {
    gevalReplies()
    const { judge, warnings } = reasoningJudge()
    server.requests.length = 0

    const result = await correctness(judge, { topLogprobs: 0, trials: 3 }).measure(catCase)

    expect(result.error).toBeUndefined()
    expect(result.trials).toHaveLength(3)
    expect(result.score).toBeCloseTo(0.8, 10)
    expect(result.trace.notes).toContainEqual(expect.stringMatching(TEMPERATURE_NOTE))
    // The trials' shared score call (n = 3) went out without a temperature: the steps call met the refusal first.
    expect(server.requests.filter((request) => request.body.n === 3).map(({ body }) => body.temperature)).toEqual([
      undefined,
    ])
    expect(warnings).toHaveLength(1)
  })

  test('Conversational G-Eval', async () => {
    gevalReplies()
    const { judge, warnings } = reasoningJudge()
    const metric = new ConversationalGEval({
      name: 'Empathy',
      criteria: 'Does the assistant acknowledge the problem?',
      model: judge,
    })

    const result = await metric.measure({
      turns: [
        { role: 'user', content: 'My order never arrived.' },
        { role: 'assistant', content: 'I am sorry. Let me check order 42.' },
      ],
    })

    expect(result.error).toBeUndefined()
    expect(result.score).toBeCloseTo(0.8, 10)
    expect(result.trace.notes).toContainEqual(expect.stringMatching(/^raw score: .*does not accept logprobs/))
    expect(result.trace.notes).toContainEqual(expect.stringMatching(TEMPERATURE_NOTE))
    expect(warnings).toHaveLength(2)
  })

  test('Conversation Relevancy', async () => {
    server.respondWith(() => jsonReply({ reason: 'It answers the user.', relevant: true }))
    const { judge, warnings } = reasoningJudge()

    const result = await new ConversationRelevancyMetric({ model: judge }).measure({
      turns: [
        { role: 'user', content: 'Hi!' },
        { role: 'assistant', content: 'Hello! How can I help?' },
        { role: 'user', content: 'What is your refund policy?' },
        { role: 'assistant', content: 'Refunds are possible within 30 days.' },
      ],
    })

    expect(result.error).toBeUndefined()
    expect(result.score).toBe(1)
    expect(result.usage.judgeCalls).toBe(2)
    expect(result.trace.notes).toContainEqual(expect.stringMatching(TEMPERATURE_NOTE))
    expect(warnings).toHaveLength(1)
  })

  test('Turn Contextual Relevancy', async () => {
    server.respondWith(() =>
      jsonReply({
        chunks: [{ chunk: 1, statements: [{ statement: 'Refunds', reason: 'On topic.', relevant: true }] }],
      }),
    )
    const { judge, warnings } = reasoningJudge()

    const result = await new TurnContextualRelevancyMetric({ model: judge }).measure({
      turns: [
        { role: 'user', content: 'What if these shoes do not fit?' },
        {
          role: 'assistant',
          content: 'You can return them within 30 days.',
          retrievalContext: ['All customers get a 30-day full refund.'],
        },
      ],
    })

    expect(result.error).toBeUndefined()
    expect(result.score).toBe(1)
    expect(result.trace.notes).toContainEqual(expect.stringMatching(TEMPERATURE_NOTE))
    expect(warnings).toHaveLength(1)
  })
})
