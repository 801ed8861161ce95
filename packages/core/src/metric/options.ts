import { isJury } from '../judge/jury-mark.js'
import type { JudgeModel } from '../judge/types.js'
import { withDefaultRuntime } from '../runtime/judge-runtime.js'

/** Options every built-in metric takes. */
export interface CommonMetricOptions {
  /** The lowest passing score, 0..1. @default 0.5 */
  threshold?: number | undefined
  /** A model name for the built-in OpenAI judge, or any {@link JudgeModel}. @default process.env.JUDGETREE_MODEL ?? 'gpt-6-luna' */
  model?: string | JudgeModel | undefined
  /**
   * A decision judge (OpenAIDecisionJudge, aiSdkDecisionJudge, or a model name for OpenAIDecisionJudge) that answers
   * the metric's decisions (judgements, verdicts, G-Eval's score) with probabilities; everything else (tasks, G-Eval
   * steps, statements, a summarised reason) still goes to `model`. See docs/providers.md.
   * @default process.env.JUDGETREE_DECISION_MODEL (none when unset: `model` answers everything)
   */
  decisionModel?: string | JudgeModel | undefined
  /** Explain the score in `result.reason`. @default true */
  includeReason?: boolean | undefined
  /** Pass only on a perfect score: the threshold becomes 1 and any score below 1 becomes 0. @default false */
  strictMode?: boolean | undefined
  /** Run independent judge calls concurrently. @default true */
  asyncMode?: boolean | undefined
  /** Print the trace to the console when each measurement ends. @default false */
  verboseMode?: boolean | undefined
  /**
   * Measure this many times, with sampling on (temperature 1 unless the judge has its own), and combine the scores
   * with `aggregate`; the result keeps every trial and its `passProbability` (the pass rate with its 95% Wilson
   * interval). `{ max, until: 'decided' }` stops as soon as that interval lies wholly above or below
   * `minPassProbability`. See docs/trials.md. @default 1
   */
  trials?: number | TrialsUntilDecided | undefined
  /**
   * How the trials' scores combine: `'mean'`, `'median'`, `'min'`, or `'majority'` (passes when more than half
   * the trials pass). @default 'mean'
   */
  aggregate?: TrialAggregate | undefined
  /** The pass probability `trials: { until: 'decided' }` decides against. @default 0.5 */
  minPassProbability?: number | undefined
}

/** The option of the metrics whose decisions a chat judge can answer with probabilities read from its logprobs. */
export interface DecisionLogprobsOptions {
  /**
   * Ask a chat judge for this many alternatives per token with each decision (a judgement, a relevancy verdict), so
   * that its answer token's logprobs give the decision's probabilities and the result a `passProbability`. Off by
   * default: asking changes the cache keys, and reasoning models (like the default gpt-6-luna) refuse logprobs. A
   * `decisionModel` gives probabilities without it. See docs/trust.md. @default 0 (no logprobs: each decision is a point)
   */
  topLogprobs?: number | undefined
}

/** The pass probability `trials: { until: 'decided' }` decides against when none is given. */
export const DEFAULT_MIN_PASS_PROBABILITY = 0.5

/** `trials: { max, until: 'decided' }`: sample until the verdict is clear, at most `max` times. */
export interface TrialsUntilDecided {
  readonly max: number
  readonly until: 'decided'
}

/** The options after defaults, with the judge resolved. */
export interface ResolvedMetricOptions {
  readonly name: string
  readonly threshold: number
  readonly judge: JudgeModel
  /** The judge that answers decisions (requests with a `question`), when the metric has one besides `judge`. */
  readonly decisionJudge: JudgeModel | undefined
  readonly includeReason: boolean
  readonly strictMode: boolean
  readonly asyncMode: boolean
  readonly verboseMode: boolean
  /** How many trials; with `untilDecided`, the most. */
  readonly trials: number
  /** Stop the trials once the pass probability's interval clears `minPassProbability`. */
  readonly untilDecided: boolean
  readonly minPassProbability: number
  readonly aggregate: TrialAggregate
  /**
   * Alternatives per token a chat judge is asked for with each decision that asks for none itself (the metric's
   * `topLogprobs`, for the metrics that take it); 0 asks for none.
   */
  readonly decisionLogprobs: number
}

/**
 * The options every metric shares after defaults, once their schema passed them (checkMetricOptions) and `model`
 * resolved to `judge`. Every judge answers through a runtime (cache, limits): the process's default unless one was
 * wrapped already; building that reads the environment (JUDGETREE_CACHE, …), whose errors are thrown as they are,
 * not as this metric's options.
 */
export function resolveCommonOptions(
  options: CommonMetricOptions & DecisionLogprobsOptions & { name?: unknown },
  judge: JudgeModel,
  defaultName?: string,
  decisionJudge?: JudgeModel,
): ResolvedMetricOptions {
  return {
    // `undefined` is "use the default"; the schema let no other non-string through.
    name: (options.name ?? defaultName) as string,
    threshold: options.threshold ?? 0.5,
    judge: withDefaultRuntime(judge),
    decisionJudge: decisionJudge === undefined ? undefined : withDefaultRuntime(decisionJudge),
    includeReason: options.includeReason ?? true,
    strictMode: options.strictMode ?? false,
    asyncMode: options.asyncMode ?? true,
    verboseMode: options.verboseMode ?? false,
    ...trialsOf(options.trials),
    minPassProbability: options.minPassProbability ?? DEFAULT_MIN_PASS_PROBABILITY,
    aggregate: options.aggregate ?? 'mean',
    decisionLogprobs: options.topLogprobs ?? 0,
  }
}

/** The number of trials, and whether to stop once decided, from the `trials` option's two forms. */
export function trialsOf(trials: number | TrialsUntilDecided | undefined): {
  readonly trials: number
  readonly untilDecided: boolean
} {
  if (trials === undefined) return { trials: 1, untilDecided: false }
  return typeof trials === 'number' ? { trials, untilDecided: false } : { trials: trials.max, untilDecided: true }
}

/**
 * The judge that answers `request`: the decision judge for a decision (a request with a `question`), when the
 * metric has one; the metric's judge otherwise.
 */
export function judgeFor(options: ResolvedMetricOptions, request: { readonly question?: unknown }): JudgeModel {
  return request.question !== undefined && options.decisionJudge !== undefined ? options.decisionJudge : options.judge
}

/**
 * The judge that answers `request` and the request as it is sent: a decision going to a chat judge (or to a jury
 * with a chat juror) asks for the metric's `decisionLogprobs` (unless it asks for logprobs itself), so that its answer token gives its probabilities.
 * `logprobsAdded` says the metric's option asked for them, so a decision without probabilities can say why.
 */
export function routed<Request extends { readonly question?: unknown; readonly topLogprobs?: number | undefined }>(
  options: ResolvedMetricOptions,
  request: Request,
): { readonly judge: JudgeModel; readonly request: Request; readonly logprobsAdded: boolean } {
  const judge = judgeFor(options, request)
  const add =
    request.question !== undefined &&
    request.topLogprobs === undefined &&
    options.decisionLogprobs > 0 &&
    answersInChat(judge)
  return add
    ? { judge, request: { ...request, topLogprobs: options.decisionLogprobs }, logprobsAdded: true }
    : { judge, request, logprobsAdded: false }
}

/** True when a chat model answers (some of) `judge`'s decisions: itself, or a juror of a jury whatever juror leads. */
function answersInChat(judge: JudgeModel): boolean {
  return isJury(judge) ? judge.jurors.some((juror) => juror.decides !== true) : judge.decides !== true
}

/** How the scores of several trials combine into the result's score. */
export type TrialAggregate = 'mean' | 'median' | 'min' | 'majority'

/** Every {@link TrialAggregate}, in the order messages list them. */
export const TRIAL_AGGREGATES: readonly TrialAggregate[] = ['mean', 'median', 'min', 'majority']

/**
 * The most trials one measurement may run. Past a few dozen samples the aggregate barely moves, while every trial
 * can cost a judge call per step; a larger number is far more likely a slip (`1e9`) than a wish.
 */
export const MAX_TRIALS = 100
