import { ConfigurationError } from '../errors.js'
import { closestName } from '../internal/closest-name.js'
import { describeValue } from '../internal/describe-value.js'
import { resolveJudge } from '../judge/resolve-judge.js'
import type { JudgeModel } from '../judge/types.js'
import { withDefaultRuntime } from '../runtime/judge-runtime.js'

/** The keys of {@link CommonMetricOptions} plus `name`, which every metric takes. */
export const COMMON_OPTION_KEYS = [
  'name',
  'threshold',
  'model',
  'includeReason',
  'strictMode',
  'asyncMode',
  'verboseMode',
  'trials',
  'aggregate',
] as const

/** Options every built-in metric takes. */
export interface CommonMetricOptions {
  /** The lowest passing score, 0..1. @default 0.5 */
  threshold?: number | undefined
  /** A model name for the built-in OpenAI judge, or any {@link JudgeModel}. @default process.env.JUDGETREE_MODEL ?? 'gpt-6-luna' */
  model?: string | JudgeModel | undefined
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
   * with `aggregate`; the result keeps every trial. See docs/trials.md. @default 1
   */
  trials?: number | undefined
  /**
   * How the trials' scores combine: `'mean'`, `'median'`, `'min'`, or `'majority'` (passes when more than half
   * the trials pass). @default 'mean'
   */
  aggregate?: TrialAggregate | undefined
}

/** The options after defaults, with the judge resolved. */
export interface ResolvedMetricOptions {
  readonly name: string
  readonly threshold: number
  readonly judge: JudgeModel
  readonly includeReason: boolean
  readonly strictMode: boolean
  readonly asyncMode: boolean
  readonly verboseMode: boolean
  readonly trials: number
  readonly aggregate: TrialAggregate
}

/** Collects the problems with one metric's options and throws them together as a ConfigurationError. */
export class OptionProblems {
  readonly #problems: string[] = []
  readonly #metric: string

  constructor(metric: string) {
    this.#metric = metric
  }

  add(message: string): void {
    this.#problems.push(message)
  }

  throwIfAny(): void {
    if (this.#problems.length === 0) return
    const list = this.#problems.map((problem) => `  - ${problem}`).join('\n')
    throw new ConfigurationError(`Invalid options for ${this.#metric}:\n${list}`)
  }
}

/** Checks and defaults the options every metric shares, reporting problems on `problems`. */
export function resolveCommonOptions(
  options: CommonMetricOptions & { name?: unknown },
  problems: OptionProblems,
  defaultName?: string,
): ResolvedMetricOptions {
  // `undefined` is "use the default"; `null` is a value, and fails the checks below like any other wrong one.
  const name = options.name === undefined ? defaultName : options.name
  if (typeof name !== 'string' || name.trim().length === 0) {
    problems.add(`name must be a non-empty string that identifies the metric in reports; got ${describeValue(name)}.`)
  }
  const threshold = options.threshold === undefined ? 0.5 : options.threshold
  if (typeof threshold !== 'number' || !(threshold >= 0 && threshold <= 1)) {
    problems.add(
      `threshold must be a number from 0 to 1 (a score of 0.7 passes a threshold of 0.7); got ${describeValue(threshold)}.`,
    )
  }
  const flags = ['includeReason', 'strictMode', 'asyncMode', 'verboseMode'] as const
  for (const flag of flags) {
    const value = options[flag]
    if (value !== undefined && typeof value !== 'boolean') {
      problems.add(`${flag} must be true or false; got ${describeValue(value)}.`)
    }
  }
  const trials = trialsOption(options.trials, problems)
  const aggregate = aggregateOption(options.aggregate, problems)
  let judge: JudgeModel | undefined
  try {
    judge = resolveJudge(options.model)
  } catch (error) {
    problems.add(error instanceof Error ? error.message : String(error))
  }
  // Every judge answers through a runtime (cache, limits): the process's default unless one was wrapped already.
  // Building that reads the environment (JUDGETREE_CACHE, …): its errors are thrown as they are, not as this
  // metric's options.
  if (judge !== undefined) judge = withDefaultRuntime(judge)
  return {
    name: typeof name === 'string' ? name : '',
    threshold,
    judge: judge as JudgeModel,
    includeReason: options.includeReason ?? true,
    strictMode: options.strictMode ?? false,
    asyncMode: options.asyncMode ?? true,
    verboseMode: options.verboseMode ?? false,
    trials,
    aggregate,
  }
}

/** Reports option keys the metric does not know, suggesting the name meant (another case, or a typo: closestName). */
export function checkKnownOptions(options: object, known: readonly string[], problems: OptionProblems): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue
    const match = closestName(key, known)
    problems.add(
      match
        ? `unknown option \`${key}\`; did you mean \`${match}\`?`
        : `unknown option \`${key}\`; the options are ${known.map((name) => `\`${name}\``).join(', ')}.`,
    )
  }
}

/** Checks an optional whole-number option, returning the default when it is absent or invalid. */
export function wholeNumberOption(
  value: unknown,
  name: string,
  range: { readonly min: number; readonly max?: number },
  fallback: number,
  problems: OptionProblems,
  hint: string,
): number {
  if (value === undefined) return fallback
  const { min, max } = range
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && (max === undefined || value <= max)) {
    return value
  }
  const bounds = max === undefined ? `from ${min} and up` : `from ${min} to ${max}`
  problems.add(`${name} must be a whole number ${bounds} (${hint}); got ${describeValue(value)}.`)
  return fallback
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

/** Checks `trials`, returning 1 (a single measurement) when it is absent or invalid. */
export function trialsOption(value: unknown, problems: OptionProblems, where = 'trials'): number {
  if (value === undefined) return 1
  if (isTrialCount(value)) return value
  problems.add(`${where} ${trialsProblem(value)}; got ${describeValue(value)}.`)
  return 1
}

/** True for a valid `trials`: a whole number from 1 to {@link MAX_TRIALS}. */
function isTrialCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_TRIALS
}

/** What a wrong `trials` should have been, for messages that name the option their own way. */
function trialsProblem(value: unknown): string {
  return typeof value === 'number' && value > MAX_TRIALS
    ? `must be at most ${MAX_TRIALS} (each trial may cost a judge call per step, and the aggregate of a few dozen ` +
        'trials is already steady)'
    : `must be a whole number from 1 to ${MAX_TRIALS} (how many times to measure, e.g. 5)`
}

/** Checks `aggregate`, returning 'mean' when it is absent or invalid. */
export function aggregateOption(value: unknown, problems: OptionProblems, where = 'aggregate'): TrialAggregate {
  if (value === undefined) return 'mean'
  if (TRIAL_AGGREGATES.includes(value as TrialAggregate)) return value as TrialAggregate
  const valid = TRIAL_AGGREGATES.map((name) => `'${name}'`).join(', ')
  problems.add(`${where} must be one of ${valid} (how the trials' scores combine); got ${describeValue(value)}.`)
  return 'mean'
}
