import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, expectTypeOf, test } from 'vitest'
import { z } from 'zod'
import {
  BaseMetric,
  type BaseMetricOptions,
  BinaryJudgementNode,
  ConfigurationError,
  type ConversationalTestCase,
  DAGMetric,
  DeepAcyclicGraph,
  evaluate,
  JudgeCallError,
  type JudgeModel,
  type JudgeRequest,
  type LLMTestCase,
  LLMTestCaseParams,
  type MetricContext,
  VerdictNode,
} from '../index.js'
import { scriptedJudge } from '../judge/scripted-judge.js'
import { createJudgeRuntime } from '../runtime/judge-runtime.js'

// A user's metric, written against the public API only: one judge call and one check in code.
const promisesSchema = z.object({ promises: z.array(z.string()), reason: z.string() })

interface NoPromisesOptions extends BaseMetricOptions {
  forbidden?: readonly string[]
}

class NoPromisesMetric extends BaseMetric<LLMTestCase> {
  readonly kind = 'single-turn'
  readonly forbidden: readonly string[]

  constructor({ forbidden = ['refund'], ...options }: NoPromisesOptions = {}) {
    super(options, { name: 'No Promises' })
    this.forbidden = forbidden
  }

  protected async score(testCase: LLMTestCase, ctx: MetricContext) {
    const { promises } = await ctx.judge({
      label: 'Promises made',
      messages: [{ role: 'user', content: `List every promise in this reply:\n${testCase.actualOutput}` }],
      schema: promisesSchema,
      schemaName: 'promises',
      promptVersion: 'no-promises@1',
    })
    const broken = promises.filter((promise) => this.forbidden.some((word) => promise.includes(word)))
    ctx.step({ label: 'Policy', text: `no promise of: ${this.forbidden.join(', ')}`, verdict: broken.length === 0 })
    return {
      score: broken.length === 0 ? 1 : 0,
      reason: broken.length === 0 ? 'No forbidden promise.' : `Promised: ${broken.join('; ')}.`,
    }
  }
}

const promising = scriptedJudge({
  rules: [
    {
      match: 'List every promise',
      answer: (request: JudgeRequest<unknown>) => {
        const text = request.messages.at(-1)?.content ?? ''
        return { promises: text.includes('refund') ? ['a full refund'] : [], reason: 'Read the reply.' }
      },
    },
  ],
})
const polite = { input: 'My parcel is late.', actualOutput: 'Sorry, it ships tomorrow.' }
const rash = { input: 'My parcel is late.', actualOutput: 'You will get a full refund.' }

/** A cacheable judge that counts its calls and how many run at once. */
function countingJudge(delayMs = 0) {
  const counts = { calls: 0, inFlight: 0, maxInFlight: 0 }
  const judge: JudgeModel = {
    name: 'counting',
    async generate<T>(request: JudgeRequest<T>) {
      counts.calls += 1
      counts.inFlight += 1
      counts.maxInFlight = Math.max(counts.maxInFlight, counts.inFlight)
      await new Promise((resolve) => setTimeout(resolve, delayMs))
      counts.inFlight -= 1
      const value = request.schema.parse({ promises: [], reason: `call ${counts.calls}` })
      return { value, usage: { promptTokens: 10, completionTokens: 5, costUsd: 0.001 }, cached: false }
    },
  }
  return { judge, counts }
}

const cacheDir = mkdtempSync(join(tmpdir(), 'judgetree-base-metric-'))
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }))

describe('BaseMetric', () => {
  test('a user metric gets the common options, the result, the usage and a trace of its judge call and steps', async () => {
    const metric = new NoPromisesMetric({ model: promising, threshold: 0.7 })
    expect(metric).toMatchObject({ name: 'No Promises', kind: 'single-turn', threshold: 0.7 })

    const pass = await metric.measure(polite)
    expect(pass).toMatchObject({ score: 1, success: true, reason: 'No forbidden promise.', error: undefined })
    expect(pass.usage).toMatchObject({ judgeCalls: 1, cachedCalls: 0 })
    expect(Object.isFrozen(pass)).toBe(true)
    expect(pass.verboseLogs).toMatchInlineSnapshot(`
      "[1] Step "Promises made": promises · 1 judge call
           answer: {"promises":[],"reason":"Read the reply."}
      [2] Step "Policy": no promise of: refund → true"
    `)

    const fail = await metric.measure(rash)
    expect(fail).toMatchObject({ score: 0, success: false, reason: 'Promised: a full refund.', error: undefined })
  })

  test('strictMode, includeReason and name work as on the built-in metrics', async () => {
    const metric = new NoPromisesMetric({ model: promising, strictMode: true, includeReason: false, name: 'Strict' })
    expect(metric.threshold).toBe(1)
    const result = await metric.measure(polite)
    expect(result).toMatchObject({ name: 'Strict', score: 1, threshold: 1, strictMode: true, reason: undefined })
  })

  test('unknown and invalid options are rejected together, each named', () => {
    const build = () =>
      new NoPromisesMetric({
        model: promising,
        threshhold: 0.7,
        retries: 3,
        strict_mode: true,
        verboseMode: 'yes',
      } as never)
    expect(build).toThrow(ConfigurationError)
    expect(build).toThrow(
      'Invalid options for NoPromisesMetric "No Promises":\n' +
        "  - Expected `verboseMode` to be true or false, got 'yes' (string).\n" +
        '  - unknown option `threshhold`; did you mean `threshold`?\n' +
        '  - unknown option `retries`; the options are `name`, `threshold`, `model`, `decisionModel`, `includeReason`, `strictMode`, `asyncMode`, `verboseMode`, `trials`, `aggregate`, `minPassProbability`.\n' +
        '  - unknown option `strict_mode`; did you mean `strictMode`?',
    )
  })

  test('a conversation given to a single-turn metric fails the measurement with a hint', async () => {
    const result = await new NoPromisesMetric({ model: promising }).measure({ turns: [] } as never)
    expect(result.error?.code).toBe('TEST_CASE_INVALID')
    expect(result.error?.message).toBe(
      'The metric "No Promises" is a NoPromisesMetric, which judges single-turn test cases ({ input, actualOutput }), ' +
        'but it was given a conversation ({ turns }). Use a conversational metric such as ConversationalGEval instead.',
    )
  })

  test('a bug in score() is METRIC_FAILED, naming the metric, and keeps the trace so far', async () => {
    class Buggy extends BaseMetric<LLMTestCase> {
      readonly kind = 'single-turn'
      protected score(_testCase: LLMTestCase, ctx: MetricContext): number {
        ctx.step({ label: 'Before the bug', text: 'ran' })
        throw new TypeError("Cannot read properties of undefined (reading 'length')")
      }
    }
    const result = await new Buggy({ model: promising, name: 'Buggy' }).measure(polite)
    expect(result.error?.code).toBe('METRIC_FAILED')
    expect(result.error?.message).toBe(
      `The metric "Buggy" failed: Cannot read properties of undefined (reading 'length')`,
    )
    expect(result.error?.cause).toBeInstanceOf(TypeError)
    expect(result.trace.nodes.map((node) => node.label)).toEqual(['Before the bug'])
  })

  test('a score out of 0..1 is METRIC_FAILED, not clamped into a pass', async () => {
    class OutOfRange extends BaseMetric<LLMTestCase> {
      readonly kind = 'single-turn'
      protected score() {
        return 7
      }
    }
    const result = await new OutOfRange({ model: promising, name: 'Out of range' }).measure(polite)
    expect(result).toMatchObject({ success: false, error: { code: 'METRIC_FAILED' } })
    expect(result.error?.message).toContain('score() must return a number from 0 to 1')
  })

  test('a judge failure inside ctx.judge keeps its code and marks the call failed in the trace', async () => {
    const down: JudgeModel = {
      name: 'down',
      generate: () => Promise.reject(new JudgeCallError('The judge model "down" answered HTTP 503: overloaded')),
    }
    const result = await new NoPromisesMetric({ model: down }).measure(polite)
    expect(result.error).toMatchObject({ code: 'JUDGE_CALL_FAILED', name: 'JudgeCallError' })
    expect(result.error?.message).toBe(
      'The judge call "Promises made" failed: The judge model "down" answered HTTP 503: overloaded',
    )
    expect(result.trace.nodes[0]).toMatchObject({ status: 'failed', label: 'Promises made' })
  })

  test('ctx.judge answers through the judge runtime: a repeated call comes from the cache', async () => {
    const runtime = createJudgeRuntime({ cache: 'read-write', cacheDir, concurrency: 2 })
    const { judge, counts } = countingJudge()
    const metric = new NoPromisesMetric({ model: runtime.wrap(judge) })

    const first = await metric.measure(polite)
    const second = await metric.measure(polite)
    expect(counts.calls).toBe(1)
    expect(first.usage).toMatchObject({ judgeCalls: 1, cachedCalls: 0, promptTokens: 10, costUsd: 0.001 })
    expect(second.usage).toMatchObject({ judgeCalls: 1, cachedCalls: 1, promptTokens: 0, costUsd: 0 })
    expect(second.trace.nodes[0]).toMatchObject({ cached: true })
    expect(second.verboseLogs).toContain('1 judge call, cached')
  })

  test("ctx.judge calls are limited by the runtime's concurrency", async () => {
    const runtime = createJudgeRuntime({ cache: 'off', concurrency: 1 })
    const { judge, counts } = countingJudge(10)
    class ThreeAtOnce extends BaseMetric<LLMTestCase> {
      readonly kind = 'single-turn'
      protected async score(testCase: LLMTestCase, ctx: MetricContext) {
        const ask = (label: string) =>
          ctx.judge({
            label,
            messages: [{ role: 'user', content: `${label}: ${testCase.actualOutput}` }],
            schema: promisesSchema,
            schemaName: 'promises',
            promptVersion: 'three@1',
          })
        await Promise.all([ask('a'), ask('b'), ask('c')])
        return 1
      }
    }
    const result = await new ThreeAtOnce({ model: runtime.wrap(judge), name: 'Three' }).measure(polite)
    expect(counts).toMatchObject({ calls: 3, maxInFlight: 1 })
    expect(result.usage.judgeCalls).toBe(3)
    // The trace keeps the order the calls were asked in, whatever order they finish in.
    expect(result.trace.nodes.map((node) => [node.id, node.label, node.step])).toEqual([
      ['n1', 'a', 1],
      ['n2', 'b', 2],
      ['n3', 'c', 3],
    ])
  })

  test("ctx.judge honours the measurement's signal", async () => {
    const slow = scriptedJudge({ rules: [{ match: 'List', answer: { promises: [], reason: 'x' } }], delayMs: 5_000 })
    const controller = new AbortController()
    const measuring = new NoPromisesMetric({ model: slow }).measure(polite, { signal: controller.signal })
    setTimeout(() => controller.abort(new Error('stopped')), 10)
    const result = await measuring
    expect(result.error?.code).toBe('MEASUREMENT_ABORTED')
  })

  test('works in evaluate() and as the child metric of a VerdictNode', async () => {
    const metric = new NoPromisesMetric({ model: promising })
    const { results } = await evaluate([polite, rash], [metric], { progress: false, summary: false })
    expect(results.map((entry) => entry.result.score)).toEqual([1, 0])

    const dag = new DeepAcyclicGraph({
      rootNodes: [
        new BinaryJudgementNode({
          criteria: 'Is the reply about the parcel?',
          evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
          children: [new VerdictNode({ verdict: true, child: metric }), new VerdictNode({ verdict: false, score: 0 })],
        }),
      ],
    })
    const judge = scriptedJudge({
      rules: [
        { match: 'about the parcel', answer: { verdict: true, reason: 'It is.' } },
        { match: 'List every promise', answer: { promises: ['a full refund'], reason: 'One.' } },
      ],
    })
    const walked = await new DAGMetric({ name: 'Parcel', dag, model: judge }).measure(rash)
    expect(walked.score).toBe(0)
    expect(walked.verboseLogs).toContain('metric No Promises: score 0 (threshold 0.5)')
  })

  test('the kind a metric declares must match its test case type', () => {
    expectTypeOf<NoPromisesMetric['kind']>().toEqualTypeOf<'single-turn'>()
    class _Mismatch extends BaseMetric<ConversationalTestCase> {
      // @ts-expect-error a metric of conversations declares kind 'conversational'
      readonly kind = 'single-turn'
      protected score() {
        return 1
      }
    }
  })
})
