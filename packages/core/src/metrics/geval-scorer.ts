import { type ScoreWeighting, weightScore } from '../judge/logprob-score.js'
import type { JudgeQuestion, JudgeResponse } from '../judge/types.js'
import { callJudge, type JudgeCall, whyNoProbabilities } from '../metric/judge-call.js'
import type { Measurement } from '../metric/measurement.js'
import type { ResolvedMetricOptions } from '../metric/options.js'
import { judged, passOf } from '../metric/pass-probability.js'
import { clampScore } from '../metric/score.js'
import type { MetricUsage, PassPivot, PassProbability } from '../metric/types.js'
import { NO_USAGE, usageOf } from '../metric/usage.js'
import { GEVAL_SCORE_PROMPT, gevalScorePrompt, gevalScoreSchema } from '../prompts/geval-score.js'
import { GEVAL_STEPS_PROMPT, type GEvalFields, gevalStepsPrompt, gevalStepsSchema } from '../prompts/geval-steps.js'
import { GEVAL_STRICT_PROMPT, gevalStrictPrompt, gevalStrictSchema } from '../prompts/geval-strict.js'
import { formatProbability, formatScore } from '../trace/render.js'
import type { GEvalDefinition } from './geval-rubric.js'

type StepsCall = JudgeCall<{ steps: string[] }>
type StepsOutcome =
  | { readonly source: 'given'; readonly steps: readonly string[] }
  | {
      readonly source: 'judged'
      readonly steps: readonly string[]
      readonly usage: MetricUsage
      readonly latencyMs: number
      readonly cached: boolean
      readonly response: JudgeCall<unknown>['response']
    }

const STEPS_NOTES = {
  given: 'evaluation steps: given in evaluationSteps (no judge call)',
  judged:
    'evaluation steps: generated from the criteria once for this metric and shared by its measurements (1 judge call, billed to the first to ask, cached for the others)',
} as const

/**
 * The G-Eval algorithm both G-Eval metrics share: evaluation steps (given, or generated once per metric and shared
 * by every measurement), one score judgement, the probability-weighted score, normalisation and strict mode.
 */
export class GEvalScorer {
  readonly #definition: GEvalDefinition
  readonly #options: ResolvedMetricOptions
  readonly #fields: GEvalFields
  readonly #scoreSchema: ReturnType<typeof gevalScoreSchema>
  #steps: Promise<StepsCall> | undefined

  constructor(definition: GEvalDefinition, options: ResolvedMetricOptions, fields: GEvalFields) {
    this.#definition = definition
    this.#options = options
    this.#fields = fields
    // One schema object per metric, so the judge converts it to JSON schema once.
    this.#scoreSchema = gevalScoreSchema(...definition.scoreRange)
  }

  /**
   * Scores the data the metric prepared from a test case: the steps (shared by the trials of a measurement through
   * the recorder), then one score judgement, normalised to 0..1. Its failures are the judge's, as they are.
   */
  async score(
    data: unknown,
    ctx: Measurement,
  ): Promise<{ score: number; reason: string; passProbability: PassProbability | undefined }> {
    const { criteria, scoreRange, rubric, topLogprobs } = this.#definition
    const stepsSlot = ctx.slot({
      kind: 'GEvalSteps',
      label: 'Evaluation steps',
      text: criteria ?? 'given in evaluationSteps',
    })
    let steps: StepsOutcome
    try {
      steps = await this.#stepsFor(ctx)
    } catch (error) {
      stepsSlot.fail(error)
      throw error
    }
    const listed = steps.steps.map((step, index) => `${index + 1}. ${step}`).join('\n')
    stepsSlot.ran({ output: listed, outputLabel: 'steps' }, steps.source === 'judged' ? steps : { usage: NO_USAGE })
    ctx.note(STEPS_NOTES[steps.source])
    if (steps.source === 'judged') ctx.checkedLocally(steps.response)

    if (this.#options.strictMode) return this.#strict(steps.steps, data, ctx)
    const [low, high] = scoreRange
    const withLogprobs = topLogprobs > 0
    let weighting: ScoreWeighting = rawBecause(0)
    const scoreSlot = ctx.slot({ kind: 'GEvalScore', label: 'Score', text: this.#scaleText() })
    const call = await scoreSlot.judge({
      messages: gevalScorePrompt(steps.steps, scoreRange, rubric, this.#fields.conversational, data),
      schema: this.#scoreSchema,
      schemaName: 'geval_score',
      promptVersion: GEVAL_SCORE_PROMPT,
      question: this.#question(steps.steps, data),
      ...(withLogprobs ? { topLogprobs } : {}),
      where: false,
      noteCheck: false,
      show: ({ score: raw, reason }, response) => {
        weighting =
          response.distribution !== undefined && response.logprobs === undefined
            ? decided(raw, response.distribution)
            : withLogprobs
              ? weigh(raw, response, scoreRange)
              : rawBecause(raw)
        return {
          verdict: weighting.mode === 'weighted' ? `${raw} (weighted ${round(weighting.score)})` : String(raw),
          reason,
        }
      },
    })
    ctx.note(weighting.note)
    ctx.checkedLocally(call.response)
    const raw = call.value.score
    const normalised = clampScore((weighting.score - low) / (high - low))
    const pivot = { node: scoreSlot.id, label: 'Score', verdict: String(raw) }
    const passProbability = scorePassProbability(weighting, scoreRange, this.#options.threshold, pivot)
    if (passProbability === undefined) {
      ctx.noPassProbability(`[${scoreSlot.id}] “Score”`, weighting.note.replace(/^raw score: /, ''))
    }
    return {
      score: normalised,
      reason: this.#reason(raw, weighting, normalised, call.value.reason),
      passProbability,
    }
  }

  /**
   * Strict mode passes only the top score, so the judge is asked just that, yes or no (a predicate, as a decision
   * judge is asked it too); with logprobs, the probability of yes is the chance of passing.
   */
  async #strict(
    steps: readonly string[],
    data: unknown,
    ctx: Measurement,
  ): Promise<{ score: number; reason: string; passProbability: PassProbability | undefined }> {
    const { scoreRange, rubric, topLogprobs } = this.#definition
    const [low, high] = scoreRange
    const slot = ctx.slot({ kind: 'GEvalScore', label: 'Score', text: `the top score, ${high}?` })
    const call = await slot.judge({
      messages: gevalStrictPrompt(steps, scoreRange, rubric, this.#fields.conversational, data),
      schema: gevalStrictSchema,
      schemaName: 'geval_strict',
      promptVersion: GEVAL_STRICT_PROMPT,
      question: this.#question(steps, data),
      ...(topLogprobs > 0 ? { topLogprobs } : {}),
      where: false,
      noteCheck: false,
      show: ({ score: top, reason }) => ({ verdict: String(scoreOf(top, scoreRange)), reason }),
    })
    ctx.checkedLocally(call.response)
    const { score: top, reason } = call.value as { score: boolean; reason?: string }
    const yes = call.response.distribution?.true
    const pivot = { node: slot.id, label: 'Score', verdict: String(scoreOf(top, scoreRange)) }
    const passProbability =
      yes === undefined
        ? undefined
        : judged({ p: yes, expectedScore: yes }, { ...pivot, probability: top ? yes : 1 - yes })
    if (passProbability === undefined) {
      const why = topLogprobs > 0 ? whyNoProbabilities(call.response) : 'logprobs were not requested (topLogprobs is 0)'
      ctx.noPassProbability(`[${slot.id}] “Score”`, why)
    }
    const chance = yes === undefined ? '' : ` (probability ${formatProbability(top ? yes : 1 - yes)})`
    const because = reason === undefined ? '' : ` ${reason.trim()}`
    return {
      score: top ? 1 : 0,
      reason: `The judge decided the data ${top ? 'earns' : 'does not earn'} the top score, ${high} on ${low}–${high}${chance}, which is ${top ? 1 : 0}.${because}`,
      passProbability,
    }
  }

  /** The steps: given, or generated once per metric; a trial that did not ask for them is billed nothing. */
  async #stepsFor(ctx: Measurement): Promise<StepsOutcome> {
    const given = this.#definition.evaluationSteps
    if (given) return { source: 'given', steps: given }
    const waiting = performance.now()
    const { value, owner } = await ctx.shared('geval-steps', () => this.#generatedSteps())
    return owner ? value : { ...value, usage: NO_USAGE, cached: true, latencyMs: performance.now() - waiting }
  }

  async #generatedSteps(): Promise<StepsOutcome & { readonly source: 'judged' }> {
    const existing = this.#steps
    if (existing) {
      // Another measurement asked first and is billed. Here the answer counts as a cached call, like any answer
      // shared between identical requests, so that no measurement's result depends on which one asked first.
      const waiting = performance.now()
      const call = await existing
      const usage = usageOf({ ...call.response, cached: true })
      const latencyMs = performance.now() - waiting
      return { source: 'judged', steps: call.value.steps, usage, latencyMs, cached: true, response: call.response }
    }
    // The call is shared, so no single measurement's signal may cancel it; each one only stops waiting.
    const generation = callJudge(
      this.#options.judge,
      {
        messages: gevalStepsPrompt(this.#definition.criteria ?? '', this.#fields),
        schema: gevalStepsSchema,
        schemaName: 'geval_steps',
        promptVersion: GEVAL_STEPS_PROMPT,
      },
      undefined,
    )
    this.#steps = generation
    // A failure is not remembered: the next measurement tries again.
    generation.catch(() => {
      if (this.#steps === generation) this.#steps = undefined
    })
    const call = await generation
    const { usage, latencyMs, response } = call
    return { source: 'judged', steps: call.value.steps, usage, latencyMs, cached: response.cached, response }
  }

  /**
   * The score judgement as a decision: a score on the range's integer levels, each described by its rubric band; in
   * strict mode, whether the data earns the top score (all a strict score asks).
   */
  #question(steps: readonly string[], data: unknown): JudgeQuestion {
    const [low, high] = this.#definition.scoreRange
    const instructions = `Follow these evaluation steps:\n${steps.map((step, index) => `${index + 1}. ${step}`).join('\n')}`
    if (this.#options.strictMode) {
      return {
        kind: 'predicate',
        instructions: `${instructions}\nDoes the data earn the top score, ${high} on a scale from ${low} to ${high}?`,
        state: data,
        field: 'score',
      }
    }
    const levels = range(low, high)
    const { rubric } = this.#definition
    const descriptions = rubric
      ? levels.map(
          (level) => rubric.find(({ scoreRange: [start, end] }) => level >= start && level <= end)?.expectedOutcome,
        )
      : undefined
    return {
      kind: 'score',
      instructions: `${instructions}\nScore the data from ${low} (worst) to ${high} (best).`,
      state: data,
      levels,
      ...(descriptions === undefined ? {} : { descriptions }),
      field: 'score',
    }
  }

  #scaleText(): string {
    const { rubric, scoreRange } = this.#definition
    if (!rubric) return `an integer from ${scoreRange[0]} to ${scoreRange[1]}`
    return `rubric ${rubric.map(({ scoreRange: [start, end] }) => (start === end ? start : `${start}–${end}`)).join(', ')}`
  }

  #reason(raw: number, weighting: ScoreWeighting, normalised: number, judgeReason: string | undefined): string {
    const [low, high] = this.#definition.scoreRange
    const band = this.#definition.rubric?.find(({ scoreRange: [start, end] }) => raw >= start && raw <= end)
    const inBand = band ? ` (rubric ${band.scoreRange.join('–')}: ${JSON.stringify(band.expectedOutcome)})` : ''
    const by = judgeReason === undefined ? 'its probabilities' : 'its logprobs'
    const weighted = weighting.mode === 'weighted' ? `, ${round(weighting.score)} weighted by ${by}` : ''
    const because = judgeReason === undefined ? '' : ` ${judgeReason.trim()}`
    return `The judge scored ${raw} on ${low}–${high}${inBand}${weighted}, which is ${formatScore(normalised)}.${because}`
  }
}

/** The score a yes/no answer stands for: the top score, or the lowest. */
function scoreOf(top: boolean, [low, high]: readonly [number, number]): number {
  return top ? high : low
}

/**
 * The chance the score passes: the mass of the levels whose normalised score reaches the threshold, from the
 * distribution the score was weighted by (a decision judge's, or the logprobs'). Undefined for a raw score: there is
 * no distribution to read.
 */
function scorePassProbability(
  weighting: ScoreWeighting,
  [low, high]: readonly [number, number],
  threshold: number,
  pivot: Omit<PassPivot, 'probability'>,
): PassProbability | undefined {
  if (weighting.mode !== 'weighted') return undefined
  const levels = new Map<number, number>()
  for (const { value, probability } of weighting.alternatives) {
    const score = (value - low) / (high - low)
    levels.set(score, (levels.get(score) ?? 0) + probability)
  }
  const chosen = weighting.alternatives.find(({ value }) => String(value) === pivot.verdict)?.probability ?? 0
  return judged(passOf(levels, threshold, false), { ...pivot, probability: chosen })
}

/** The score weighted by a decision judge's probabilities of the levels. */
function decided(raw: number, distribution: Readonly<Record<string, number>>): ScoreWeighting {
  const alternatives = Object.entries(distribution)
    .map(([level, probability]) => ({ value: Number(level), probability }))
    .filter(({ value }) => Number.isFinite(value))
  const score = alternatives.reduce((sum, { value, probability }) => sum + value * probability, 0)
  const shares = alternatives
    .filter(({ probability }) => probability > 0)
    .map(({ value, probability }) => `${value}: ${Math.round(probability * 1000) / 10}%`)
  return {
    mode: 'weighted',
    score,
    alternatives,
    note: `weighted by the decision judge's probabilities (${shares.join(', ')}): ${round(score)}; its most probable score is ${raw}`,
  }
}

function weigh(raw: number, response: JudgeResponse<unknown>, range: readonly [number, number]): ScoreWeighting {
  // A judge that had to drop the logprobs request says why (OpenAIJudge does, for models that reject it).
  const unavailable = response.logprobsUnavailable
  if (unavailable !== undefined && response.logprobs === undefined) {
    return { mode: 'raw', score: raw, note: `raw score: ${unavailable}` }
  }
  return weightScore(raw, response.logprobs, range)
}

function range(low: number, high: number): number[] {
  return Array.from({ length: high - low + 1 }, (_, index) => low + index)
}

function rawBecause(raw: number): ScoreWeighting {
  return { mode: 'raw', score: raw, note: 'raw score: topLogprobs is 0, so logprobs were not requested' }
}

function round(value: number): string {
  return String(Math.round(value * 1000) / 1000)
}
