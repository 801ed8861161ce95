import { errorAt } from '../errors.js'
import { abortable } from '../internal/jobs.js'
import { messageOf } from '../internal/text.js'
import type { JudgeRequest, JudgeResponse } from '../judge/types.js'
import { outsideTrials } from '../runtime/trial-batch.js'
import { formatScore } from '../trace/render.js'
import { noPassProbabilityText } from '../trace/render-pass-probability.js'
import type { MetricTrace, TraceNode } from '../trace/types.js'
import {
  addNote,
  callJudge,
  type DecisionFields,
  decisionFields,
  type JudgeCall,
  localCheckNote,
  samplingNote,
  stepNode,
} from './judge-call.js'
import { type ResolvedMetricOptions, routed } from './options.js'
import { buildResult, errorResult } from './result.js'
import { applyStrictMode } from './score.js'
import type { Metric, MetricResult, MetricUsage, PassProbability } from './types.js'
import { addUsage, NO_USAGE } from './usage.js'

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
  /**
   * Runs `call` once for every trial of the measurement (see `trials`), outside the trials: a judge call made inside
   * is asked once, not sampled once per trial. The trials that did not make it share its outcome. `key` names the
   * call among the measurement's shared calls.
   */
  once<T>(key: string, call: () => Promise<T>): Promise<T>
}

/** What a trace entry shows before its judge call answers: its kind, name, text and the turns it reads. */
export interface EntryBase {
  readonly kind: string
  readonly label: string
  readonly text: string
  readonly turnWindow?: readonly [number, number] | undefined
}

/** What a judge call's entry shows of its answer. */
export type AnswerFields = Pick<
  TraceNode,
  'verdict' | 'reason' | 'output' | 'outputLabel' | 'probabilities' | 'decidedBy' | 'jury'
>

/** A judge call of a built-in metric: the request and how its trace entry reads. */
export interface RecordedRequest<T> extends Omit<JudgeRequest<T>, 'signal'> {
  /** How the entry shows the answer. @default the answer as JSON */
  readonly show?: ((answer: T, response: JudgeResponse<T>) => AnswerFields) | undefined
  /**
   * Where a failure is said to be, in front of its message; `false` leaves the error as it is, for a caller that
   * names the place itself. @default `The judge call "<label>"`
   */
  readonly where?: string | false | undefined
  /** Note the answer's local-only check when it answers; `false` leaves that to the caller (`checkedLocally`). @default true */
  readonly noteCheck?: boolean | undefined
}

/** A place in the trace, taken when a step starts so that concurrent steps keep the order they were asked in. */
export class TraceSlot {
  readonly #recorder: Measurement
  readonly #index: number
  readonly #base: EntryBase & { readonly id: string }

  /** @internal */
  constructor(recorder: Measurement, index: number, base: EntryBase) {
    this.#recorder = recorder
    this.#index = index
    this.#base = Object.assign({ id: `n${index + 1}` }, base)
  }

  /** The entry's id in the trace, e.g. `n2`. */
  get id(): string {
    return this.#base.id
  }

  /** Asks the judge for this entry: times the call, counts its usage, and fills the entry with what it answered. */
  async judge<T>(request: RecordedRequest<T>, signal = this.#recorder.signal): Promise<JudgeCall<T>> {
    const { show, where, noteCheck, ...asked } = request
    const { judge, request: judgeRequest, logprobsAdded } = routed(this.#recorder.options, asked)
    let call: JudgeCall<T>
    try {
      call = await callJudge(judge, judgeRequest, signal)
    } catch (error) {
      this.fail(error)
      throw where === false ? error : errorAt(error, where ?? `The judge call "${this.#base.label}"`)
    }
    if (noteCheck !== false) this.#recorder.checkedLocally(call.response)
    const shown = show ? show(call.value, call.response) : { output: JSON.stringify(call.value), outputLabel: 'answer' }
    const decision =
      judgeRequest.question === undefined ? undefined : decisionFields(judge, call.response, logprobsAdded)
    const fields = decision === undefined ? shown : { ...shown, ...decision }
    this.ran(fields, { usage: call.usage, latencyMs: call.latencyMs, cached: call.response.cached })
    return call
  }

  /** Fills the entry as a step that ran, with what it found and, when it asked the judge, the call's usage. */
  ran(
    fields: AnswerFields,
    call?: { readonly usage: MetricUsage; readonly latencyMs?: number | undefined; readonly cached?: boolean },
  ): void {
    const measured =
      call === undefined
        ? {}
        : {
            usage: call.usage,
            ...(call.latencyMs === undefined ? {} : { latencyMs: Math.round(call.latencyMs), cached: call.cached }),
          }
    if (call !== undefined) this.#recorder.bill(call.usage)
    this.#recorder.fill(this.#index, stepNode({ ...this.#base, ...fields, step: this.#index + 1, ...measured }))
  }

  /** Fills the entry as failed, or as skipped when the measurement stopped before it (a stop is no failure here). */
  fail(error: unknown, stoppedBecause?: string): void {
    const stopped = (error as { code?: unknown } | undefined)?.code === 'MEASUREMENT_ABORTED'
    this.#recorder.fill(
      this.#index,
      stopped && stoppedBecause !== undefined
        ? stepNode({ ...this.#base, status: 'skipped', skipCause: 'stopped', skippedBecause: stoppedBecause })
        : stepNode({ ...this.#base, status: 'failed', error: messageOf(error) }),
    )
  }
}

/**
 * The recorder of one measurement (one trial of it, with `trials`): its judge calls, steps and notes in the order
 * they were started, their usage and timing, and the result it finishes with. Every metric, built-in or a user's
 * BaseMetric, records through it; `score()` sees it as its {@link MetricContext}.
 */
export class Measurement implements MetricContext {
  readonly options: ResolvedMetricOptions
  readonly signal: AbortSignal | undefined
  /** `performance.now()` when the measurement started. */
  readonly started: number
  readonly #nodes: (TraceNode | undefined)[] = []
  readonly #notes: string[] = []
  /** The calls shared by the trials of one measurement, by key (see `once`); made at the first, for one trial. */
  #shared: Map<string, Promise<unknown>> | undefined
  #usage: MetricUsage = NO_USAGE
  #passProbabilityUnavailable: string | undefined
  #explored: readonly TraceNode[] | undefined

  /** `shared` is the map of the calls the trials of one measurement share; one trial alone needs none. */
  constructor(
    options: ResolvedMetricOptions,
    signal: AbortSignal | undefined,
    shared?: Map<string, Promise<unknown>>,
    started = performance.now(),
  ) {
    this.options = options
    this.signal = signal
    this.started = started
    this.#shared = shared
  }

  get usage(): MetricUsage {
    return this.#usage
  }

  async judge<T>(request: MetricJudgeRequest<T>): Promise<T> {
    const { label, text, ...judgeRequest } = request
    const slot = this.slot({ kind: 'JudgeCall', label, text: text ?? judgeRequest.schemaName })
    return (await slot.judge(judgeRequest)).value
  }

  step(step: MetricStep): void {
    const { label, text, verdict, reason, output } = step
    this.slot({ kind: 'Step', label, text }).ran({ verdict, reason, output })
  }

  note(text: string): void {
    this.#notes.push(text)
  }

  async once<T>(key: string, call: () => Promise<T>): Promise<T> {
    return (await this.shared(key, call)).value
  }

  /** As `once`, also saying whether this trial made the call (`owner`) or shares another's outcome. */
  async shared<T>(key: string, call: () => Promise<T>): Promise<{ readonly value: T; readonly owner: boolean }> {
    this.#shared ??= new Map()
    let outcome = this.#shared.get(key) as Promise<T> | undefined
    const owner = outcome === undefined
    if (outcome === undefined) {
      outcome = outsideTrials(call)
      // Each trial that waits hears of a failure; when every one has stopped waiting, nobody is left to.
      outcome.catch(() => {})
      this.#shared.set(key, outcome)
    }
    // The call is shared, so no single trial's signal may cancel it; each one only stops waiting.
    return { value: await abortable(outcome, this.signal), owner }
  }

  /** Takes the next place in the trace. */
  slot(base: EntryBase): TraceSlot {
    return new TraceSlot(this, this.#nodes.push(undefined) - 1, base)
  }

  /**
   * A child recorder for one part of the measurement whose trace entry its owner lays out (a DAG node, the DAG's
   * reason summary); `signal` is the part's own, when its owner can stop it earlier than the measurement.
   */
  child(signal: AbortSignal | undefined = this.signal): MeasurementPart {
    return new MeasurementPart(this, signal)
  }

  /**
   * Notes, once, that the server did not hold an answer to its schema, so that only local validation checked it, and
   * that the answer was made without a sampling setting the model refused.
   */
  checkedLocally(response: JudgeResponse<unknown>): void {
    this.noteOnce(localCheckNote(response))
    this.noteOnce(samplingNote(response))
  }

  /** Adds a remark unless the trace has it already (every call of one refused schema gives the same one). */
  noteOnce(text: string | undefined): void {
    addNote(this.#notes, text)
  }

  /**
   * Says why the result has no pass probability: `decision` (e.g. `[n1] “Polite?”`) was answered as a point, for
   * `why`. The result carries it, with how to get one, when it has no `passProbability`.
   */
  noPassProbability(decision: string, why: string): void {
    this.#passProbabilityUnavailable ??= noPassProbabilityText(decision, why)
  }

  /** Adds usage to the measurement's: its trace slots' and its child recorders' calls. */
  bill(usage: MetricUsage): void {
    this.#usage = addUsage(this.#usage, usage)
  }

  /** @internal Fills a slot taken with `slot`. */
  fill(index: number, node: TraceNode): void {
    this.#nodes[index] = node
  }

  /** Adds entries laid out elsewhere (a DAG walk lays out its own), keeping their ids. */
  adopt(nodes: readonly TraceNode[]): void {
    this.#nodes.push(...nodes)
  }

  /** Keeps the entries of a DAG's explored branches, shown apart from the path (see `MetricTrace.explored`). */
  adoptExplored(nodes: readonly TraceNode[]): void {
    if (nodes.length > 0) this.#explored = nodes
  }

  trace(roots?: readonly string[]): MetricTrace {
    const nodes = this.#nodes.filter((node) => node !== undefined)
    const trace = {
      metric: this.options.name,
      nodes,
      roots: roots ?? nodes.map((node) => node.id),
      notes: [...this.#notes],
    }
    return this.#explored === undefined ? trace : { ...trace, explored: this.#explored }
  }

  /**
   * Applies strict mode to a score from 0 to 1, noting when it zeroes the score (`strictNote` words that note; the
   * default is every metric's).
   */
  strict(
    raw: number,
    strictNote = (score: number) => `strict mode: the score ${formatScore(score)} is below 1, so it counts as 0`,
  ): { readonly score: number; readonly threshold: number } {
    const { score, threshold } = applyStrictMode(raw, this.options.threshold, this.options.strictMode)
    if (score !== raw) this.note(strictNote(raw))
    return { score, threshold }
  }

  /** The result of a scored measurement; the reason is kept only with `includeReason`. */
  result(
    score: number,
    threshold: number,
    reason: string | undefined,
    roots?: readonly string[],
    passProbability?: PassProbability,
  ): MetricResult {
    return buildResult(this, {
      score,
      threshold,
      reason: this.options.includeReason ? reason : undefined,
      trace: this.trace(roots),
      usage: this.#usage,
      passProbability,
      passProbabilityUnavailable: this.#passProbabilityUnavailable,
    })
  }

  /**
   * Finishes the measurement with a score from 0 to 1: applies strict mode (and notes it), and builds the result. A
   * reason given as a function gets the final score.
   */
  finish(
    raw: number,
    reason?: string | ((score: number) => string),
    roots?: readonly string[],
    passProbability?: PassProbability,
  ): MetricResult {
    const { score, threshold } = this.strict(raw)
    return this.result(score, threshold, typeof reason === 'function' ? reason(score) : reason, roots, passProbability)
  }

  /** Finishes the measurement that could not score: it fails with the error, its trace and usage so far. */
  fail(error: unknown, roots?: readonly string[]): MetricResult {
    return errorResult(this, error, this.trace(roots), this.#usage)
  }
}

/**
 * The child recorder of one part of a measurement whose trace entry its owner lays out: a DAG node, or the DAG's
 * reason summary. It asks the measurement's judge and measures child metrics under the part's signal, times them and
 * counts their usage for the part's entry, bills that usage to the measurement at once, and keeps the remarks on
 * the judge's answers until its owner hands them over (`keepNotes`), so that they read in the owner's order (a
 * DAG's step order), not in the order the calls answered.
 */
export class MeasurementPart {
  readonly #measurement: Measurement
  readonly #signal: AbortSignal | undefined
  /** Made at the first remark: most parts have none. */
  #notes: string[] | undefined
  #usage: MetricUsage = NO_USAGE
  #latencyMs = 0
  #metric: MetricResult | undefined
  #decision: DecisionFields | undefined

  /** @internal */
  constructor(measurement: Measurement, signal: AbortSignal | undefined) {
    this.#measurement = measurement
    this.#signal = signal
  }

  /** The usage of the part's own judge calls (a child metric's stays in its result). */
  get usage(): MetricUsage {
    return this.#usage
  }

  /** How long the part's judge calls and child metric took, in milliseconds. */
  get latencyMs(): number {
    return this.#latencyMs
  }

  /** Whether every one of the part's judge calls, at least one, was answered from the cache. */
  get cached(): boolean {
    return this.#usage.judgeCalls > 0 && this.#usage.cachedCalls === this.#usage.judgeCalls
  }

  /** The result of the child metric the part measured, if it measured one. */
  get metric(): MetricResult | undefined {
    return this.#metric
  }

  /** The probabilities and decision judge of the part's decision, if it asked one and the judge gave them. */
  get decision(): DecisionFields | undefined {
    return this.#decision
  }

  /**
   * Asks the measurement's judge, or its decision judge for a decision (see callJudge for what a failure or a stop
   * throws); resolves to the answer.
   */
  async judge<T>(asked: Omit<JudgeRequest<T>, 'signal'>): Promise<T> {
    const { judge, request, logprobsAdded } = routed(this.#measurement.options, asked)
    const call = await callJudge(judge, request, this.#signal)
    if (request.question !== undefined) this.#decision = decisionFields(judge, call.response, logprobsAdded)
    this.#latencyMs += call.latencyMs
    this.#usage = addUsage(this.#usage, call.usage)
    this.#measurement.bill(call.usage)
    const checkNote = localCheckNote(call.response)
    const settingNote = samplingNote(call.response)
    if (checkNote !== undefined || settingNote !== undefined) {
      this.#notes ??= []
      addNote(this.#notes, checkNote)
      addNote(this.#notes, settingNote)
    }
    return call.value
  }

  /** Measures a child metric on the test case; its result never rejects, so its error is the caller's to judge. */
  async measure(metric: Metric<never>, testCase: unknown): Promise<MetricResult> {
    const started = performance.now()
    const result = await metric.measure(testCase as never, { signal: this.#signal })
    this.#latencyMs += performance.now() - started
    this.#metric = result
    this.#measurement.bill(result.usage)
    return result
  }

  /** Hands the part's remarks to the measurement's trace, each once. */
  keepNotes(): void {
    for (const note of this.#notes ?? NO_NOTES) this.#measurement.noteOnce(note)
  }
}

const NO_NOTES: readonly string[] = Object.freeze([])
