import { z } from 'zod'
import { describeGiven, expecting } from '../internal/options.js'
import { topLogprobsSchema } from '../metric/measure-options.js'
import type { CommonMetricOptions } from '../metric/options.js'

/** One rubric entry: scores from `scoreRange[0]` to `scoreRange[1]` (inclusive) mean `expectedOutcome`. */
export interface Rubric {
  /** Whole numbers within 0..10 with start <= end; the ranges of one rubric never overlap. */
  scoreRange: readonly [number, number]
  /** What a test case scoring in this range looks like. */
  expectedOutcome: string
}

/** Options GEval and ConversationalGEval share. */
export interface GEvalBaseOptions extends CommonMetricOptions {
  /** Identifies the metric in reports. */
  name: string
  /** What to judge, in plain words; evaluation steps are generated from it once per metric. Give this or evaluationSteps. */
  criteria?: string | undefined
  /** The exact steps the judge follows. Give this or criteria. */
  evaluationSteps?: readonly string[] | undefined
  /** Score ranges with the outcome each stands for; the score range becomes min start..max end. @default 0..10 */
  rubric?: readonly Rubric[] | undefined
  /** Alternatives per token to request for the probability-weighted score (OpenAI allows 0..20); 0 uses the raw score. @default 20 */
  topLogprobs?: number | undefined
}

/** A G-Eval metric's checked definition. */
export interface GEvalDefinition {
  readonly criteria: string | undefined
  readonly evaluationSteps: readonly string[] | undefined
  /** Sorted by start. */
  readonly rubric: readonly Rubric[] | undefined
  readonly scoreRange: readonly [number, number]
  readonly topLogprobs: number
}

const text = z.string().refine((value) => value.trim().length > 0)

/**
 * The options GEval and ConversationalGEval take beyond the common ones. `evaluationParams` differs between the two
 * and `rubric` needs rules across its entries: each metric checks those itself (checkGEvalOptions, the params checks).
 */
export const gevalShape = {
  criteria: expecting(text, 'a non-empty string').optional(),
  evaluationSteps: expecting(
    z.array(text).min(1),
    'a non-empty array of non-empty strings, one instruction each',
  ).optional(),
  evaluationParams: z.unknown().optional(),
  rubric: z.unknown().optional(),
  topLogprobs: topLogprobsSchema('turns the probability-weighted score off').optional(),
}

/** Checks what the options' schema cannot: criteria or evaluationSteps (one of them), and the rubric. */
export function checkGEvalOptions(options: GEvalBaseOptions, problems: string[]): GEvalDefinition {
  const { criteria, evaluationSteps } = options
  const hasCriteria = criteria !== undefined
  const hasSteps = evaluationSteps !== undefined
  if (hasCriteria === hasSteps) {
    problems.push(
      hasCriteria
        ? 'give either criteria or evaluationSteps, not both: keep evaluationSteps to fix the steps yourself, or criteria to have them generated.'
        : 'needs criteria (what to judge, in plain words; steps are generated from it) or evaluationSteps (the exact steps the judge follows).',
    )
  }
  const { rubric, scoreRange } = checkRubric(options.rubric, problems)
  return {
    criteria: hasCriteria && !hasSteps ? criteria : undefined,
    // Copied only when an array: otherwise the schema reported it, and the metric throws before using it.
    evaluationSteps: Array.isArray(evaluationSteps) ? Object.freeze([...evaluationSteps]) : undefined,
    rubric,
    scoreRange,
    topLogprobs: options.topLogprobs ?? 20,
  }
}

function checkRubric(
  value: unknown,
  problems: string[],
): { rubric: readonly Rubric[] | undefined; scoreRange: readonly [number, number] } {
  const fallback = { rubric: undefined, scoreRange: [0, 10] as const }
  if (value === undefined) return fallback
  if (!Array.isArray(value) || value.length === 0) {
    problems.push(
      `Expected \`rubric\` to be a non-empty array of { scoreRange: [start, end], expectedOutcome }, or left out, got ${describeGiven(value)}.`,
    )
    return fallback
  }
  const entries: Rubric[] = []
  for (const [index, entry] of value.entries()) {
    const range = (entry as { scoreRange?: unknown } | null)?.scoreRange
    const outcome = (entry as { expectedOutcome?: unknown } | null)?.expectedOutcome
    const rangeValid =
      Array.isArray(range) &&
      range.length === 2 &&
      range.every((end) => Number.isInteger(end) && end >= 0 && end <= 10) &&
      range[0] <= range[1]
    if (!rangeValid) {
      problems.push(
        `Expected \`rubric[${index}].scoreRange\` to be [start, end]: two whole numbers from 0 to 10 with start <= end, got ${describeGiven(range)}.`,
      )
    }
    if (!(typeof outcome === 'string' && outcome.trim().length > 0)) {
      problems.push(
        `Expected \`rubric[${index}].expectedOutcome\` to be a non-empty string describing that range, got ${describeGiven(outcome)}.`,
      )
    }
    if (rangeValid && typeof outcome === 'string') {
      entries.push(
        Object.freeze({ scoreRange: Object.freeze([range[0], range[1]] as const), expectedOutcome: outcome }),
      )
    }
  }
  entries.sort((a, b) => a.scoreRange[0] - b.scoreRange[0])
  for (const [index, entry] of entries.entries()) {
    const next = entries[index + 1]
    if (next && next.scoreRange[0] <= entry.scoreRange[1]) {
      problems.push(
        `rubric ranges [${entry.scoreRange.join(', ')}] and [${next.scoreRange.join(', ')}] overlap at ${next.scoreRange[0]}; ` +
          'make each range end before the next one starts, e.g. [0, 3] and [4, 10].',
      )
    }
  }
  if (entries.length !== value.length) return fallback
  const low = Math.min(...entries.map((entry) => entry.scoreRange[0]))
  const high = Math.max(...entries.map((entry) => entry.scoreRange[1]))
  if (low === high) {
    problems.push(`rubric covers only the score ${low}; it needs at least two scores, e.g. [0, 4] and [5, 10].`)
    return fallback
  }
  return { rubric: Object.freeze(entries), scoreRange: [low, high] }
}
