import { setMaxListeners } from 'node:events'
import { ConfigurationError, TestCaseError } from '../errors.js'
import { describeValue } from '../internal/describe-value.js'
import { runTrials } from '../runtime/trial-batch.js'
import { parseConversationalTestCase, parseLLMTestCase } from '../test-case/parse.js'
import type { ConversationalTestCase, LLMTestCase } from '../test-case/schemas.js'
import { renderResult } from '../trace/render.js'
import {
  aggregateOption,
  type CommonMetricOptions,
  checkKnownOptions,
  OptionProblems,
  type ResolvedMetricOptions,
  resolveCommonOptions,
  type TrialAggregate,
  trialsOption,
} from './options.js'
import { errorResult, type MeasurementContext } from './result.js'
import { combineTrials, RUNS_OWN_TRIALS } from './trial-result.js'
import type { MeasureOptions, Metric, MetricResult } from './types.js'

/** The kind a metric declares for the test cases it judges. */
export type KindOf<TestCase> = TestCase extends ConversationalTestCase ? 'conversational' : 'single-turn'

/** What a metric's constructor checks beyond its own options. */
export interface OptionSpec {
  /** Every option key the metric takes; any other key is reported. */
  readonly keys: readonly string[]
  /** The problem reported when the options are not an object. */
  readonly notAnObject: (options: unknown) => string
  /** The name used when the options give none. @default none: `name` is required */
  readonly defaultName?: string | undefined
}

/**
 * Checks a metric's options: the shape, unknown keys, the common options and then the metric's own (`extras`), and
 * throws one ConfigurationError listing every problem.
 */
export function checkMetricOptions<Options extends CommonMetricOptions & { name?: unknown }, Extra extends object>(
  type: string,
  options: Options,
  spec: OptionSpec,
  extras: (options: Options, problems: OptionProblems) => Extra,
): Extra & { readonly options: ResolvedMetricOptions } {
  const problems = new OptionProblems(`${type} "${String(options?.name ?? spec.defaultName)}"`)
  if (typeof options !== 'object' || options === null) {
    problems.add(spec.notAnObject(options))
    problems.throwIfAny()
  }
  checkKnownOptions(options, spec.keys, problems)
  const resolved = resolveCommonOptions(options, problems, spec.defaultName)
  const extra = extras(options, problems)
  problems.throwIfAny()
  return { ...extra, options: resolved }
}

/**
 * What every metric shares: its fields, validation of the test case by kind, timing, the error result for
 * anything thrown, and verbose printing. A metric implements `run` on a validated test case.
 */
export abstract class MetricBase<TestCase extends LLMTestCase | ConversationalTestCase> implements Metric<TestCase> {
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

  protected constructor(type: string, options: ResolvedMetricOptions) {
    this.#type = type
    this.options = options
    this.name = options.name
    this.threshold = options.strictMode ? 1 : options.threshold
  }

  /**
   * Scores one test case, as many times as `trials` says. Never rejects: a bad test case, a judge failure or a bug
   * is a result with `error`.
   */
  async measure(testCase: TestCase, options: MeasureOptions = {}): Promise<MetricResult> {
    const measurement: MeasurementContext = { options: this.options, started: performance.now() }
    let result: MetricResult
    try {
      const signal = measureSignal(options, this.name)
      const { trials, aggregate } = this.#trialOptions(options)
      const parsed = this.parse(testCase)
      result =
        trials === 1
          ? await this.run(parsed, measurement, signal)
          : await this.#runTrials(parsed, measurement, signal, trials, aggregate)
    } catch (error) {
      result = errorResult(measurement, error)
    }
    // verboseMode is an explicit request to print, like the reference library's; reports use verboseLogs instead.
    if (this.options.verboseMode) console.log(`${'─'.repeat(60)}\n${renderResult(result)}\n${'─'.repeat(60)}`)
    return result
  }

  /** The measurement's trials and aggregate: the metric's own unless `measure` was given others. */
  #trialOptions(options: MeasureOptions): { trials: number; aggregate: TrialAggregate } {
    if (options.trials === undefined && options.aggregate === undefined) return this.options
    const problems = new OptionProblems(`${this.#type} "${this.name}".measure(testCase, options)`)
    const trials = options.trials === undefined ? this.options.trials : trialsOption(options.trials, problems)
    const aggregate =
      options.aggregate === undefined ? this.options.aggregate : aggregateOption(options.aggregate, problems)
    problems.throwIfAny()
    return { trials, aggregate }
  }

  /** Runs the trials side by side, their identical judge calls shared (see TrialGroup), and combines them. */
  async #runTrials(
    testCase: TestCase,
    measurement: MeasurementContext,
    signal: AbortSignal | undefined,
    trials: number,
    aggregate: TrialAggregate,
  ): Promise<MetricResult> {
    const results = await runTrials(trials, async () => {
      const own: MeasurementContext = { options: this.options, started: performance.now() }
      try {
        return await this.run(testCase, own, signal)
      } catch (error) {
        return errorResult(own, error)
      }
    })
    return combineTrials(measurement.started, results, aggregate, this.options.includeReason)
  }

  /** Measures a validated test case. What it throws becomes the result's error (METRIC_FAILED unless a judgetree error). */
  protected abstract run(
    testCase: TestCase,
    measurement: MeasurementContext,
    signal: AbortSignal | undefined,
  ): Promise<MetricResult>

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

/** One relay per caller's signal: every measurement listens to the relay, so the caller's signal gets one listener. */
const relays = new WeakMap<AbortSignal, AbortSignal>()

/**
 * The signal a measurement listens to, checked: a bad `options` is a ConfigurationError (an error result, since
 * measure never throws). Many measurements may share one caller's signal without a MaxListenersExceededWarning.
 */
function measureSignal(options: unknown, metric: string): AbortSignal | undefined {
  if (options === undefined) return undefined
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError(
      `The metric "${metric}": measure(testCase, options) takes an options object ({ signal, trials, aggregate }) or nothing; got ` +
        `${describeValue(options)}.`,
    )
  }
  const signal = (options as { signal?: unknown }).signal
  if (signal === undefined) return undefined
  // By shape, not instanceof: a signal from another realm (jsdom, a worker) is still a signal.
  const shaped = signal as Partial<AbortSignal> | null
  if (typeof shaped?.aborted !== 'boolean' || typeof shaped.addEventListener !== 'function') {
    throw new ConfigurationError(
      `The metric "${metric}": measure()'s \`signal\` must be an AbortSignal (e.g. AbortSignal.timeout(60_000) or ` +
        `an AbortController's signal); got ${describeValue(signal)}.`,
    )
  }
  return relayOf(signal as AbortSignal)
}

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
