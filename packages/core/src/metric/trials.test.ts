import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { jsonReply, type RecordedRequest, type ScriptedReply, schemaOf, useOpenAIServer } from '@judgetree/test-support'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { serverJudge } from '../../test/support/server-judge.js'
import { PLAYFUL, playfulChatbotDag, playfulConversation } from '../../test/support/walkthroughs.js'
import { ConfigurationError } from '../errors.js'
import { OpenAIJudge } from '../judge/openai-judge.js'
import type { JudgeModel } from '../judge/types.js'
import { ConversationRelevancyMetric } from '../metrics/conversation-relevancy.js'
import { ConversationalDAGMetric } from '../metrics/dag-metric.js'
import { GEval, type GEvalOptions } from '../metrics/geval.js'
import { createJudgeRuntime } from '../runtime/judge-runtime.js'
import { LLMTestCaseParams } from '../test-case/params.js'
import type { LLMTestCase } from '../test-case/schemas.js'
import { formatScore, renderSummaryLine } from '../trace/render.js'
import { BaseMetric, type MetricContext } from './base-metric.js'
import { measureTrials, withThreshold } from './trial-result.js'
import type { Metric } from './types.js'

const STEPS = ['Compare the facts in Actual Output with Expected Output.', 'Penalise omitted details.']
const testCase = { input: 'Who ran up the tree?', actualOutput: 'The cat.', expectedOutput: 'The cat.' }
/** The flaky verdict: the judge scores the same answer 2, 9, 4, 8, 9 over five samples (0.2 … 0.9). */
const FLAKY = [2, 9, 4, 8, 9]

/** Answers steps once; answers scores from FLAKY, one per sample, whether asked with `n` or one call at a time. */
function flakyServer(): (request: RecordedRequest) => ScriptedReply {
  let next = 0
  const score = () => {
    const value = FLAKY[next % FLAKY.length] as number
    next += 1
    return { json: { reason: `scored ${value}`, score: value } }
  }
  return (request) => {
    if (schemaOf(request) === 'geval_steps') return jsonReply({ steps: STEPS })
    const samples = Array.from({ length: request.body.n ?? 1 }, score)
    return { samples, usage: { promptTokens: 100, completionTokens: 10 } }
  }
}

const server = useOpenAIServer()
beforeEach(() => server.respondWith(flakyServer()))

/** The OpenAI judge without `generateSamples`: like a user's own judge, it gets one call per trial. */
function oneSampleJudge(judge: OpenAIJudge): JudgeModel {
  return { name: judge.name, cacheIdentity: judge.cacheIdentity, generate: (request) => judge.generate(request) }
}

function geval(options: Partial<GEvalOptions> = {}): GEval {
  return new GEval({
    name: 'Correctness',
    criteria: 'Is the actual output factually correct given the expected output?',
    evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT, LLMTestCaseParams.EXPECTED_OUTPUT],
    model: serverJudge(server.baseURL),
    trials: 5,
    ...options,
  } as GEvalOptions)
}

describe('trials of a G-Eval score against a flaky judge', () => {
  it.each([
    ['mean', 0.64, true],
    ['median', 0.8, true],
    ['min', 0.2, false],
    // The lower median of 0.2 0.4 0.8 0.9 0.9; passes because 3 of 5 trials pass.
    ['majority', 0.8, true],
  ] as const)('aggregate %s gives %s (success %s) with passRate 0.6', async (aggregate, score, success) => {
    const result = await geval({ aggregate }).measure(testCase)

    expect(result.error).toBeUndefined()
    expect(result.trials?.map((trial) => trial.score)).toEqual([0.2, 0.9, 0.4, 0.8, 0.9])
    expect(result.trials?.map((trial) => trial.success)).toEqual([false, true, false, true, true])
    expect(result.score).toBeCloseTo(score, 10)
    expect(result.success).toBe(success)
    expect(result.passRate).toBe(0.6)
    expect(result.aggregate).toBe(aggregate)
    expect(result.spread?.min).toBe(0.2)
    expect(result.spread?.max).toBe(0.9)
    expect(result.spread?.stdev).toBeCloseTo(Math.sqrt(0.0824), 10)
  })

  it('asks once for all five trials with n, at temperature 1, and generates the steps once', async () => {
    const result = await geval().measure(testCase)

    expect(server.requests.map(schemaOf)).toEqual(['geval_steps', 'geval_score'])
    expect(server.requests[0]?.body.n).toBeUndefined()
    expect(server.requests[1]?.body).toMatchObject({ n: 5, temperature: 1 })
    // The prompt is paid once: 10 tokens for the steps call, 100 for the five scores (10 completion tokens each).
    expect(result.usage).toEqual({
      judgeCalls: 2,
      cachedCalls: 0,
      promptTokens: 110,
      completionTokens: 55,
      costUsd: expect.any(Number),
    })
    expect(result.trials?.map((trial) => trial.usage.promptTokens)).toEqual([110, 0, 0, 0, 0])
    expect(result.trials?.map((trial) => trial.usage.judgeCalls)).toEqual([2, 0, 0, 0, 0])
  })

  it('asks a judge without generateSamples once per trial, each at temperature 1', async () => {
    const result = await geval({ model: oneSampleJudge(serverJudge(server.baseURL)), aggregate: 'median' }).measure(
      testCase,
    )

    expect(server.requests.map(schemaOf)).toEqual(['geval_steps', ...Array(5).fill('geval_score')])
    expect(server.requests.slice(1).map((request) => [request.body.n, request.body.temperature])).toEqual(
      Array(5).fill([undefined, 1]),
    )
    expect([...(result.trials?.map((trial) => trial.score) ?? [])].sort()).toEqual([0.2, 0.4, 0.8, 0.9, 0.9])
    expect(result.score).toBe(0.8)
    expect(result.usage.judgeCalls).toBe(6)
    expect(result.usage.promptTokens).toBe(510)
  })

  it('keeps a temperature the user gave the judge', async () => {
    const judge = new OpenAIJudge({ baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0, temperature: 0.3 })
    await geval({ model: judge }).measure(testCase)

    expect(server.requests[1]?.body).toMatchObject({ n: 5, temperature: 0.3 })
  })

  it('asks again, alone, for a sample the server did not return (a server that ignores n)', async () => {
    server.respondWith((request) =>
      schemaOf(request) === 'geval_steps'
        ? jsonReply({ steps: STEPS })
        : jsonReply({ reason: 'one sample only', score: 6 }),
    )
    const result = await geval().measure(testCase)

    expect(server.requests.map((request) => request.body.n)).toEqual([
      undefined,
      5,
      undefined,
      undefined,
      undefined,
      undefined,
    ])
    expect(result.trials?.map((trial) => trial.score)).toEqual([0.6, 0.6, 0.6, 0.6, 0.6])
    expect(result.usage.judgeCalls).toBe(6)
  })

  it('re-asks 19 samples a server did not return without a MaxListenersExceededWarning', async () => {
    server.respondWith((request) =>
      schemaOf(request) === 'geval_steps'
        ? jsonReply({ steps: STEPS })
        : jsonReply({ reason: 'one sample only', score: 6 }, { delayMs: 20 }),
    )
    const warnings: Error[] = []
    const onWarning = (warning: Error) => warnings.push(warning)
    process.on('warning', onWarning)
    try {
      const result = await geval({ trials: 20 }).measure(testCase)
      // A warning is emitted on the next tick after the listener that crossed the limit.
      await new Promise((resolve) => setImmediate(resolve))
      expect(result.error).toBeUndefined()
      expect(result.passRate).toBe(1)
      expect(server.requests).toHaveLength(21)
    } finally {
      process.off('warning', onWarning)
    }
    expect(warnings.map((warning) => `${warning.name}: ${warning.message}`)).toEqual([])
  })

  it('shows the trials in the summary line, the reason and the trace', async () => {
    const result = await geval({ aggregate: 'mean' }).measure(testCase)

    expect(result.reason).toBe(
      'mean of 5 trials: 0.64 (3/5 trials passed, scores 0.2–0.9). Trial 4 (score 0.8): The judge scored 8 on 0–10, which is 0.8. scored 8',
    )
    expect(result.verboseLogs).toMatchInlineSnapshot(`
      "[1] Step "Evaluation steps": Is the actual output factually correct given the expected output? · 1 judge call
           steps: 1. Compare the facts in Actual Output with Expected Output.
                  2. Penalise omitted details.
      [2] Step "Score": an integer from 0 to 10 → 9 ×2, 2 ×1, 4 ×1, 8 ×1 · 1 judge call
           reason: scored 2
      note: evaluation steps: generated from the criteria once for this metric and shared by its measurements (1 judge call, billed to the first to ask, cached for the others)
      note: raw score: the judge returned no logprobs
      note: 5 trials, combined as the mean of the trials: 3/5 trials passed, scores 0.2–0.9
      trial 1: FAIL score 0.2
      trial 2: PASS score 0.9
      trial 3: FAIL score 0.4
      trial 4: PASS score 0.8
      trial 5: PASS score 0.9"
    `)
  })

  it('an abort cancels the shared request and fails the measurement, with nothing left waiting', async () => {
    const flaky = flakyServer()
    server.respondWith((request) => (schemaOf(request) === 'geval_steps' ? flaky(request) : { delayMs: 5_000 }))
    const controller = new AbortController()
    const measuring = geval().measure(testCase, { signal: controller.signal })
    await vi.waitFor(() => expect(server.requests.map(schemaOf)).toContain('geval_score'))
    controller.abort()
    const result = await measuring

    expect(result.error?.code).toBe('MEASUREMENT_ABORTED')
    expect(result.trials?.every((trial) => trial.error?.code === 'MEASUREMENT_ABORTED')).toBe(true)
  })

  it('folds trials that agree into one line, and names their one score', async () => {
    server.respondWith((request) =>
      schemaOf(request) === 'geval_steps'
        ? jsonReply({ steps: STEPS })
        : { samples: Array.from({ length: request.body.n ?? 1 }, () => ({ json: { reason: 'scored 2', score: 2 } })) },
    )
    const result = await geval().measure(testCase)

    expect(result.reason).toMatch(/^mean of 5 trials: 0\.2 \(0\/5 trials passed, score 0\.2\)\./)
    const logs = result.verboseLogs.split('\n')
    expect(logs.filter((line) => line.startsWith('trial'))).toEqual(['trials 1–5: FAIL score 0.2'])
  })

  it('measures trials: 1 exactly as without trials', async () => {
    const result = await geval({ trials: 1 }).measure(testCase)

    expect(result.trials).toBeUndefined()
    expect(result.passRate).toBeUndefined()
    expect(server.requests[1]?.body.n).toBeUndefined()
    expect(server.requests[1]?.body.temperature).toBe(0)
  })

  it('takes trials and aggregate from measure() for one measurement', async () => {
    const result = await geval({ trials: undefined }).measure(testCase, { trials: 3, aggregate: 'min' })

    expect(result.trials).toHaveLength(3)
    expect(result.score).toBe(0.2)
    expect(server.requests[1]?.body.n).toBe(3)
  })

  it('re-judges every trial against another threshold', async () => {
    const result = await geval({ aggregate: 'majority' }).measure(testCase)
    const strict = withThreshold(result, 0.85)

    expect(strict.trials?.map((trial) => trial.success)).toEqual([false, true, false, false, true])
    expect(strict.passRate).toBe(0.4)
    expect(strict.success).toBe(false)
    expect(strict.score).toBe(0.8)
  })
})

describe('trials whose aggregate lands on the threshold', () => {
  /** The judge scores the samples of one request in turn from `scores` (0..10). */
  function scoring(scores: readonly number[]): void {
    server.respondWith((request) => {
      if (schemaOf(request) === 'geval_steps') return jsonReply({ steps: STEPS })
      const samples = scores.slice(0, request.body.n ?? 1).map((score) => ({ json: { reason: `${score}`, score } }))
      return { samples }
    })
  }

  // Tenths do not add up exactly in binary (0.7 + 0.6 = 1.2999999999999998): the first five are 0.65, 0.65, 0.65,
  // 0.1 and 0.7 on paper, which float sums put a hair below the threshold.
  it.each([
    ['mean', [7, 6], 0.65, 0.65, true],
    ['median', [6, 7], 0.65, 0.65, true],
    ['mean', [7, 6, 6, 7], 0.65, 0.65, true],
    ['mean', [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], 0.1, 0.1, true],
    ['mean', [7, 7, 7], 0.7, 0.7, true],
    ['mean', [1, 2], 0.15, 0.15, true],
    ['median', [1, 2], 0.15, 0.15, true],
    ['mean', [9, 8], 0.85, 0.85, true],
    ['mean', [7, 6], 0.66, 0.65, false],
    ['mean', [8, 9, 9], 0.87, 0.866666667, false],
  ] as const)('%s of %j against %s is %s: %s', async (aggregate, scores, threshold, score, success) => {
    scoring(scores)
    const result = await geval({ trials: scores.length, aggregate, threshold }).measure(testCase)

    expect(result.error).toBeUndefined()
    expect(result.score).toBe(score)
    expect(result.success).toBe(success)
    // The number printed is the number compared.
    expect(renderSummaryLine(result)).toContain(
      `${success ? 'PASS' : 'FAIL'} Correctness: score ${formatScore(score)} (threshold ${threshold})`,
    )
  })
})

describe('trials and the judge cache', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'judgetree-trials-'))
  })
  afterEach(() => rm(dir, { recursive: true, force: true }))

  const cached = (cache: 'read-write' | 'replay', judge: JudgeModel = serverJudge(server.baseURL)) =>
    geval({ model: createJudgeRuntime({ cache, cacheDir: dir }).wrap(judge) })

  it('stores each trial apart; replay reproduces every trial with no request, and so does a warm re-run', async () => {
    const first = await cached('read-write').measure(testCase)
    expect(server.requests).toHaveLength(2)
    // One entry for the steps, one per trial.
    const files = (await readdir(dir, { recursive: true })).filter((file) => file.endsWith('.json'))
    expect(files).toHaveLength(6)

    server.requests.length = 0
    const replayed = await cached('replay').measure(testCase)
    expect(server.requests).toHaveLength(0)
    expect(replayed.trials?.map((trial) => trial.score)).toEqual(first.trials?.map((trial) => trial.score))
    expect(replayed.score).toBe(first.score)
    // The steps call and the one request (n: 5) that answered the five trials, both from the cache.
    expect(replayed.usage).toMatchObject({ judgeCalls: 2, cachedCalls: 2, promptTokens: 0 })

    const warm = await cached('read-write').measure(testCase)
    expect(server.requests).toHaveLength(0)
    expect(warm.trials?.map((trial) => trial.score)).toEqual(first.trials?.map((trial) => trial.score))
  })

  it('replays a run made one call per trial, too', async () => {
    const judge = oneSampleJudge(serverJudge(server.baseURL))
    const first = await cached('read-write', judge).measure(testCase)
    server.requests.length = 0
    const replayed = await cached('replay', judge).measure(testCase)

    expect(server.requests).toHaveLength(0)
    expect(replayed.trials?.map((trial) => trial.score)).toEqual(first.trials?.map((trial) => trial.score))
  })

  it('in replay, a missing trial is a cache miss naming the call, and nothing is asked', async () => {
    await cached('read-write').measure(testCase)
    server.requests.length = 0
    const result = await geval({
      trials: 6,
      model: createJudgeRuntime({ cache: 'replay', cacheDir: dir }).wrap(serverJudge(server.baseURL)),
    }).measure(testCase)

    expect(server.requests).toHaveLength(0)
    expect(result.error?.code).toBe('CACHE_MISS')
    expect(result.error?.message).toContain('has no answer for this geval-score@')
    expect(result.error?.message).toContain('call (trial 6 of a trials run, schema geval_score')
    expect(result.success).toBe(false)
  })
})

describe('trials of a DAG', () => {
  it('shares the calls trials have in common and draws the tree once with counts per path', async () => {
    const satisfied = [true, true, true, false, false]
    server.respondWith((request) => {
      const prompt = request.body.messages.find((message) => message.role === 'user')?.content ?? ''
      const n = request.body.n ?? 1
      if (prompt.includes(PLAYFUL.summary)) {
        return { samples: Array.from({ length: n }, () => ({ json: { output: 'The assistant teased the user.' } })) }
      }
      if (prompt.includes(PLAYFUL.satisfied)) {
        return { samples: satisfied.slice(0, n).map((verdict) => ({ json: { reason: `said ${verdict}`, verdict } })) }
      }
      return { samples: Array.from({ length: n }, () => ({ json: { reason: 'Teasing.', verdict: 'Playful' } })) }
    })
    const metric = new ConversationalDAGMetric({
      name: 'Playful',
      dag: playfulChatbotDag(),
      model: serverJudge(server.baseURL),
      trials: 5,
      aggregate: 'majority',
    })
    const result = await metric.measure(playfulConversation)

    expect(result.error).toBeUndefined()
    // The summary is one request for all five; the satisfied judgement one more; the three "true" trials share one.
    expect(server.requests.map((request) => request.body.n)).toEqual([5, 5, 3])
    expect(result.trials?.map((trial) => trial.score)).toEqual([1, 1, 1, 0, 0])
    expect(result.passRate).toBe(0.6)
    expect(result.success).toBe(true)
    expect(result.verboseLogs).toMatchInlineSnapshot(`
      "[1] Task: Summarize the conversation and explain assistant's behaviour overall. · 1 judge call
      │    Summary: The assistant teased the user.
      └─ [2] Judgement: Do the assistant's replies satisfy user's questions? → true ×3, false ×2 · 1 judge call
         │    reason: said true
         ├─ ● false → 0  ◀ score 0  (chosen in 2/5 trials)
         └─ ● true  (chosen in 3/5 trials)
            └─ [3] Judgement: How was the assistant's behaviour towards user? → Playful · 1 judge call  (ran in 3/5 trials)
               │    input: what [2] was shown (Summary)
               │    reason: Teasing.
               ├─ ○ Rude → 0
               ├─ ○ Neutral → 5
               └─ ● Playful → 10  ◀ score 1  (chosen in 3/5 trials)
      note: 5 trials, combined as the majority of trials (score: the lower median): 3/5 trials passed, scores 0–1
      trial 1: PASS score 1
      trial 2: PASS score 1
      trial 3: PASS score 1
      trial 4: FAIL score 0
      trial 5: FAIL score 0"
    `)
  })
})

describe('trials of conversation relevancy', () => {
  const conversation = {
    turns: [
      { role: 'user' as const, content: 'Can I return sale items?' },
      { role: 'assistant' as const, content: 'Yes, within 14 days.' },
      { role: 'user' as const, content: 'And get a refund?' },
      { role: 'assistant' as const, content: 'Our sneakers are on sale.' },
    ],
  }

  it.each([true, false])('asks once per reply for all trials (asyncMode %s)', async (asyncMode) => {
    // Samples 1–3 find every reply relevant; samples 4 and 5 find them irrelevant.
    server.respondWith((request) => ({
      samples: Array.from({ length: request.body.n ?? 1 }, (_, index) => ({
        json: { reason: 'judged', relevant: index < 3 },
      })),
    }))
    const metric = new ConversationRelevancyMetric({
      model: serverJudge(server.baseURL),
      trials: 5,
      aggregate: 'majority',
      asyncMode,
    })
    const result = await metric.measure(conversation)

    expect(result.error).toBeUndefined()
    expect(server.requests.map((request) => request.body.n)).toEqual([5, 5])
    expect(result.trials?.map((trial) => trial.score)).toEqual([1, 1, 1, 0, 0])
    expect(result.passRate).toBe(0.6)
    expect(result.success).toBe(true)
    expect(result.usage.judgeCalls).toBe(2)
  })
})

describe('trials of a BaseMetric', () => {
  class Promises extends BaseMetric<LLMTestCase> {
    readonly kind = 'single-turn'
    protected async score(_testCase: LLMTestCase, ctx: MetricContext) {
      const answer = await ctx.judge({
        label: 'Promises',
        messages: [{ role: 'user', content: 'Does it promise anything?' }],
        schema: z.object({ reason: z.string(), score: z.number() }),
        schemaName: 'geval_score',
        promptVersion: 'promises@1',
      })
      return answer.score / 10
    }
  }

  it('runs its trials with n like the built-ins', async () => {
    const result = await new Promises({
      name: 'Promises',
      model: serverJudge(server.baseURL),
      trials: 5,
      aggregate: 'min',
    }).measure(testCase)

    expect(server.requests.map((request) => request.body.n)).toEqual([5])
    expect(result.trials?.map((trial) => trial.score)).toEqual([0.2, 0.9, 0.4, 0.8, 0.9])
    expect(result.score).toBe(0.2)
    expect(result.success).toBe(false)
  })
})

describe('ctx.once in the trials of a BaseMetric', () => {
  const rubricSchema = z.object({ steps: z.array(z.string()) })
  class RubricFirst extends BaseMetric<LLMTestCase> {
    readonly kind = 'single-turn'
    protected async score(_testCase: LLMTestCase, ctx: MetricContext) {
      // Asked once for the whole measurement, not sampled per trial; every trial gets the same steps.
      const rubric = await ctx.once('rubric', () =>
        ctx.judge({
          label: 'Rubric',
          messages: [{ role: 'user', content: 'Which steps judge a promise?' }],
          schema: rubricSchema,
          schemaName: 'geval_steps',
          promptVersion: 'rubric@1',
        }),
      )
      const answer = await ctx.judge({
        label: 'Promises',
        messages: [{ role: 'user', content: `Following ${rubric.steps.join('; ')}: does it promise anything?` }],
        schema: z.object({ reason: z.string(), score: z.number() }),
        schemaName: 'geval_score',
        promptVersion: 'promises@1',
      })
      return answer.score / 10
    }
  }

  it('asks a call shared by the trials once, outside them, and bills it to the trial that made it', async () => {
    const result = await new RubricFirst({
      name: 'Rubric first',
      model: serverJudge(server.baseURL),
      trials: 5,
    }).measure(testCase)

    expect(result.error).toBeUndefined()
    // One steps request without n (outside the trials), then one score request with n = 5 for all trials.
    expect(server.requests.map((request) => [schemaOf(request), request.body.n])).toEqual([
      ['geval_steps', undefined],
      ['geval_score', 5],
    ])
    expect(result.trials?.map((trial) => trial.score)).toEqual([0.2, 0.9, 0.4, 0.8, 0.9])
    // The trial that asked records the shared call; the others' score samples came in its request (n).
    expect(result.trials?.map((trial) => trial.usage.judgeCalls)).toEqual([2, 0, 0, 0, 0])
    expect(result.trials?.map((trial) => trial.trace.nodes.map((node) => node.label))).toEqual([
      ['Rubric', 'Promises'],
      ...Array(4).fill(['Promises']),
    ])
    expect(result.usage.judgeCalls).toBe(2)
  })
})

describe("measureTrials on a metric that is not judgetree's", () => {
  it('measures once per trial, and calls through a runtime are still shared with n', async () => {
    const judge = createJudgeRuntime({ cache: 'off' }).wrap(serverJudge(server.baseURL))
    let measured = 0
    const plain: Metric<LLMTestCase> = {
      name: 'Plain',
      kind: 'single-turn',
      threshold: 0.5,
      async measure() {
        measured += 1
        const response = await judge.generate({
          messages: [{ role: 'user', content: 'Score it.' }],
          schema: z.object({ reason: z.string(), score: z.number() }),
          schemaName: 'geval_score',
          promptVersion: 'plain@1',
        })
        const score = (response.value as { score: number }).score / 10
        return {
          name: 'Plain',
          score,
          threshold: 0.5,
          success: score >= 0.5,
          reason: undefined,
          strictMode: false,
          error: undefined,
          trace: { metric: 'Plain', nodes: [], roots: [], notes: [] },
          verboseLogs: '',
          usage: { judgeCalls: 1, cachedCalls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0 },
          durationMs: 0,
          judgeModel: judge.name,
        }
      },
    }
    const result = await measureTrials(plain, testCase, { trials: 5, aggregate: 'median' })

    expect(measured).toBe(5)
    expect(server.requests.map((request) => request.body.n)).toEqual([5])
    expect(result.trials?.map((trial) => trial.score)).toEqual([0.2, 0.9, 0.4, 0.8, 0.9])
    expect(result.score).toBe(0.8)
    expect(result.passRate).toBe(0.6)
  })
})

describe('bad trials options', () => {
  it.each([
    [
      { trials: 0 },
      'Expected `trials` to be a whole number from 1 to 100 (how many times to measure, e.g. 5), got `0` (number).',
    ],
    [
      { trials: 1.5 },
      'Expected `trials` to be a whole number from 1 to 100 (how many times to measure, e.g. 5), got `1.5` (number).',
    ],
    [
      { trials: 1e9 },
      'Expected `trials` to be at most 100 (each trial may cost a judge call per step, and the aggregate of a few dozen trials is already steady), got `1000000000` (number).',
    ],
    [
      { aggregate: 'avg' },
      "Expected `aggregate` to be one of 'mean', 'median', 'min', 'majority' (how the trials' scores combine), got 'avg' (string).",
    ],
  ])('%o is refused with a message naming the option and its valid values', (options, message) => {
    expect(() => geval(options as Partial<GEvalOptions>)).toThrow(ConfigurationError)
    expect(() => geval(options as Partial<GEvalOptions>)).toThrow(message)
  })

  it('refuses 101 trials given to measure(), and to measureTrials() for a metric of any kind', async () => {
    const result = await geval().measure(testCase, { trials: 101 })
    expect(result.error?.message).toContain('Expected `trials` to be at most 100')
    const plain: Metric<LLMTestCase> = { name: 'Plain', kind: 'single-turn', threshold: 0.5, measure: vi.fn() }
    await expect(measureTrials(plain, testCase, { trials: 101 })).rejects.toThrow(
      'Invalid options for measureTrials(metric "Plain", testCase, options):\n  - Expected `trials` to be at most 100',
    )
    expect(plain.measure).not.toHaveBeenCalled()
    expect(server.requests).toEqual([])
  })

  it('names the option given to measure()', async () => {
    const result = await geval().measure(testCase, { trials: 0 })
    expect(result.error?.message).toContain('measure(testCase, options)')
    expect(result.error?.message).toContain('Expected `trials` to be a whole number from 1 to 100')
  })

  it('lists every wrong option given to measure() at once, a mistyped one with the name it meant', async () => {
    const result = await geval().measure(testCase, { trials: 0, aggregate: 'avg', trails: 3 } as never)
    expect(result.error?.message).toBe(
      [
        'Invalid options for GEval "Correctness".measure(testCase, options):',
        '  - Expected `trials` to be a whole number from 1 to 100 (how many times to measure, e.g. 5), got `0` (number).',
        "  - Expected `aggregate` to be one of 'mean', 'median', 'min', 'majority' (how the trials' scores combine), got 'avg' (string).",
        '  - unknown option `trails`; did you mean `trials`?',
      ].join('\n'),
    )
    expect(server.requests).toEqual([])
  })
})
