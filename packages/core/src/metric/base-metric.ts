import { errorAt, JudgetreeError } from '../errors.js'
import { describeValue } from '../internal/describe-value.js'
import { messageOf } from '../internal/text.js'
import type { JudgeRequest } from '../judge/types.js'
import type { ConversationalTestCase, LLMTestCase } from '../test-case/schemas.js'
import { formatScore } from '../trace/render.js'
import type { MetricTrace, TraceNode } from '../trace/types.js'
import { addNote, callJudge, localCheckNote, stepNode } from './judge-call.js'
import { checkMetricOptions, MetricBase } from './metric-base.js'
import { COMMON_OPTION_KEYS, type CommonMetricOptions, type ResolvedMetricOptions } from './options.js'
import { buildResult, errorResult, type MeasurementContext } from './result.js'
import { applyStrictMode } from './score.js'
import type { MetricResult, MetricUsage } from './types.js'
import { addUsage, NO_USAGE } from './usage.js'

/** Options every metric built on {@link BaseMetric} takes. */
export interface BaseMetricOptions extends CommonMetricOptions {
  /** Identifies the metric in reports. @default the name the subclass passes to `super` */
  name?: string | undefined
}

/** What `score()` returns: a score from 0 to 1, alone or with the reason shown when `includeReason` is on. */
export type MetricScore = number | { readonly score: number; readonly reason?: string | undefined }

/** A judge call made through {@link MetricContext.judge}: a JudgeRequest without `signal`, named for the trace. */
export interface MetricJudgeRequest<T> extends Omit<JudgeRequest<T>, 'signal'> {
  /** Names the call in the trace, e.g. `Promises made`. */
  readonly label: string
  /** What the call asks, shown in the trace. @default the schemaName */
  readonly text?: string | undefined
}

/** A trace entry for a step that needs no judge call, such as a check in code. */
export interface MetricStep {
  /** Names the step in the trace, e.g. `Forbidden words`. */
  readonly label: string
  /** What the step checks. */
  readonly text: string
  /** What it found, e.g. `true` or `'none'`. */
  readonly verdict?: string | boolean | undefined
  readonly reason?: string | undefined
  readonly output?: string | undefined
}

/** What a metric's `score()` judges with: the options, the measurement's signal, its judge and its trace. */
export interface MetricContext {
  /** The metric's options after defaults: threshold, strictMode, includeReason, asyncMode, the judge. */
  readonly options: ResolvedMetricOptions
  /** Aborts when the measurement is cancelled; `judge` honours it already. */
  readonly signal: AbortSignal | undefined
  /**
   * Asks the metric's judge through the process's judge runtime (cache, concurrency and rate limits), honouring the
   * measurement's signal; counts the call in `result.usage` and adds it to the trace. Resolves to the validated answer.
   */
  judge<T>(request: MetricJudgeRequest<T>): Promise<T>
  /** Adds a step without a judge call to the trace. */
  step(step: MetricStep): void
  /** Adds a metric-level remark to the trace. */
  note(text: string): void
}

/**
 * The base of your own metric: implement `score()` and get the common options, test-case validation by kind,
 * timing, the immutable result, usage and the trace, like the built-in metrics. Judge calls go through `ctx.judge`.
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
export abstract class BaseMetric<TestCase extends LLMTestCase | ConversationalTestCase> extends MetricBase<TestCase> {
  /**
   * @param options the options your users pass: the common ones and `name`; any other key is reported.
   * @param defaults `name`: the metric's name when the options give none.
   */
  constructor(options: BaseMetricOptions = {}, defaults: { readonly name?: string | undefined } = {}) {
    const type = new.target.name || 'BaseMetric'
    const spec = {
      keys: COMMON_OPTION_KEYS,
      notAnObject: (value: unknown) =>
        `new ${type}(options) takes an options object (or nothing); got ${describeValue(value)}.`,
      defaultName: defaults.name,
    }
    super(type, checkMetricOptions(type, options, spec, () => ({})).options)
  }

  /** Scores one validated test case, from 0 to 1. */
  protected abstract score(testCase: TestCase, ctx: MetricContext): MetricScore | Promise<MetricScore>

  protected override async run(
    testCase: TestCase,
    measurement: MeasurementContext,
    signal: AbortSignal | undefined,
  ): Promise<MetricResult> {
    const ctx = new Measurement(this.options, signal)
    let raw: number
    let reason: string | undefined
    try {
      const outcome = await this.score(testCase, ctx)
      ;({ raw, reason } = checkScore(outcome, this.name))
    } catch (error) {
      return errorResult(measurement, error, ctx.trace(), ctx.usage)
    }
    const { score, threshold } = applyStrictMode(raw, this.options.threshold, this.options.strictMode)
    if (score !== raw) ctx.note(`strict mode: the score ${formatScore(raw)} is below 1, so it counts as 0`)
    return buildResult(measurement, {
      score,
      threshold,
      reason: this.options.includeReason ? reason : undefined,
      trace: ctx.trace(),
      usage: ctx.usage,
    })
  }
}

function checkScore(outcome: MetricScore, metric: string): { raw: number; reason: string | undefined } {
  const raw = typeof outcome === 'number' ? outcome : (outcome as { score?: unknown } | undefined)?.score
  const reason = typeof outcome === 'object' && outcome !== null ? outcome.reason : undefined
  if (typeof raw !== 'number' || !(raw >= 0 && raw <= 1) || (reason !== undefined && typeof reason !== 'string')) {
    throw new JudgetreeError(
      'METRIC_FAILED',
      `The metric "${metric}" failed: score() must return a number from 0 to 1, or { score, reason? } with a ` +
        `string reason; got ${describeValue(outcome)}.`,
    )
  }
  return { raw, reason }
}

/** One measurement's judge calls, steps and notes, in the order they were started. */
class Measurement implements MetricContext {
  readonly options: ResolvedMetricOptions
  readonly signal: AbortSignal | undefined
  readonly #nodes: (TraceNode | undefined)[] = []
  readonly #notes: string[] = []
  #usage: MetricUsage = NO_USAGE

  constructor(options: ResolvedMetricOptions, signal: AbortSignal | undefined) {
    this.options = options
    this.signal = signal
  }

  get usage(): MetricUsage {
    return this.#usage
  }

  async judge<T>(request: MetricJudgeRequest<T>): Promise<T> {
    const { label, text, ...judgeRequest } = request
    // The slot is taken when the call starts, so concurrent calls keep the order the metric asked in.
    const slot = this.#nodes.push(undefined) - 1
    const entry = { id: `n${slot + 1}`, kind: 'JudgeCall', label, text: text ?? judgeRequest.schemaName }
    try {
      const call = await callJudge(this.options.judge, judgeRequest, this.signal)
      this.#usage = addUsage(this.#usage, call.usage)
      addNote(this.#notes, localCheckNote(call.response))
      this.#nodes[slot] = stepNode({
        ...entry,
        output: JSON.stringify(call.value),
        outputLabel: 'answer',
        step: slot + 1,
        usage: call.usage,
        latencyMs: Math.round(call.latencyMs),
        cached: call.response.cached,
      })
      return call.value
    } catch (error) {
      this.#nodes[slot] = stepNode({ ...entry, status: 'failed', error: messageOf(error) })
      throw errorAt(error, `The judge call "${label}"`)
    }
  }

  step(step: MetricStep): void {
    const slot = this.#nodes.push(undefined) - 1
    const { label, text, verdict, reason, output } = step
    this.#nodes[slot] = stepNode({
      id: `n${slot + 1}`,
      kind: 'Step',
      label,
      text,
      verdict,
      reason,
      output,
      step: slot + 1,
    })
  }

  note(text: string): void {
    this.#notes.push(text)
  }

  trace(): MetricTrace {
    const nodes = this.#nodes.filter((node) => node !== undefined)
    return { metric: this.options.name, nodes, roots: nodes.map((node) => node.id), notes: [...this.#notes] }
  }
}
