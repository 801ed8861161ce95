import { setMaxListeners } from 'node:events'
import { z } from 'zod'
import { ConfigurationError, JudgetreeError, TestCaseError } from '../errors.js'
import { describeValue } from '../internal/describe-value.js'
import { checkOptions, expecting, listProblems, parseOptions } from '../internal/options.js'
import { resolveDecisionJudge, resolveJudge } from '../judge/resolve-judge.js'
import type { JudgeModel } from '../judge/types.js'
import { runTrials } from '../runtime/trial-batch.js'
import { parseConversationalTestCase, parseLLMTestCase } from '../test-case/parse.js'
import type { ConversationalTestCase, LLMTestCase } from '../test-case/schemas.js'
import { renderResult } from '../trace/render.js'
import { runTrialsUntilDecided } from './adaptive-trials.js'
import { measureOptionsSchema, metricOptionsShape } from './measure-options.js'
import { Measurement, type MetricContext } from './measurement.js'
import { type CommonMetricOptions, type ResolvedMetricOptions, resolveCommonOptions, trialsOf } from './options.js'
import { errorResult } from './result.js'
import { combineTrials, RUNS_OWN_TRIALS } from './trial-result.js'
import type { MeasureOptions, Metric, MetricResult, PassProbability } from './types.js'

export type { MetricContext, MetricJudgeRequest, MetricStep } from './measurement.js'

/** Options every metric built on {@link BaseMetric} takes. */
export interface BaseMetricOptions extends CommonMetricOptions {
  /** Identifies the metric in reports. @default the name the subclass passes to `super` */
  name?: string | undefined
}

/**
 * What `score()` returns: a score from 0 to 1, alone or with the reason shown when `includeReason` is on, and the
 * chance of passing when the metric knows it from its judge's distributions (see DESIGN.md §9).
 */
export type MetricScore =
  | number
  | {
      readonly score: number
      readonly reason?: string | undefined
      readonly passProbability?: PassProbability | undefined
    }

/** The kind a metric declares for the test cases it judges. */
export type KindOf<TestCase> = TestCase extends ConversationalTestCase ? 'conversational' : 'single-turn'

/** What a metric's constructor checks: its own options beside the common ones. */
export interface OptionSpec {
  /** The schemas of the metric's own options; a key neither they nor the common options name is reported. */
  readonly shape?: z.ZodRawShape | undefined
  /** What the options should have been when they are not an object, e.g. `an options object with { name, dag }`. */
  readonly expected: string
  /** The name used when the options give none. @default none: `name` is required */
  readonly defaultName?: string | undefined
}

/**
 * Checks a metric's options through their schema (the common ones and the metric's own, `spec.shape`), resolves the
 * judge, runs the checks no schema states (`extras`, which add to `problems`), and throws one ConfigurationError
 * listing every problem.
 */
export function checkMetricOptions<Options extends CommonMetricOptions & { name?: unknown }, Extra extends object>(
  type: string,
  options: Options,
  spec: OptionSpec,
  extras: (options: Options, problems: string[]) => Extra = () => ({}) as Extra,
): Extra & { readonly options: ResolvedMetricOptions } {
  const where = `${type} "${String(options?.name ?? spec.defaultName)}"`
  const schema = expecting(
    z.strictObject({ ...metricOptionsShape(spec.defaultName === undefined), ...spec.shape }),
    spec.expected,
  )
  const checked = checkOptions(schema, options)
  const problems = checked.ok ? [] : checked.problems.map((problem) => problem.message)
  const fail = () => new ConfigurationError(`Invalid options for ${where}:\n${listProblems(problems)}`)
  if (typeof options !== 'object' || options === null) throw fail()
  const resolved = (resolve: () => JudgeModel | undefined): JudgeModel | undefined => {
    try {
      return resolve()
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error))
      return undefined
    }
  }
  const judge = resolved(() => resolveJudge(options.model))
  const decisionJudge = resolved(() => resolveDecisionJudge(options.decisionModel, judge))
  const extra = extras(options, problems)
  if (problems.length > 0) throw fail()
  return { ...extra, options: resolveCommonOptions(options, judge as JudgeModel, spec.defaultName, decisionJudge) }
}

/** Options a built-in metric checked itself (with its own keys), handed to BaseMetric's constructor as they are. */
const CHECKED = Symbol('judgetree.checkedOptions')

/** Marks options a metric checked with checkMetricOptions, and the class name its messages use. */
export function checkedOptions(type: string, options: ResolvedMetricOptions): { readonly name?: undefined } {
  return { [CHECKED]: { type, options } } as { readonly name?: undefined }
}

/**
 * The base of every metric, yours and the built-in ones: implement `score()` and get the common options, test-case
 * validation by kind, timing, trials, the immutable result, usage and the trace. Judge calls go through `ctx.judge`.
 * What `score()` throws becomes the result's error: METRIC_FAILED for a bug, the judge's own code for a judge failure.
 *
 * @example
 * class ShortAnswer extends BaseMetric<LLMTestCase> {
 *   readonly kind = 'single-turn'
 *   constructor(options: BaseMetricOptions = {}) {
 *     super(options, { name: 'Short Answer' })
 *   }
 *   protected async score(testCase: LLMTestCase, ctx: MetricContext) {
 *     const words = (testCase.actualOutput ?? '').split(/\s+/).length
 *     ctx.step({ label: 'Length', text: 'at most 50 words', verdict: words <= 50, reason: `${words} words` })
 *     return words <= 50 ? 1 : 0
 *   }
 * }
 */
export abstract class BaseMetric<TestCase extends LLMTestCase | ConversationalTestCase> implements Metric<TestCase> {
  /** Which kind of test case this metric judges. */
  abstract readonly kind: KindOf<TestCase>
  readonly name: string
  /** The threshold results are compared against (1 under strictMode). */
  readonly threshold: number
  readonly options: ResolvedMetricOptions
  /** The class name shown in messages, e.g. `GEval`. */
  readonly #type: string
  /** `measure` takes `trials` and `aggregate` (see measureTrials). */
  readonly [RUNS_OWN_TRIALS] = true

  /**
   * @param options the options your users pass: the common ones and `name`; any other key is reported.
   * @param defaults `name`: the metric's name when the options give none.
   */
  constructor(options: BaseMetricOptions = {}, defaults: { readonly name?: string | undefined } = {}) {
    const checked = (defaults as { [CHECKED]?: { type: string; options: ResolvedMetricOptions } })[CHECKED]
    const type = checked?.type ?? (new.target.name || 'BaseMetric')
    let resolved = checked?.options
    if (resolved === undefined) {
      const spec = { expected: 'an options object or nothing', defaultName: defaults.name }
      resolved = checkMetricOptions(type, options, spec).options
    }
    this.#type = type
    this.options = resolved
    this.name = resolved.name
    this.threshold = resolved.strictMode ? 1 : resolved.threshold
  }

  /** Scores one validated test case, from 0 to 1. */
  protected abstract score(testCase: TestCase, ctx: MetricContext): MetricScore | Promise<MetricScore>

  /**
   * Scores one test case, as many times as `trials` says. Never rejects: a bad test case, a judge failure or a bug
   * is a result with `error`.
   */
  async measure(testCase: TestCase, options: MeasureOptions = {}): Promise<MetricResult> {
    const started = performance.now()
    let result: MetricResult
    try {
      // Most calls pass no options: those need no schema (nor the text that names the call in its errors).
      const given = isEmptyObject(options)
        ? NO_OPTIONS
        : parseOptions(measureOptionsSchema, options, `${this.#type} "${this.name}".measure(testCase, options)`)
      const signal = given.signal === undefined ? undefined : relayOf(given.signal)
      const { trials, untilDecided } = given.trials === undefined ? this.options : trialsOf(given.trials)
      const aggregate = given.aggregate ?? this.options.aggregate
      const parsed = this.parse(testCase)
      if (trials === 1 && !untilDecided) {
        // #measureOnce written out: one async layer less on every measurement.
        const ctx = new Measurement(this.options, signal, undefined, started)
        try {
          result = await this.run(parsed, ctx)
        } catch (error) {
          result = ctx.fail(error)
        }
      } else {
        // The calls the trials share (ctx.once), by key: one map per measurement.
        const shared = new Map<string, Promise<unknown>>()
        const once = () => this.#measureOnce(parsed, new Measurement(this.options, signal, shared))
        const line = untilDecided ? (given.minPassProbability ?? this.options.minPassProbability) : undefined
        const results =
          line === undefined ? await runTrials(trials, once) : await runTrialsUntilDecided(trials, line, once)
        result = combineTrials(started, results, aggregate, this.options.includeReason, line)
      }
    } catch (error) {
      result = errorResult({ options: this.options, started }, error)
    }
    // verboseMode is an explicit request to print, like the reference library's; reports use verboseLogs instead.
    if (this.options.verboseMode) console.log(`${'─'.repeat(60)}\n${renderResult(result)}\n${'─'.repeat(60)}`)
    return result
  }

  async #measureOnce(testCase: TestCase, ctx: Measurement): Promise<MetricResult> {
    try {
      return await this.run(testCase, ctx)
    } catch (error) {
      return ctx.fail(error)
    }
  }

  /**
   * Measures a validated test case through its recorder: `score()`, then strict mode and the result. A built-in
   * metric whose result needs more (a DAG walk's own trace layout) finishes it itself. What it throws becomes the
   * result's error (METRIC_FAILED unless a judgetree error).
   */
  protected async run(testCase: TestCase, ctx: Measurement): Promise<MetricResult> {
    const { raw, reason, passProbability } = checkScore(await this.score(testCase, ctx), this.name)
    return ctx.finish(raw, reason, undefined, passProbability)
  }

  /** What to use instead, said when a test case of the other kind is passed. */
  protected otherKindHint(): string {
    return this.kind === 'single-turn'
      ? 'Use a conversational metric such as ConversationalGEval instead.'
      : 'Use a single-turn metric such as GEval instead.'
  }

  /** Validates the test case for this metric's kind, with a hint when the other kind was passed. */
  protected parse(testCase: unknown): TestCase {
    const looksLike = (present: string, absent: string) =>
      typeof testCase === 'object' && testCase !== null && present in testCase && !(absent in testCase)
    if (this.kind === 'single-turn') {
      if (looksLike('turns', 'input')) {
        throw new TestCaseError(
          `The metric "${this.name}" is a ${this.#type}, which judges single-turn test cases ({ input, actualOutput }), but it ` +
            `was given a conversation ({ turns }). ${this.otherKindHint()}`,
        )
      }
      return parseLLMTestCase(testCase, this.name) as TestCase
    }
    if (looksLike('input', 'turns')) {
      throw new TestCaseError(
        `The metric "${this.name}" is a ${this.#type}, which judges conversations ({ turns: [...] }), but it was given a ` +
          `single-turn test case ({ input, ... }). ${this.otherKindHint()}`,
      )
    }
    return parseConversationalTestCase(testCase, this.name) as TestCase
  }
}

function checkScore(
  outcome: MetricScore,
  metric: string,
): { raw: number; reason: string | undefined; passProbability: PassProbability | undefined } {
  const raw = typeof outcome === 'number' ? outcome : (outcome as { score?: unknown } | undefined)?.score
  const given = typeof outcome === 'object' && outcome !== null ? outcome : undefined
  const reason = given?.reason
  const passProbability = given?.passProbability
  if (typeof raw !== 'number' || !(raw >= 0 && raw <= 1) || (reason !== undefined && typeof reason !== 'string')) {
    throw new JudgetreeError(
      'METRIC_FAILED',
      `The metric "${metric}" failed: score() must return a number from 0 to 1, or { score, reason? } with a ` +
        `string reason; got ${describeValue(outcome)}.`,
    )
  }
  if (passProbability !== undefined && !isPassProbability(passProbability)) {
    throw new JudgetreeError(
      'METRIC_FAILED',
      `The metric "${metric}" failed: score() returned a passProbability that is not { p, low, high, expectedScore, ` +
        `source, pivot } with 0 <= low <= p <= high <= 1; got ${describeValue(passProbability)}.`,
    )
  }
  return { raw, reason, passProbability }
}

function isPassProbability(value: PassProbability): boolean {
  const { p, low, high, expectedScore, source } = value as Partial<PassProbability>
  const unit = (number: unknown): number is number => typeof number === 'number' && number >= 0 && number <= 1
  return (
    unit(p) &&
    unit(low) &&
    unit(high) &&
    unit(expectedScore) &&
    low <= p &&
    p <= high &&
    ['judge', 'trials'].includes(source as string)
  )
}

const NO_OPTIONS: MeasureOptions = Object.freeze({})

/** A plain object with no keys of its own or inherited: options that set nothing, valid without a check. */
function isEmptyObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false
  for (const _ in value) return false
  return true
}

/** One relay per caller's signal: every measurement listens to the relay, so the caller's signal gets one listener. */
const relays = new WeakMap<AbortSignal, AbortSignal>()

/** The signal a measurement listens to: many measurements may share one caller's signal without a MaxListenersExceededWarning. */
function relayOf(signal: AbortSignal): AbortSignal {
  let relay = relays.get(signal)
  if (relay === undefined) {
    const controller = new AbortController()
    setMaxListeners(0, controller.signal)
    if (signal.aborted) controller.abort(signal.reason)
    else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true })
    relay = controller.signal
    relays.set(signal, relay)
  }
  return relay
}
