import type { JudgetreeError } from '../errors.js'
import type { ConversationalTestCase, LLMTestCase } from '../test-case/schemas.js'
import type { MetricTrace } from '../trace/types.js'
import type { TrialAggregate, TrialsUntilDecided } from './options.js'

/** Judge calls and their cost, for one measurement or summed over a run. */
export interface MetricUsage {
  /**
   * Judge calls: requests to the judge, including those the cache answered instead. Samples asked together (trials
   * through OpenAI's `n`, a decision model's batch) are one call, whether live or replayed.
   */
  readonly judgeCalls: number
  /** Of `judgeCalls`, those answered from the cache or shared with an identical call: requests not made, not billed. */
  readonly cachedCalls: number
  readonly promptTokens: number
  readonly completionTokens: number
  /**
   * Of `promptTokens`, those the provider read from its prompt cache and billed at the cached-input price; present
   * when a judge call reported the count (OpenAI's `prompt_tokens_details.cached_tokens`). Not judgetree's cache.
   */
  readonly cachedPromptTokens?: number | undefined
  /**
   * Of `completionTokens`, those a reasoning model spent thinking (billed as output, never shown); present when a
   * judge call reported the count (OpenAI's `completion_tokens_details.reasoning_tokens`).
   */
  readonly reasoningTokens?: number | undefined
  /** USD; undefined when any call's price was unknown. */
  readonly costUsd: number | undefined
  /** With a jury (see `jury()`): each juror's own calls, tokens and cost, by juror name. Absent without one. */
  readonly jurors?: Readonly<Record<string, MetricUsage>> | undefined
  /** With a jury: the decisions it made, and on how many all the jurors it asked gave the same verdict. */
  readonly juryDecisions?: JuryDecisions | undefined
}

/** A jury's decisions in a measurement (or a run), and how many were unanimous. */
export interface JuryDecisions {
  readonly decided: number
  readonly unanimous: number
}

/** One trial of a measurement run with `trials`. */
export interface TrialResult {
  /** 1-based. */
  readonly trial: number
  readonly score: number
  /** This trial's score against the threshold, with no error. */
  readonly success: boolean
  readonly reason: string | undefined
  readonly error: JudgetreeError | undefined
  readonly trace: MetricTrace
  readonly verboseLogs: string
  readonly usage: MetricUsage
}

/** How far apart the trials' scores are. */
export interface TrialSpread {
  readonly min: number
  readonly max: number
  /** Population standard deviation of the scores. */
  readonly stdev: number
}

/** The decision on the walked path whose chosen verdict had the lowest probability: where the doubt sits. */
export interface PassPivot {
  /** The trace entry's id, e.g. `n3`. */
  readonly node: string
  /** Its label, or its criteria when it has none. */
  readonly label: string
  /** The verdict it chose (the most probable one, or with trials the most frequent). */
  readonly verdict: string | boolean
  /** That verdict's probability (with trials, the share of the trials that chose it). */
  readonly probability: number
}

/**
 * The chance that the measurement passes (DESIGN.md §9): computed from the judge's distributions over the verdicts
 * (`source: 'judge'`), or from the pass rate of trials (`source: 'trials'`, with its 95% Wilson interval).
 */
export interface PassProbability {
  /** The estimate, 0..1: the midpoint of `low` and `high` when branches not walked (or trials) leave it bounded. */
  readonly p: number
  /** The lowest it can be: every branch not walked counted as failing (with trials, the interval's lower end). */
  readonly low: number
  /** The highest it can be: every branch not walked counted as passing (with trials, the interval's upper end). */
  readonly high: number
  /** The probability-weighted score, 0..1 (with trials, the mean of their scores). */
  readonly expectedScore: number
  readonly source: 'judge' | 'trials'
  /** The decision whose chosen verdict was least probable; undefined when no decision was uncertain. */
  readonly pivot: PassPivot | undefined
  /**
   * With `trials: { max, until: 'decided' }`: `decided` when the interval cleared `minPassProbability` before `max`
   * trials, `undecided` when `max` was reached first.
   */
  readonly stopped?: 'decided' | 'undecided' | undefined
}

/** The immutable outcome of one `metric.measure(testCase)`. */
export interface MetricResult {
  /** The metric's name as shown in reports, e.g. `Instruction Following [ConversationalDAG]`. */
  readonly name: string
  /** 0..1; 0 when the metric could not be computed (see `error`). */
  readonly score: number
  /** The threshold the score was compared against (1 under strictMode). */
  readonly threshold: number
  /** `score >= threshold` and no error. */
  readonly success: boolean
  /** Why the score is what it is; undefined when `includeReason` is false. */
  readonly reason: string | undefined
  readonly strictMode: boolean
  /** Set when the metric could not be computed: a judge failure, a missing parameter, no verdict reached. */
  readonly error: JudgetreeError | undefined
  /** What the metric did, step by step: the structured form of `verboseLogs`. */
  readonly trace: MetricTrace
  /** The trace rendered as an indented tree for a terminal. */
  readonly verboseLogs: string
  readonly usage: MetricUsage
  readonly durationMs: number
  /** The judge model's name. */
  readonly judgeModel: string
  /** The decision judge's name, when the metric sends its decisions to one (`decisionModel`). */
  readonly decisionModel?: string | undefined
  /**
   * Present when the measurement ran several trials (`trials` above 1): each trial's outcome, in trial order. The
   * result's `score` is then their `aggregate`, its `trace` the trials' traces merged (with counts per path), and
   * its `usage` their sum.
   */
  readonly trials?: readonly TrialResult[] | undefined
  /** How the trials' scores were combined; present with `trials`. */
  readonly aggregate?: TrialAggregate | undefined
  /** The share of trials that passed, 0..1; present with `trials`. */
  readonly passRate?: number | undefined
  /** The lowest and highest trial score and their standard deviation; present with `trials`. */
  readonly spread?: TrialSpread | undefined
  /**
   * The chance that the measurement passes, when the judge gave distributions for every verdict that matters or
   * trials ran; absent otherwise (judgetree never reports a probability it does not have). See docs/trials.md.
   */
  readonly passProbability?: PassProbability | undefined
  /**
   * With a jury (see `jury()`): the share of its decisions, 0..1, on which every juror it asked gave the same
   * verdict. Absent without a jury, or when it made no decision.
   */
  readonly agreement?: number | undefined
  /**
   * Why a built-in metric that could give `passProbability` gives none (a decision answered as a point, and why), and
   * how to get one: `topLogprobs` with a chat judge that returns logprobs, a `decisionModel`, or `trials`.
   */
  readonly passProbabilityUnavailable?: string | undefined
  /**
   * The pass probability `success` also required (`minPassProbability` of `toPassMetric`, evaluate() or
   * calibrate()): the result passes only when its `passProbability.p` is at least this. Absent when none was asked.
   */
  readonly minPassProbability?: number | undefined
}

/** Per-call options for `measure()`. */
export interface MeasureOptions {
  /** Cancels in-flight judge calls; the measurement then fails with a `MEASUREMENT_ABORTED` error. */
  readonly signal?: AbortSignal | undefined
  /** Overrides the metric's `trials` for this measurement (a number, or `{ max, until: 'decided' }`). */
  readonly trials?: number | TrialsUntilDecided | undefined
  /** Overrides the metric's `aggregate` for this measurement. */
  readonly aggregate?: TrialAggregate | undefined
  /** Overrides the metric's `minPassProbability`: the line `trials: { max, until: 'decided' }` stops at. */
  readonly minPassProbability?: number | undefined
}

/** Which kind of test case a metric judges. */
export type MetricKind = 'single-turn' | 'conversational'

/** Anything judgetree can measure a test case with: built-in metrics, DAGs, your own. */
export interface Metric<TestCase = LLMTestCase | ConversationalTestCase> {
  readonly name: string
  readonly kind: MetricKind
  readonly threshold: number
  measure(testCase: TestCase, options?: MeasureOptions): Promise<MetricResult>
}

/** A metric that judges single-turn test cases. */
export type SingleTurnMetric = Metric<LLMTestCase>
/** A metric that judges whole conversations. */
export type ConversationalMetric = Metric<ConversationalTestCase>
