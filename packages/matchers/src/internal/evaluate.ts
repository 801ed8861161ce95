import { createHash } from 'node:crypto'
import {
  formatScore,
  type Metric,
  type MetricResult,
  type TrialAggregate,
  type TrialsUntilDecided,
  trialsSummary,
  withoutAdvice,
  withThreshold,
} from '@judgetree/core'
import {
  adviceOf,
  aggregateSchema,
  checkOptions,
  dagMermaid,
  expecting,
  listProblems,
  measureSafely,
  minPassProbabilitySchema,
  signalSchema,
  terminalSafe,
  thresholdSchema,
  toRecord,
  trialsOptionSchema,
  withMinPassProbability,
} from '@judgetree/core/runtime'
import { z } from 'zod'
import { describeValue } from './describe-value.js'
import { anySignal } from './pending.js'
import { ASSERTION_REJECTED, type JudgetreeRecord, unmeasuredRecord } from './record.js'

/** Options of `toPassMetric(metric, options)`. */
export interface ToPassMetricOptions {
  /** The lowest passing score for this assertion, 0..1, instead of the metric's own threshold. @default metric.threshold */
  threshold?: number | undefined
  /**
   * Measure this many times, with sampling on, and combine the scores with `aggregate`, instead of the metric's
   * own `trials`; `{ max, until: 'decided' }` stops as soon as the pass rate's 95% interval lies wholly above or
   * below `minPassProbability`. See docs/trials.md. @default the metric's `trials` (1 unless set)
   */
  trials?: number | TrialsUntilDecided | undefined
  /** How the trials' scores combine: 'mean', 'median', 'min' or 'majority'. @default the metric's `aggregate` ('mean') */
  aggregate?: TrialAggregate | undefined
  /**
   * Pass only when the metric passes and its chance of passing (`result.passProbability.p`) is at least this, 0..1
   * exclusive; a result without a pass probability fails, saying how to get one (a decision judge, a judge with
   * logprobs, or trials). Also the line `trials: { max, until: 'decided' }` stops at. Not allowed under `.not`.
   * See docs/trust.md. @default no minimum
   */
  minPassProbability?: number | undefined
  /**
   * Cancels the evaluation's judge calls when it aborts; the assertion then fails with the metric's
   * `MEASUREMENT_ABORTED` error. Combined with the runner's own signal (Vitest's test signal, which aborts on a
   * timeout, `--bail` or Ctrl+C) and with the forgotten-`await` check, which cancels what a test left running.
   */
  signal?: AbortSignal | undefined
}

/** The colour helpers every runner passes to matchers as `this.utils`; colours go through them only. */
export interface MatcherColours {
  DIM_COLOR?: ((text: string) => string) | undefined
  RECEIVED_COLOR?: ((text: string) => string) | undefined
}

/** What a matcher's `this` tells the shared evaluation. */
export interface EvaluationContext {
  readonly isNot: boolean
  readonly utils: MatcherColours | undefined
  /** The runner's signal for this assertion; combined with the user's `signal` option. */
  readonly signal?: AbortSignal | undefined
  /** Which of its test's `toPassMetric` calls this is, from 1, counted when the matcher was called. */
  readonly assertion: number
  /**
   * True when the judgetree reporter runs and prints, once after the run, how to fix each problem of the
   * environment (no API key, a refused key): the evaluation's own text then leaves that advice out, so a run of
   * 100 tests without a key does not say the same paragraph 100 times.
   */
  readonly adviceAfterRun?: boolean | undefined
}

/** The matcher's answer to the runner, plus the record reporters receive (none when nothing was measured). */
export interface MatcherOutcome {
  readonly pass: boolean
  readonly message: () => string
  readonly record: JudgetreeRecord | undefined
}

const MATCHER = 'toPassMetric'

/**
 * Measures `received` with `metric` and decides the assertion. Never rejects: a bad argument, a metric that
 * throws and a result with `error` set all fail the assertion with a message, also under `.not`.
 */
export async function evaluateToPassMetric(
  received: unknown,
  metric: unknown,
  options: unknown,
  context: EvaluationContext,
): Promise<MatcherOutcome> {
  const usage = usageProblem(received, metric, options, context.isNot)
  // The message quotes what the test passed: printed safely, like every text of judgetree (renderResult's too).
  const problem = usage === undefined ? undefined : terminalSafe(usage)
  if (problem !== undefined) {
    return { pass: context.isNot, message: () => problem, record: rejectedRecord(metric, problem, context) }
  }
  const checked = metric as Metric
  const given = options as ToPassMetricOptions | undefined
  const override = given?.threshold
  const signal = anySignal([context.signal, given?.signal])
  const result = await measureSafely(checked, received, {
    signal,
    trials: given?.trials,
    aggregate: given?.aggregate,
    minPassProbability: given?.minPassProbability,
    failure: `The metric "${checked.name}" failed`,
  })
  const threshold = override ?? result.threshold
  // For trials, each trial is judged against the assertion's threshold again, and so is their aggregate.
  const judged: MetricResult = withMinPassProbability(withThreshold(result, threshold), given?.minPassProbability)
  const success = judged.success
  const { summary, text: fullText, ...plain } = toRecord(judged)
  const advice = context.adviceAfterRun === true ? adviceOf(plain) : undefined
  const text = advice === undefined ? fullText : withoutRepeatedAdvice(fullText, advice)
  const assertionPassed = result.error === undefined && success !== context.isNot
  // Drawn for failures only: the step summary shows no passes, and a record lives in every test's meta.
  const mermaid = assertionPassed ? undefined : dagMermaid(checked, judged.trace, success)
  const record: JudgetreeRecord = {
    ...plain,
    metricThreshold: result.threshold,
    assertion: context.assertion,
    negated: context.isNot,
    assertionPassed,
    summary,
    text,
    testCase: testCaseIdentity(received),
    ...(mermaid === undefined ? {} : { mermaid }),
  }
  const dim = context.utils?.DIM_COLOR ?? identity
  const red = context.utils?.RECEIVED_COLOR ?? identity
  const [, ...details] = text.split('\n')
  const lines = details.map((line) => (line.startsWith('error: ') ? red(line) : line))
  if (override !== undefined && override !== result.threshold) {
    lines.unshift(
      dim(
        `threshold ${formatScore(override)} from ${MATCHER}(metric, { threshold }); the metric's own is ${formatScore(result.threshold)}`,
      ),
    )
  }
  if (result.error !== undefined) {
    if (context.isNot) lines.push(dim('A metric that could not be computed fails the test, with or without .not.'))
    const message = [record.summary, ...lines].join('\n')
    return { pass: context.isNot, message: () => message, record }
  }
  const trials = trialsSummary(judged)
  const spread = trials ? ` · ${trials} (${judged.aggregate})` : ''
  const expectedToFail = `expected ${result.name} to fail, but it passed with score ${formatScore(judged.score)} (threshold ${formatScore(threshold)})${spread} · judge ${result.judgeModel}${result.decisionModel === undefined ? '' : ` · decisions ${result.decisionModel}`}`
  // The metric's name is its author's: one line, printed safely like the rest of the message.
  const first = context.isNot ? terminalSafe(expectedToFail.replace(/\s+/g, ' ')) : record.summary
  const message = [first, ...lines].join('\n')
  return { pass: success, message: () => message, record }
}

/**
 * An evaluation's text without the advice that the reporter prints once after the run; its error line says so.
 * The record's `error.message` keeps the whole message, for the JSON report.
 */
function withoutRepeatedAdvice(text: string, advice: string): string {
  const lines = withoutAdvice(text, advice).split('\n')
  const at = lines.findIndex((line) => line.startsWith('error: '))
  if (at !== -1) lines[at] = `${lines[at]} (how to fix it is printed once, at the end of the run)`
  return lines.join('\n')
}

/** The record of an assertion rejected before measuring: reports list it with the failed ones, and say why. */
function rejectedRecord(metric: unknown, problem: string, context: EvaluationContext): JudgetreeRecord {
  return unmeasuredRecord({
    metric,
    assertion: context.assertion,
    negated: context.isNot,
    summary: (name) => `REJECTED ${name}: the assertion was not measured`,
    error: { name: 'UsageError', code: ASSERTION_REJECTED, message: problem },
  })
}

/** A test case's `name` (when it has one) and the first 12 hex digits of a sha256 of its content. */
function testCaseIdentity(received: unknown): { name: string | null; digest: string } {
  const name = (received as { name?: unknown } | null)?.name
  let text: string
  try {
    text = JSON.stringify(received) ?? String(received)
  } catch {
    text = String(received)
  }
  return {
    name: typeof name === 'string' && name !== '' ? name : null,
    digest: createHash('sha256').update(text).digest('hex').slice(0, 12),
  }
}

/** The options of toPassMetric (ToPassMetricOptions): a key outside them is a mistake (a typo would otherwise be ignored). */
const toPassMetricOptionsSchema = expecting(
  z.strictObject({
    threshold: thresholdSchema.optional(),
    signal: signalSchema.optional(),
    trials: trialsOptionSchema.optional(),
    aggregate: aggregateSchema.optional(),
    minPassProbability: minPassProbabilitySchema.optional(),
  }),
  'an object such as { threshold: 0.7 }',
)

/**
 * `.not` with a gate would pass both for a metric that fails and for one that passes with too little confidence: two
 * claims a test rarely means at once, so it is refused, with what to write instead.
 */
const NEGATED_GATE =
  `expect(testCase).not.${MATCHER}(metric, { minPassProbability }) is ambiguous: it would pass when the metric fails ` +
  'and also when it passes with a pass probability below the minimum. Drop minPassProbability to assert that the ' +
  `metric fails, or measure and check the chance itself: const result = await metric.measure(testCase); ` +
  'expect(result.passProbability?.p).toBeLessThan(0.1).'

/** Checks the arguments before any judge call, so misuse fails at once with what was expected. */
function usageProblem(received: unknown, metric: unknown, options: unknown, negated: boolean): string | undefined {
  if (!isMetric(metric)) {
    return (
      `${MATCHER}(metric) expects a judgetree metric (an object with \`name\` and \`measure(testCase)\`, such as ` +
      `new ConversationalDAGMetric({ ... })), but got ${describeValue(metric)}.`
    )
  }
  if (options !== undefined) {
    const checked = checkOptions(toPassMetricOptionsSchema, options)
    if (!checked.ok) {
      const problems = checked.problems.map((problem) => problem.message)
      return `Invalid options for ${MATCHER}(metric, options):\n${listProblems(problems)}`
    }
    if (negated && (options as ToPassMetricOptions).minPassProbability !== undefined) return NEGATED_GATE
  }
  const shape = testCaseShape(received)
  if (shape === undefined) {
    return (
      `expect(testCase).${MATCHER}(metric) expects a test case: a conversation { turns: [...] } or a single-turn ` +
      `test case { input, actualOutput }, but received ${describeValue(received)}.`
    )
  }
  if (metric.kind === 'conversational' && shape !== 'conversational') {
    return `The metric "${metric.name}" judges conversations ({ turns: [...] }), but received a single-turn test case ({ input, ... }).`
  }
  if (metric.kind === 'single-turn' && shape !== 'single-turn') {
    return `The metric "${metric.name}" judges single-turn test cases ({ input, actualOutput }), but received a conversation ({ turns: [...] }).`
  }
  return undefined
}

function isMetric(value: unknown): value is Metric {
  if (typeof value !== 'object' || value === null) return false
  const candidate = value as Partial<Record<keyof Metric, unknown>>
  return typeof candidate.name === 'string' && typeof candidate.measure === 'function'
}

function testCaseShape(value: unknown): 'conversational' | 'single-turn' | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  if (Array.isArray((value as { turns?: unknown }).turns)) return 'conversational'
  if (typeof (value as { input?: unknown }).input === 'string') return 'single-turn'
  return undefined
}

function identity(text: string): string {
  return text
}
