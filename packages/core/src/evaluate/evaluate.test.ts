import { jsonReply, lastUserMessage, type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll, beforeEach, describe, expect, expectTypeOf, it, onTestFinished, vi } from 'vitest'
import {
  MEETING,
  meetingSummary,
  meetingSummaryDag,
  PLAYFUL,
  playfulChatbotDag,
} from '../../test/support/walkthroughs.js'
import { ConfigurationError, MeasurementAbortedError } from '../errors.js'
import { OpenAIJudge } from '../judge/openai-judge.js'
import type { ConversationalMetric } from '../metric/types.js'
import { ConversationalDAGMetric, DAGMetric } from '../metrics/dag-metric.js'
import { createJudgeRuntime } from '../runtime/judge-runtime.js'
import type { ConversationalTestCase, LLMTestCase } from '../test-case/schemas.js'
import { evaluate } from './evaluate.js'

let server: OpenAIServer

beforeAll(async () => {
  server = await startOpenAIServer((request) => {
    const prompt = lastUserMessage(request)
    if (prompt.includes('MARK-broken')) return { status: 500, error: { message: 'the judge fell over' } }
    if (prompt.includes(PLAYFUL.summary)) return jsonReply({ output: prompt.includes('MARK-rude') ? 'rude' : 'kind' })
    if (prompt.includes(PLAYFUL.satisfied)) return jsonReply({ reason: 'Answered.', verdict: true })
    if (prompt.includes(PLAYFUL.behaviour)) {
      return jsonReply({ reason: 'Tone.', verdict: prompt.includes('"rude"') ? 'Rude' : 'Playful' })
    }
    if (prompt.includes(MEETING.extract)) return jsonReply({ output: 'Intro, Body, Conclusion' })
    if (prompt.includes(MEETING.present)) return jsonReply({ reason: 'All there.', verdict: true })
    return jsonReply({ reason: 'In order.', verdict: 'Yes' })
  })
})
afterAll(() => server.close())
beforeEach(() => {
  server.requests.length = 0
})

const runtime = createJudgeRuntime({ cache: 'off', concurrency: 4 })
const model = () =>
  runtime.wrap(new OpenAIJudge({ model: 'gpt-4.1', baseURL: server.baseURL, apiKey: 'sk-l', maxRetries: 0 }))
const conversation = (mark: string, name: string): ConversationalTestCase => ({
  name,
  turns: [
    { role: 'user', content: `hello ${mark}` },
    { role: 'assistant', content: 'hi!' },
  ],
})
const crasher: ConversationalMetric = {
  name: 'Crasher',
  kind: 'conversational',
  threshold: 0.5,
  measure: () => Promise.reject(new Error('metric bug')),
}

/** Collects what evaluate() writes to a stream. */
function sink(isTTY = false) {
  const chunks: string[] = []
  return { chunks, isTTY, write: (text: string) => chunks.push(text), text: () => chunks.join('') }
}

describe('evaluate', () => {
  it('measures every pair of matching kinds, keeps going past failures and sums usage', async () => {
    const playful = new ConversationalDAGMetric({ name: 'Playful', dag: playfulChatbotDag(), model: model() })
    const format = new DAGMetric({ name: 'Format', dag: meetingSummaryDag(), model: model() })
    const cases = [
      conversation('MARK-kind', 'kind'),
      conversation('MARK-rude', 'rude'),
      conversation('MARK-broken', 'broken'),
      meetingSummary,
    ]
    const stdout = sink()
    const { results, summary } = await evaluate(cases, [playful, format, crasher], { stdout })

    expect(
      results.map((entry) => [entry.index, entry.metric.name, entry.result.error ? 'error' : entry.result.score]),
    ).toEqual([
      [0, 'Playful', 1],
      [0, 'Crasher', 'error'],
      [1, 'Playful', 0],
      [1, 'Crasher', 'error'],
      [2, 'Playful', 'error'],
      [2, 'Crasher', 'error'],
      [3, 'Format', 1],
    ])
    expect(results[4]?.result.error?.message).toContain('the judge fell over')
    expect(results[1]?.result.error?.message).toBe(
      'The metric "Crasher" failed instead of returning a result: metric bug',
    )
    expect(results[1]?.result.error?.code).toBe('METRIC_FAILED')
    expect(summary).toMatchObject({
      evaluations: 7,
      metrics: 7,
      passed: 2,
      failed: 1,
      errored: 4,
      skipped: 5,
      judgeCalls: 9,
      cachedCalls: 0,
      promptTokens: 90,
      completionTokens: 45,
      costUsd: 0.00054,
    })
    expect(server.requests).toHaveLength(10)
    expect(stdout.text().replace(/127\.0\.0\.1:\d+/, '127.0.0.1:PORT')).toMatchInlineSnapshot(`
      "metric   measured  passed  failed  errored  mean score   judge calls  tokens     cost
      Playful         3       1       1        1         0.5  6 (0 cached)      90  $0.0004
      Format          1       1       0        0           1  3 (0 cached)      45  $0.0002
      Crasher         3       0       0        3           –  0 (0 cached)       0  $0.0000

      ✗ case 0 "kind" · Crasher: error: The metric "Crasher" failed instead of returning a result: metric bug
      ✗ case 1 "rude" · Playful: score 0 < threshold 0.5
      ✗ case 1 "rude" · Crasher: error: The metric "Crasher" failed instead of returning a result: metric bug
      ✗ case 2 "broken" · Playful: error: ConversationalTaskNode (instructions: "Summarize the conversation and explain assistant'…") failed: The judge model "gpt-4.1" at 127.0.0.1:PORT answered HTTP 500: the judge fell over
      ✗ case 2 "broken" · Crasher: error: The metric "Crasher" failed instead of returning a result: metric bug

      5 pairs skipped: a metric only measures test cases of its kind.

      judgetree: 7 evaluations, 2 passed, 1 failed, 4 errored, 5 skipped · 9 judge calls (0 cached) · 135 tokens · $0.0005
      "
    `)
  })

  it('says how to fix a problem of the environment once, however many measurements it failed', async () => {
    // A judge with no API key: every measurement fails the same way, before any request.
    vi.stubEnv('OPENAI_API_KEY', '')
    vi.stubEnv('OPENAI_BASE_URL', '')
    onTestFinished(() => {
      vi.unstubAllEnvs()
    })
    const keyless = new OpenAIJudge({ model: 'gpt-4.1' })
    const playful = new ConversationalDAGMetric({ name: 'Playful', dag: playfulChatbotDag(), model: keyless })
    const stdout = sink()
    const { results } = await evaluate(
      ['a', 'b', 'c'].map((name) => conversation(`MARK-${name}`, name)),
      [playful],
      { stdout },
    )
    expect(results.map((entry) => entry.result.error?.code)).toEqual(Array(3).fill('CONFIGURATION_INVALID'))
    const text = stdout.text()
    expect(text.split('Set OPENAI_API_KEY').length).toBe(2)
    expect(text).toContain('✗ case 2 "c" · Playful: error: ConversationalTaskNode')
    expect(text).toMatch(
      /has no API key\.\n\na problem of the environment failed 3 measurements; fix: Set OPENAI_API_KEY, /,
    )
  })

  it('reports progress after every measurement and draws a bar only when asked or on a terminal', async () => {
    const playful = new ConversationalDAGMetric({ name: 'Playful', dag: playfulChatbotDag(), model: model() })
    const cases = Array.from({ length: 5 }, (_, i) => conversation(`MARK-${i}`, `c${i}`))
    const seen: number[] = []
    const quiet = sink()
    await evaluate(cases, [playful], {
      summary: false,
      stdout: quiet,
      stderr: quiet,
      onProgress: (progress) => seen.push(progress.done),
    })
    expect(seen).toEqual([1, 2, 3, 4, 5])
    expect(quiet.chunks).toEqual([])

    const terminal = sink(true)
    await evaluate(cases, [playful], { summary: false, stderr: terminal, progress: true })
    expect(terminal.text()).toContain('5/5 · 5 passed, 0 failed, 0 errored · 15 judge calls (0 cached)')
    expect(terminal.chunks.at(-1)).toBe('\r\x1b[2K')
  })

  it('retries 429s after their Retry-After and says once, in the summary line, what the rate limits did', async () => {
    let refused = 0
    const limitedServer = await startOpenAIServer((request) => {
      if (refused < 3) {
        refused += 1
        return { status: 429, error: { message: 'Rate limit reached' }, headers: { 'retry-after-ms': '40' } }
      }
      const prompt = lastUserMessage(request)
      if (prompt.includes(PLAYFUL.summary)) return jsonReply({ output: 'kind' })
      if (prompt.includes(PLAYFUL.satisfied)) return jsonReply({ reason: 'Answered.', verdict: true })
      return jsonReply({ reason: 'Tone.', verdict: 'Playful' })
    })
    try {
      const own = createJudgeRuntime({ cache: 'off', concurrency: 4 })
      const judge = own.wrap(new OpenAIJudge({ baseURL: limitedServer.baseURL, apiKey: 'sk-l', maxRetries: 3 }))
      const playful = new ConversationalDAGMetric({ name: 'Playful', dag: playfulChatbotDag(), model: judge })
      const out = sink()
      const { summary } = await evaluate(
        Array.from({ length: 6 }, (_, i) => conversation(`${i}`, `${i}`)),
        [playful],
        { stdout: out },
      )
      expect(summary.errored).toBe(0)
      expect(summary.rateLimits).toEqual({ rateLimited: 3, concurrency: own.stats().currentConcurrency })
      const lines = out.text().split('\n')
      expect(lines.filter((line) => line.includes('rate-limited'))).toEqual([
        expect.stringMatching(/ · rate-limited 3 times; concurrency settled at [1-4]$/),
      ])
    } finally {
      await limitedServer.close()
    }
  })

  it('keeps at most `concurrency` measurements in flight', async () => {
    let active = 0
    let peak = 0
    const counting: ConversationalMetric = {
      name: 'Counting',
      kind: 'conversational',
      threshold: 0,
      async measure(testCase) {
        active += 1
        peak = Math.max(peak, active)
        await new Promise((resolve) => setTimeout(resolve, 5))
        active -= 1
        const result = await crasher.measure(testCase).catch(() => undefined)
        return result as never
      },
    }
    const { summary } = await evaluate(
      Array.from({ length: 12 }, (_, i) => conversation(`${i}`, `${i}`)),
      [counting],
      { concurrency: 3, summary: false },
    )
    expect(peak).toBe(3)
    expect(summary.errored).toBe(12)
  })

  it('stops starting measurements when aborted and rejects with MeasurementAbortedError', async () => {
    const controller = new AbortController()
    let started = 0
    const slow: ConversationalMetric = {
      ...crasher,
      measure: async () => {
        started += 1
        if (started === 2) controller.abort()
        throw new Error('unused')
      },
    }
    const run = evaluate(
      Array.from({ length: 10 }, (_, i) => conversation(`${i}`, `${i}`)),
      [slow],
      { concurrency: 1, signal: controller.signal, summary: false },
    )
    await expect(run).rejects.toBeInstanceOf(MeasurementAbortedError)
    expect(started).toBe(2)
  })

  it("adds one listener to the caller's signal however many measurements are in flight", async () => {
    const warnings: Error[] = []
    const onWarning = (warning: Error) => warnings.push(warning)
    process.on('warning', onWarning)
    const playful = new ConversationalDAGMetric({ name: 'Playful', dag: playfulChatbotDag(), model: model() })
    const cases = Array.from({ length: 20 }, (_, i) => conversation(`MARK-${i}`, `c${i}`))
    const { summary } = await evaluate(cases, [playful], { signal: new AbortController().signal, summary: false })
    await new Promise((resolve) => setImmediate(resolve))
    process.off('warning', onWarning)
    expect(summary.passed).toBe(20)
    expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning')
  })

  it('types each result with the test cases given', () => {
    const typeOnly = (_build: () => unknown) => {}
    typeOnly(async () => {
      const playful = new ConversationalDAGMetric({ name: 'Playful', dag: playfulChatbotDag() })
      const format = new DAGMetric({ name: 'Format', dag: meetingSummaryDag() })
      const mixed = await evaluate([meetingSummary, conversation('a', 'b')], [playful, format])
      expectTypeOf(mixed.results[0]?.testCase).toEqualTypeOf<LLMTestCase | ConversationalTestCase | undefined>()
      const only = await evaluate([conversation('a', 'b')], [playful])
      expectTypeOf(only.results[0]?.testCase).toEqualTypeOf<ConversationalTestCase | undefined>()
      // @ts-expect-error a test case must be an object
      await evaluate(['text'], [playful])
    })
  })

  it('lists every problem with its arguments', async () => {
    await expect(evaluate('nope' as never, [], { concurrency: 0 })).rejects.toThrow(ConfigurationError)
    await expect(evaluate([null as never], [{} as never], { concurrency: 0 })).rejects.toThrow(
      [
        'Invalid evaluate() arguments:',
        '  - testCases[0] is not an object.',
        '  - metrics[0] is not a metric (an object with a measure() method).',
        '  - Expected `concurrency` to be a whole number from 1 and up, got `0` (number).',
      ].join('\n'),
    )
  })

  it('names the option a mistyped key meant, beside every other wrong option', async () => {
    await expect(evaluate([], [{} as never], { outptFile: 'x.json', progress: 'yes' } as never)).rejects.toThrow(
      [
        '  - metrics[0] is not a metric (an object with a measure() method).',
        "  - Expected `progress` to be true or false, got 'yes' (string).",
        '  - unknown option `outptFile`; did you mean `outputFile`?',
      ].join('\n'),
    )
  })
})
