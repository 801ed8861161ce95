import { z } from 'zod'
import { expecting, flagSchema } from '../internal/options.js'
import { MAX_TRIALS, TRIAL_AGGREGATES } from './options.js'

// The schemas of the options a measurement takes (MeasureOptions) and of those every metric's constructor takes
// (CommonMetricOptions): shared by the metrics, measureTrials and the matchers' toPassMetric, so each option is one
// rule with one wording everywhere.

/** `trials`: a whole number from 1 to {@link MAX_TRIALS}. */
export const trialsSchema = expecting(z.number().int().min(1).max(MAX_TRIALS), (given) =>
  typeof given === 'number' && given > MAX_TRIALS
    ? `at most ${MAX_TRIALS} (each trial may cost a judge call per step, and the aggregate of a few dozen trials ` +
      'is already steady)'
    : `a whole number from 1 to ${MAX_TRIALS} (how many times to measure, e.g. 5)`,
)

/** `trials: { max, until: 'decided' }`: sample until the pass probability's interval clears the line, at most `max`. */
const untilDecidedSchema = z.strictObject({ max: z.number().int().min(1).max(MAX_TRIALS), until: z.literal('decided') })

/**
 * `trials`: how many times to measure (worded as {@link trialsSchema} for a number), or `{ max, until: 'decided' }` to
 * stop once the verdict is clear.
 */
export const trialsOptionSchema = expecting(z.union([trialsSchema, untilDecidedSchema]), (given) =>
  typeof given === 'object' && given !== null
    ? `{ max, until: 'decided' } with max a whole number from 1 to ${MAX_TRIALS} (sample until the pass ` +
      `probability's 95% interval lies wholly above or below minPassProbability, at most max times), e.g. { max: 10, until: 'decided' }`
    : typeof given === 'number' && given > MAX_TRIALS
      ? `at most ${MAX_TRIALS} (each trial may cost a judge call per step, and the aggregate of a few dozen trials ` +
        'is already steady)'
      : `a whole number from 1 to ${MAX_TRIALS} (how many times to measure, e.g. 5)`,
)

/** `minPassProbability`: the line `trials: { until: 'decided' }` stops at, once the interval clears it. */
export const minPassProbabilitySchema = expecting(
  z.number().gt(0).lt(1),
  'a number between 0 and 1, exclusive (the pass probability the verdict must clear, e.g. 0.9)',
)

/**
 * `topLogprobs`: alternatives per token to ask a chat judge for (OpenAI returns at most 20); `zero` says what 0 does
 * for the metric that takes it.
 */
export function topLogprobsSchema(zero: string) {
  return expecting(
    z.number().int().min(0).max(20),
    `a whole number from 0 to 20 (OpenAI returns at most 20 alternatives per token; 0 ${zero})`,
  )
}

/**
 * The option of the metrics whose decisions a chat judge can answer with logprobs (DAG and relevancy metrics): off
 * by default, since asking changes the cache keys and reasoning models refuse logprobs.
 */
export const decisionLogprobsShape = {
  topLogprobs: topLogprobsSchema('asks for none, so each decision is a point').optional(),
}

/** `explore`: the probability at or above which a DAG's unchosen verdicts are walked too (0: never). */
export const exploreSchema = expecting(
  z.number().min(0).max(1),
  "a probability from 0 to 1 (walk unchosen verdicts at least this probable, to narrow passProbability's bounds; 0 never does)",
)

/** `aggregate`: how the trials' scores combine. */
export const aggregateSchema = expecting(
  z.enum(TRIAL_AGGREGATES as ['mean', 'median', 'min', 'majority']),
  `one of ${TRIAL_AGGREGATES.map((name) => `'${name}'`).join(', ')} (how the trials' scores combine)`,
)

/** `threshold`: the lowest passing score. */
export const thresholdSchema = expecting(
  z.number().min(0).max(1),
  'a number from 0 to 1 (a score of 0.7 passes a threshold of 0.7)',
)

/**
 * `signal`: an AbortSignal, recognised by shape rather than `instanceof`, so that a signal from another realm (Jest's
 * VM context, jsdom, a worker) is still one.
 */
export const signalSchema = expecting(
  z.custom<AbortSignal>((value) => {
    const shaped = value as Partial<AbortSignal> | null | undefined
    return typeof shaped?.aborted === 'boolean' && typeof shaped.addEventListener === 'function'
  }),
  'an AbortSignal (such as controller.signal or AbortSignal.timeout(30_000))',
)

/** The options of `measure(testCase, options)` and `measureTrials`. */
export const measureOptionsSchema = expecting(
  z.strictObject({
    signal: signalSchema.optional(),
    trials: trialsOptionSchema.optional(),
    aggregate: aggregateSchema.optional(),
    minPassProbability: minPassProbabilitySchema.optional(),
  }),
  'an options object ({ signal, trials, aggregate }) or nothing',
)

/** `name`: what identifies a metric in reports. */
export const metricNameSchema = expecting(
  z.string().refine((name) => name.trim().length > 0),
  'a non-empty string that identifies the metric in reports',
)

/**
 * The options every metric's constructor takes (CommonMetricOptions and `name`), as the shape a metric's own schema
 * extends. `model` and `decisionModel` are checked when they are resolved to judges (resolveJudge and
 * resolveDecisionJudge word their own problems).
 */
export function metricOptionsShape(nameRequired: boolean) {
  return {
    name: nameRequired ? metricNameSchema : metricNameSchema.optional(),
    threshold: thresholdSchema.optional(),
    model: z.unknown().optional(),
    decisionModel: z.unknown().optional(),
    includeReason: flagSchema.optional(),
    strictMode: flagSchema.optional(),
    asyncMode: flagSchema.optional(),
    verboseMode: flagSchema.optional(),
    trials: trialsOptionSchema.optional(),
    aggregate: aggregateSchema.optional(),
    minPassProbability: minPassProbabilitySchema.optional(),
  }
}
