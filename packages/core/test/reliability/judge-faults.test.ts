import { type OpenAIServer, type ScriptedReply, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ConversationalDAGMetric, type MetricResult, OpenAIJudge } from '../../src/index.js'
import { PLAYFUL, playfulChatbotDag, playfulConversation } from '../support/walkthroughs.js'

// Each fault is served to its own model name, so every scenario runs through one shared server at the same time.
type Fault = (attempt: number) => ScriptedReply | undefined

const once =
  (reply: ScriptedReply): Fault =>
  (attempt) =>
    attempt === 0 ? reply : undefined
const always =
  (reply: ScriptedReply): Fault =>
  () =>
    reply

const FAULTS: Record<string, Fault> = {
  healthy: () => undefined,
  'rate-limited once (429, Retry-After)': once({
    status: 429,
    headers: { 'retry-after': '0' },
    error: { message: 'Rate limit reached', type: 'requests' },
  }),
  'server error once (500)': once({ status: 500, headers: { 'retry-after': '0' }, error: { message: 'boom' } }),
  'bad gateway once (502)': once({ status: 502, headers: { 'retry-after': '0' }, error: { message: 'bad gateway' } }),
  'unavailable once (503)': once({ status: 503, headers: { 'retry-after': '0' }, error: { message: 'overloaded' } }),
  'connection reset once': once({ resetConnection: true }),
  'malformed JSON once': once({ content: 'Sure! The verdict is yes.' }),
  'schema-breaking JSON once': once({ json: { reason: 'hmm', verdict: 'Maybe', output: 7 } }),
  'unavailable (503) every time': always({
    status: 503,
    headers: { 'retry-after': '0' },
    error: { message: 'overloaded' },
  }),
  'connection reset every time': always({ resetConnection: true }),
  'hangs past the timeout': always({ delayMs: 2_000, json: {} }),
  'malformed JSON every time': always({ content: '{"verdict": tru' }),
  'schema-breaking JSON every time': always({ json: { reason: 'hmm', verdict: 'Maybe', output: 7 } }),
  'truncated output (finish_reason length)': always({ content: '{"reason": "The assis', finishReason: 'length' }),
  refusal: always({ refusal: "I'm sorry, I can't help with that." }),
  'empty choices': always({ emptyChoices: true }),
}

/** What each fault must turn into: recovered (the normal score) or an error whose message says what happened. */
const EXPECTED: Record<string, { score: number } | { code: string; message: RegExp }> = {
  healthy: { score: 0.5 },
  'rate-limited once (429, Retry-After)': { score: 0.5 },
  'server error once (500)': { score: 0.5 },
  'bad gateway once (502)': { score: 0.5 },
  'unavailable once (503)': { score: 0.5 },
  'connection reset once': { score: 0.5 },
  'malformed JSON once': { score: 0.5 },
  'schema-breaking JSON once': { score: 0.5 },
  'unavailable (503) every time': { code: 'JUDGE_CALL_FAILED', message: /503/ },
  'connection reset every time': { code: 'JUDGE_CALL_FAILED', message: /connect|socket|closed/i },
  'hangs past the timeout': { code: 'JUDGE_CALL_FAILED', message: /timeoutMs|timed out/i },
  'malformed JSON every time': { code: 'JUDGE_OUTPUT_INVALID', message: /even after being asked again/ },
  'schema-breaking JSON every time': { code: 'JUDGE_OUTPUT_INVALID', message: /even after being asked again/ },
  'truncated output (finish_reason length)': { code: 'JUDGE_OUTPUT_INVALID', message: /cut off/ },
  refusal: { code: 'JUDGE_OUTPUT_INVALID', message: /refused/ },
  'empty choices': { code: 'JUDGE_CALL_FAILED', message: /no choices/ },
}

const SUMMARY_NODE = `ConversationalTaskNode (instructions: "Summarize the conversation and explain assistant'…")`

function healthyAnswer(prompt: string): ScriptedReply {
  if (prompt.includes(PLAYFUL.summary)) return { json: { output: 'The assistant teased but answered.' } }
  if (prompt.includes(PLAYFUL.satisfied)) return { json: { reason: 'Answered.', verdict: true } }
  return { json: { reason: 'Cheeky.', verdict: 'Neutral' } }
}

let server: OpenAIServer
const attempts = new Map<string, number>()

beforeAll(async () => {
  server = await startOpenAIServer((request) => {
    const fault = FAULTS[request.body.model] ?? (() => undefined)
    const attempt = attempts.get(request.body.model) ?? 0
    attempts.set(request.body.model, attempt + 1)
    // Route on the original prompt: a re-ask ends with our correction, not the task.
    const prompt = request.body.messages.find((message) => message.role === 'user')?.content ?? ''
    const healthy = healthyAnswer(prompt)
    // Trials ask for their samples with `n`: the server honours it, as OpenAI does.
    const samples =
      request.body.n === undefined ? {} : { samples: Array.from({ length: request.body.n }, () => healthy) }
    return fault(attempt) ?? { ...healthy, ...samples }
  })
})
afterAll(() => server.close())

describe('judge faults, all at once through the OpenAI SDK', () => {
  test('each fault is recovered or becomes a clear error on its own result; the others are unaffected', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    const names = Object.keys(FAULTS)
    const results = await Promise.all(
      names.map((model) => {
        const judge = new OpenAIJudge({
          model,
          baseURL: server.baseURL,
          apiKey: 'sk-test-faults',
          maxRetries: 2,
          timeoutMs: 300,
        })
        return new ConversationalDAGMetric({ name: model, dag: playfulChatbotDag(), model: judge }).measure(
          playfulConversation,
        )
      }),
    )
    process.off('unhandledRejection', onUnhandled)
    const outcome = (result: MetricResult) =>
      result.error ? { code: result.error.code, message: result.error.message } : { score: result.score }
    for (const [index, model] of names.entries()) {
      const result = results[index] as MetricResult
      const expected = EXPECTED[model]
      if (expected && 'score' in expected) {
        expect(outcome(result), model).toEqual({ score: expected.score })
      } else {
        expect(result.success, model).toBe(false)
        expect(result.error?.code, model).toBe(expected?.code)
        expect(result.error?.message, model).toMatch(expected?.message ?? /./)
        // Every call fails, so the walk stops at its first node, which the message and the error name.
        expect(result.error?.node, model).toBe(SUMMARY_NODE)
        expect(result.error?.message.startsWith(`${SUMMARY_NODE} failed: The judge model "${model}"`), model).toBe(true)
      }
    }
    expect(unhandled).toEqual([])
  })
})

describe('judge faults under trials, whose samples share one call with `n`', () => {
  test('a 429 on the shared sampling call is retried like any call: all 5 trials recover', async () => {
    const model = 'rate-limited once (429, Retry-After)'
    attempts.delete(model)
    const judge = new OpenAIJudge({ model, baseURL: server.baseURL, apiKey: 'sk-test-faults', maxRetries: 3 })
    const metric = new ConversationalDAGMetric({ name: model, dag: playfulChatbotDag(), model: judge })
    const result = await metric.measure(playfulConversation, { trials: 5 })
    expect(result.error).toBeUndefined()
    expect(result.trials?.map((trial) => trial.error?.message)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ])
    expect(result.score).toBe(0.5)
    // The 429 and its retry, then the walk's two other steps: each step one request for the 5 samples.
    expect(attempts.get(model)).toBe(4)
  })
})
