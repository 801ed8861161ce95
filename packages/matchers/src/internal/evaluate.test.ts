import {
  ConfigurationError,
  ConversationalBinaryJudgementNode,
  ConversationalDAGMetric,
  ConversationalVerdictNode,
  DeepAcyclicGraph,
  JudgeCallError,
  type JudgeModel,
  type Metric,
  TurnParams,
} from '@judgetree/core'
import { scriptedJudge } from '@judgetree/core/testing'
import { describe, expect, test } from 'vitest'
import { type EvaluationContext, evaluateToPassMetric } from './evaluate.js'

const conversation = {
  turns: [
    { role: 'user' as const, content: 'Hi' },
    { role: 'assistant' as const, content: 'Hello!' },
  ],
}

function friendly(verdict: boolean, model: JudgeModel = answering(verdict)): ConversationalDAGMetric {
  return new ConversationalDAGMetric({
    name: 'Friendly',
    threshold: 0.7,
    model,
    dag: new DeepAcyclicGraph({
      rootNodes: [
        new ConversationalBinaryJudgementNode({
          criteria: 'Is the assistant friendly?',
          evaluationParams: [TurnParams.CONTENT],
          children: [
            new ConversationalVerdictNode({ verdict: true, score: 8 }),
            new ConversationalVerdictNode({ verdict: false, score: 2 }),
          ],
        }),
      ],
    }),
  })
}

function answering(verdict: boolean): JudgeModel {
  return scriptedJudge({ name: 'judge-x', rules: [{ match: 'friendly', answer: { reason: 'It greets.', verdict } }] })
}

const plain: EvaluationContext = { isNot: false, utils: undefined, assertion: 1 }
const negated: EvaluationContext = { isNot: true, utils: undefined, assertion: 1 }
/** Colours that show where they were applied, to check that the first line is never coloured. */
const marking: EvaluationContext = {
  isNot: false,
  assertion: 1,
  utils: { DIM_COLOR: (text) => `<dim>${text}</dim>`, RECEIVED_COLOR: (text) => `<red>${text}</red>` },
}

describe('evaluateToPassMetric', () => {
  test('a failing metric: the summary line, the reason, then the tree', async () => {
    const outcome = await evaluateToPassMetric(conversation, friendly(false), undefined, plain)
    expect(outcome.pass).toBe(false)
    expect(outcome.message()).toMatchInlineSnapshot(`
      "FAIL Friendly: score 0.2 (threshold 0.7) · judge judge-x
      reason: The walk scored 0.2. “Is the assistant friendly?” → false: It greets.
      [1] Judgement: Is the assistant friendly? → false · 1 judge call
      │    reason: It greets.
      ├─ ○ true → 8
      └─ ● false → 2  ◀ score 0.2"
    `)
    expect(outcome.record).toMatchObject({
      name: 'Friendly',
      score: 0.2,
      threshold: 0.7,
      metricThreshold: 0.7,
      success: false,
      negated: false,
      assertionPassed: false,
      error: null,
      judgeModel: 'judge-x',
      summary: 'FAIL Friendly: score 0.2 (threshold 0.7) · judge judge-x',
    })
  })

  test('.not: a passing metric fails the assertion with its own wording', async () => {
    const outcome = await evaluateToPassMetric(conversation, friendly(true), undefined, negated)
    expect(outcome.pass).toBe(true)
    expect(outcome.message().split('\n')[0]).toBe(
      'expected Friendly to fail, but it passed with score 0.8 (threshold 0.7) · judge judge-x',
    )
    expect(outcome.record).toMatchObject({ success: true, negated: true, assertionPassed: false })
  })

  test('.not: a failing metric passes the assertion', async () => {
    const outcome = await evaluateToPassMetric(conversation, friendly(false), undefined, negated)
    expect(outcome.pass).toBe(false)
    expect(outcome.record).toMatchObject({ success: false, negated: true, assertionPassed: true })
  })

  test('{ threshold } decides pass or fail instead of the metric threshold, and the message says so', async () => {
    const stricter = await evaluateToPassMetric(conversation, friendly(true), { threshold: 0.9 }, plain)
    expect(stricter.pass).toBe(false)
    expect(stricter.message().split('\n').slice(0, 2)).toEqual([
      'FAIL Friendly: score 0.8 (threshold 0.9) · judge judge-x',
      "threshold 0.9 from toPassMetric(metric, { threshold }); the metric's own is 0.7",
    ])
    expect(stricter.record).toMatchObject({ threshold: 0.9, metricThreshold: 0.7, success: false })
    const laxer = await evaluateToPassMetric(conversation, friendly(false), { threshold: 0.2 }, plain)
    expect(laxer.pass).toBe(true)
  })

  test('an error result fails the assertion with and without .not', async () => {
    const offline: JudgeModel = {
      name: 'offline',
      generate: () => Promise.reject(new JudgeCallError('The judge could not be reached.')),
    }
    for (const context of [plain, negated]) {
      const outcome = await evaluateToPassMetric(conversation, friendly(true, offline), undefined, context)
      // The runner fails the assertion when pass !== isNot.
      expect(outcome.pass).toBe(context.isNot)
      expect(outcome.message().split('\n').slice(0, 2)).toEqual([
        'ERROR Friendly: no score (threshold 0.7) · judge offline',
        'error: ConversationalBinaryJudgementNode (criteria: "Is the assistant friendly?") failed: The judge could not be reached.',
      ])
      expect(outcome.record).toMatchObject({
        assertionPassed: false,
        error: {
          code: 'JUDGE_CALL_FAILED',
          name: 'JudgeCallError',
          message:
            'ConversationalBinaryJudgementNode (criteria: "Is the assistant friendly?") failed: The judge could not be reached.',
        },
      })
    }
  })

  test('a problem of the environment: with the reporter in the run, its fix is left to the run summary', async () => {
    const keyless: JudgeModel = {
      name: 'keyless',
      generate: () =>
        Promise.reject(new ConfigurationError('The judge has no API key.', { advice: 'Set OPENAI_API_KEY.' })),
    }
    const node = 'ConversationalBinaryJudgementNode (criteria: "Is the assistant friendly?") failed: '
    const reported = await evaluateToPassMetric(conversation, friendly(true, keyless), undefined, {
      ...plain,
      adviceAfterRun: true,
    })
    expect(reported.message()).not.toContain('Set OPENAI_API_KEY.')
    expect(reported.message().split('\n')[1]).toBe(
      `error: ${node}The judge has no API key. (how to fix it is printed once, at the end of the run)`,
    )
    expect(reported.record?.text).toBe(reported.message())
    // The record keeps the whole message, and the advice on its own, for the reporter and the JSON report.
    expect(reported.record?.error).toEqual({
      name: 'ConfigurationError',
      code: 'CONFIGURATION_INVALID',
      message: `${node}The judge has no API key. Set OPENAI_API_KEY.`,
      advice: 'Set OPENAI_API_KEY.',
    })
    // Without the reporter nobody would print it later: the test's own message says it all.
    const alone = await evaluateToPassMetric(conversation, friendly(true, keyless), undefined, plain)
    expect(alone.message().split('\n')[1]).toBe(`error: ${node}The judge has no API key. Set OPENAI_API_KEY.`)
  })

  test('a metric that throws becomes an error result, not a crash', async () => {
    const throwing: Metric = {
      name: 'Hand-made',
      kind: 'conversational',
      threshold: 0.5,
      measure: () => Promise.reject(new TypeError('oops')),
    }
    const outcome = await evaluateToPassMetric(conversation, throwing, undefined, negated)
    expect(outcome.pass).toBe(true)
    expect(outcome.message()).toBe(
      'ERROR Hand-made: no score (threshold 0.5) · judge unknown\n' +
        'error: The metric "Hand-made" failed: oops\n' +
        'A metric that could not be computed fails the test, with or without .not.',
    )
    // A bug in the metric's own code is not a judge failure.
    expect(outcome.record?.error).toMatchObject({ code: 'METRIC_FAILED', name: 'JudgetreeError' })
  })

  test("an aborted signal of the user fails the assertion with the metric's MEASUREMENT_ABORTED error, also under .not", async () => {
    for (const context of [plain, negated]) {
      const signal = AbortSignal.abort(new Error('stopped by the test'))
      const outcome = await evaluateToPassMetric(conversation, friendly(true), { signal }, context)
      expect(outcome.pass).toBe(context.isNot)
      expect(outcome.record?.error).toMatchObject({ code: 'MEASUREMENT_ABORTED' })
      expect(outcome.message().split('\n').slice(0, 2)).toEqual([
        'ERROR Friendly: no score (threshold 0.7) · judge judge-x',
        'error: The measurement was aborted: stopped by the test.',
      ])
    }
  })

  test("the runner's signal and the user's are combined: either cancels a judge call in flight", async () => {
    const slow = scriptedJudge({
      name: 'judge-x',
      delayMs: 5_000,
      rules: [{ match: 'friendly', answer: { reason: 'It greets.', verdict: true } }],
    })
    for (const which of ['runner', 'user'] as const) {
      const runner = new AbortController()
      const user = new AbortController()
      const started = Date.now()
      const pending = evaluateToPassMetric(
        conversation,
        friendly(true, slow),
        { signal: user.signal },
        { ...plain, signal: runner.signal },
      )
      setTimeout(() => (which === 'runner' ? runner : user).abort(), 20)
      const outcome = await pending
      expect(Date.now() - started).toBeLessThan(2_000)
      expect(outcome.record?.error?.code).toBe('MEASUREMENT_ABORTED')
    }
  })

  test('measure() gets no options when there is no signal, and the signal when there is one', async () => {
    const calls: unknown[][] = []
    const metric: Metric = {
      ...friendly(true),
      name: 'Spy',
      kind: 'conversational',
      threshold: 0.5,
      measure: (...args: unknown[]) => {
        calls.push(args)
        return friendly(true).measure(conversation)
      },
    }
    const signal = new AbortController().signal
    await evaluateToPassMetric(conversation, metric, undefined, plain)
    await evaluateToPassMetric(conversation, metric, undefined, { ...plain, signal })
    expect(calls.map((args) => args.length)).toEqual([1, 2])
    expect((calls[1]?.[1] as { signal?: AbortSignal } | undefined)?.signal?.aborted).toBe(false)
  })

  test('colours only through the runner utilities, and never on the first line', async () => {
    const failing = await evaluateToPassMetric(conversation, friendly(false), { threshold: 0.75 }, marking)
    const [first, second] = failing.message().split('\n')
    expect(first).toBe('FAIL Friendly: score 0.2 (threshold 0.75) · judge judge-x')
    expect(second).toMatch(/^<dim>threshold 0\.75 from .*<\/dim>$/)
    expect(failing.record?.text).not.toContain('<dim>')
  })

  test.each([
    [
      'a string received',
      'Hi there',
      friendly(true),
      undefined,
      "expect(testCase).toPassMetric(metric) expects a test case: a conversation { turns: [...] } or a single-turn test case { input, actualOutput }, but received 'Hi there' (string).",
    ],
    [
      'a conversation for a single-turn metric',
      conversation,
      { name: 'Exact', kind: 'single-turn', threshold: 0.5, measure: () => Promise.reject(new Error('unreachable')) },
      undefined,
      'The metric "Exact" judges single-turn test cases ({ input, actualOutput }), but received a conversation ({ turns: [...] }).',
    ],
    [
      'a single-turn case for a conversational metric',
      { input: 'Hi', actualOutput: 'Hello' },
      friendly(true),
      undefined,
      'The metric "Friendly" judges conversations ({ turns: [...] }), but received a single-turn test case ({ input, ... }).',
    ],
    [
      'no metric',
      conversation,
      undefined,
      undefined,
      'toPassMetric(metric) expects a judgetree metric (an object with `name` and `measure(testCase)`, such as new ConversationalDAGMetric({ ... })), but got `undefined` (undefined).',
    ],
    [
      'a threshold above 1',
      conversation,
      friendly(true),
      { threshold: 70 },
      'Invalid options for toPassMetric(metric, options):\n  - Expected `threshold` to be a number from 0 to 1 (a score of 0.7 passes a threshold of 0.7), got `70` (number).',
    ],
    [
      'a threshold as a string',
      conversation,
      friendly(true),
      { threshold: '0.7' },
      "Invalid options for toPassMetric(metric, options):\n  - Expected `threshold` to be a number from 0 to 1 (a score of 0.7 passes a threshold of 0.7), got '0.7' (string).",
    ],
    [
      'a signal that is not an AbortSignal',
      conversation,
      friendly(true),
      { signal: 'stop' },
      "Invalid options for toPassMetric(metric, options):\n  - Expected `signal` to be an AbortSignal (such as controller.signal or AbortSignal.timeout(30_000)), got 'stop' (string).",
    ],
    [
      'trials of 0',
      conversation,
      friendly(true),
      { trials: 0 },
      'Invalid options for toPassMetric(metric, options):\n  - Expected `trials` to be a whole number from 1 to 100 (how many times to measure, e.g. 5), got `0` (number).',
    ],
    [
      'fractional trials',
      conversation,
      friendly(true),
      { trials: 1.5 },
      'Invalid options for toPassMetric(metric, options):\n  - Expected `trials` to be a whole number from 1 to 100 (how many times to measure, e.g. 5), got `1.5` (number).',
    ],
    [
      'a billion trials',
      conversation,
      friendly(true),
      { trials: 1e9 },
      'Invalid options for toPassMetric(metric, options):\n  - Expected `trials` to be at most 100 (each trial may cost a judge call per step, and the aggregate of a few dozen trials is already steady), got `1000000000` (number).',
    ],
    [
      'an unknown aggregate',
      conversation,
      friendly(true),
      { trials: 5, aggregate: 'avg' },
      "Invalid options for toPassMetric(metric, options):\n  - Expected `aggregate` to be one of 'mean', 'median', 'min', 'majority' (how the trials' scores combine), got 'avg' (string).",
    ],
    [
      'two wrong options and a mistyped one, all at once',
      conversation,
      friendly(true),
      { threshold: 70, trials: 0, treshold: 0.7 },
      'Invalid options for toPassMetric(metric, options):\n' +
        '  - Expected `threshold` to be a number from 0 to 1 (a score of 0.7 passes a threshold of 0.7), got `70` (number).\n' +
        '  - Expected `trials` to be a whole number from 1 to 100 (how many times to measure, e.g. 5), got `0` (number).\n' +
        '  - unknown option `treshold`; did you mean `threshold`?',
    ],
    [
      'a minPassProbability above 1',
      conversation,
      friendly(true),
      { minPassProbability: 1.5 },
      'Invalid options for toPassMetric(metric, options):\n  - Expected `minPassProbability` to be a number between 0 and 1, exclusive (the pass probability the verdict must clear, e.g. 0.9), got `1.5` (number).',
    ],
    [
      'a minPassProbability as a string',
      conversation,
      friendly(true),
      { minPassProbability: '0.9' },
      "Invalid options for toPassMetric(metric, options):\n  - Expected `minPassProbability` to be a number between 0 and 1, exclusive (the pass probability the verdict must clear, e.g. 0.9), got '0.9' (string).",
    ],
    [
      'trials until something else than decided',
      conversation,
      friendly(true),
      { trials: { max: 10, until: 'done' } },
      "Invalid options for toPassMetric(metric, options):\n  - Expected `trials` to be { max, until: 'decided' } with max a whole number from 1 to 100 (sample until the pass probability's 95% interval lies wholly above or below minPassProbability, at most max times), e.g. { max: 10, until: 'decided' }, got `{ max: 10, until: 'done' }` (object).",
    ],
    [
      'options that are not an object',
      conversation,
      friendly(true),
      0.7,
      'Invalid options for toPassMetric(metric, options):\n  - Expected `options` to be an object such as { threshold: 0.7 }, got `0.7` (number).',
    ],
  ])('misuse fails at once, with and without .not: %s', async (_, received, metric, options, expected) => {
    for (const context of [plain, negated]) {
      const outcome = await evaluateToPassMetric(received, metric, options, context)
      expect(outcome.pass).toBe(context.isNot)
      expect(outcome.message()).toBe(expected)
      // Rejected before measuring, yet recorded: reports list it with the failed assertions and say why.
      expect(outcome.record).toMatchObject({
        error: { code: 'ASSERTION_REJECTED', message: expected },
        assertionPassed: false,
        negated: context.isNot,
        usage: { judgeCalls: 0 },
        testCase: null,
      })
    }
  })

  describe('{ minPassProbability }', () => {
    /** A judge that finds the assistant friendly with probability `p`, as a decision judge gives it. */
    const sure = (p: number): JudgeModel => ({
      name: 'sure',
      cacheable: false,
      async generate<T>() {
        const value = { reason: 'It greets.', verdict: true } as T
        const usage = { promptTokens: 10, completionTokens: 1, costUsd: undefined }
        return { value, usage, cached: false, distribution: { true: p, false: 1 - p } }
      },
    })

    test('passes when the metric passes and P(pass) reaches the minimum', async () => {
      const outcome = await evaluateToPassMetric(
        conversation,
        friendly(true, sure(0.95)),
        { minPassProbability: 0.9 },
        plain,
      )
      expect(outcome.pass).toBe(true)
      expect(outcome.message().split('\n')[0]).toBe(
        'PASS Friendly: score 0.8 (threshold 0.7, minPassProbability 0.9) · P(pass) 0.95 · judge sure',
      )
      expect(outcome.record).toMatchObject({ success: true, assertionPassed: true, minPassProbability: 0.9 })
    })

    test('fails a passing score whose P(pass) is below the minimum, and says so', async () => {
      const outcome = await evaluateToPassMetric(
        conversation,
        friendly(true, sure(0.72)),
        { minPassProbability: 0.9 },
        plain,
      )
      expect(outcome.pass).toBe(false)
      expect(outcome.message().split('\n').slice(0, 3)).toEqual([
        'FAIL Friendly: score 0.8 (threshold 0.7, minPassProbability 0.9) · P(pass) 0.72 · judge sure',
        'gate: P(pass) 0.72 is below minPassProbability 0.9',
        'reason: The walk scored 0.8. “Is the assistant friendly?” → true: It greets.',
      ])
      expect(outcome.record).toMatchObject({
        score: 0.8,
        success: false,
        assertionPassed: false,
        passProbability: { p: 0.72, source: 'judge' },
      })
    })

    test('without a pass probability it fails, saying how to get one', async () => {
      const outcome = await evaluateToPassMetric(conversation, friendly(true), { minPassProbability: 0.5 }, plain)
      expect(outcome.pass).toBe(false)
      const [summary, gate] = outcome.message().split('\n')
      expect(summary).toBe('FAIL Friendly: score 0.8 (threshold 0.7, minPassProbability 0.5) · judge judge-x')
      expect(gate).toMatch(/^gate: minPassProbability 0.5 needs a pass probability, and this measurement has none/)
      expect(gate).toContain('decisionModel')
      expect(gate).toContain('topLogprobs')
      expect(gate).toContain("trials: { max: 10, until: 'decided' }")
    })

    test('a failing score fails as before: the gate adds no second reason', async () => {
      const outcome = await evaluateToPassMetric(conversation, friendly(false), { minPassProbability: 0.5 }, plain)
      expect(outcome.pass).toBe(false)
      expect(outcome.message()).not.toContain('gate: ')
    })

    test('.not with a minimum is refused before any judge call', async () => {
      let calls = 0
      const counted: JudgeModel = {
        ...sure(0.95),
        generate: (request) => {
          calls += 1
          return sure(0.95).generate(request)
        },
      }
      const outcome = await evaluateToPassMetric(
        conversation,
        friendly(true, counted),
        { minPassProbability: 0.9 },
        negated,
      )
      expect(outcome.pass).toBe(true)
      expect(calls).toBe(0)
      expect(outcome.message()).toBe(
        'expect(testCase).not.toPassMetric(metric, { minPassProbability }) is ambiguous: it would pass when the metric ' +
          'fails and also when it passes with a pass probability below the minimum. Drop minPassProbability to assert ' +
          'that the metric fails, or measure and check the chance itself: const result = await metric.measure(testCase); ' +
          'expect(result.passProbability?.p).toBeLessThan(0.1).',
      )
      expect(outcome.record).toMatchObject({ error: { code: 'ASSERTION_REJECTED' }, assertionPassed: false })
    })
  })

  describe('{ trials, aggregate }', () => {
    /** A judge that says friendly in trials 1, 2 and 4 only (the trial number is on each request). */
    const flaky: JudgeModel = {
      name: 'flaky',
      cacheable: false,
      async generate<T>(request: { trial?: number | undefined }) {
        const verdict = [true, true, false, true, false][(request.trial ?? 1) - 1]
        const value = { reason: verdict ? 'It greets.' : 'Curt.', verdict } as T
        return { value, usage: { promptTokens: 10, completionTokens: 5, costUsd: undefined }, cached: false }
      },
    }

    test('measure the trials, show "3/5 trials passed" and keep each trial in the record', async () => {
      const outcome = await evaluateToPassMetric(
        conversation,
        friendly(true, flaky),
        { trials: 5, aggregate: 'majority' },
        plain,
      )
      expect(outcome.pass).toBe(true)
      expect(outcome.message().split('\n')[0]).toBe(
        'PASS Friendly: score 0.8 (threshold 0.7) · 3/5 trials passed, scores 0.2–0.8 (majority) · P(pass) 0.60 · judge flaky',
      )
      expect(outcome.record).toMatchObject({
        aggregate: 'majority',
        passRate: 0.6,
        spread: { min: 0.2, max: 0.8 },
        usage: { judgeCalls: 5 },
      })
      expect(outcome.record?.trials?.map((trial) => [trial.score, trial.success])).toEqual([
        [0.8, true],
        [0.8, true],
        [0.2, false],
        [0.8, true],
        [0.2, false],
      ])
      expect(JSON.parse(JSON.stringify(outcome.record))).toEqual(outcome.record)
    })

    test('the mean of the same trials fails, and { threshold } re-judges every trial', async () => {
      const mean = await evaluateToPassMetric(conversation, friendly(true, flaky), { trials: 5 }, plain)
      expect(mean.pass).toBe(false)
      expect(mean.message()).toMatchInlineSnapshot(`
        "FAIL Friendly: score 0.56 (threshold 0.7) · 3/5 trials passed, scores 0.2–0.8 (mean) · P(pass) 0.60 · judge flaky
        reason: mean of 5 trials: 0.56 (3/5 trials passed, scores 0.2–0.8). Trial 1 (score 0.8): The walk scored 0.8. “Is the assistant friendly?” → true: It greets.
        P(pass) 0.60 (95% 0.23–0.88) · expected score 0.56 · most uncertain: [n1] Is the assistant friendly? → true (0.60)
        [1] Judgement: Is the assistant friendly? → true ×3, false ×2 · 5 judge calls
        │    reason: It greets.
        ├─ ● true → 8  ◀ score 0.8  (chosen in 3/5 trials)
        └─ ● false → 2  ◀ score 0.2  (chosen in 2/5 trials)
        note: 5 trials, combined as the mean of the trials: 3/5 trials passed, scores 0.2–0.8
        trial 1: PASS score 0.8
        trial 2: PASS score 0.8
        trial 3: FAIL score 0.2
        trial 4: PASS score 0.8
        trial 5: FAIL score 0.2"
      `)
      const lax = await evaluateToPassMetric(conversation, friendly(true, flaky), { trials: 5, threshold: 0.2 }, plain)
      expect(lax.pass).toBe(true)
      expect(lax.record?.passRate).toBe(1)
      expect(lax.message().split('\n')[0]).toBe(
        'PASS Friendly: score 0.56 (threshold 0.2) · 5/5 trials passed, scores 0.2–0.8 (mean) · P(pass) 1.00 · judge flaky',
      )
      expect(lax.message()).toContain('note: 5 trials, combined as the mean of the trials: 5/5 trials passed')
      expect(lax.message()).toContain('trial 3: PASS score 0.2')
    })
  })

  test('the record is plain JSON: errors and nested results survive a round trip', async () => {
    const outcome = await evaluateToPassMetric(conversation, friendly(false), undefined, plain)
    expect(JSON.parse(JSON.stringify(outcome.record))).toEqual(outcome.record)
    expect(outcome.record?.trace.nodes.map((node) => [node.role, node.status])).toEqual([
      ['judgement', 'ran'],
      ['verdict', 'skipped'],
      ['verdict', 'ran'],
    ])
  })
})
