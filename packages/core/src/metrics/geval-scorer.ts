import { abortable } from '../internal/jobs.js'
import { messageOf } from '../internal/text.js'
import { type ScoreWeighting, weightScore } from '../judge/logprob-score.js'
import { addNote, callJudge, type JudgeCall, localCheckNote, stepNode } from '../metric/judge-call.js'
import type { ResolvedMetricOptions } from '../metric/options.js'
import { buildResult, errorResult } from '../metric/result.js'
import { applyStrictMode, clampScore } from '../metric/score.js'
import { currentTrial, outsideTrials } from '../metric/trials.js'
import type { MetricResult, MetricUsage } from '../metric/types.js'
import { addUsage, NO_USAGE, usageOf } from '../metric/usage.js'
import { GEVAL_SCORE_PROMPT, gevalScorePrompt, gevalScoreSchema } from '../prompts/geval-score.js'
import { GEVAL_STEPS_PROMPT, type GEvalFields, gevalStepsPrompt, gevalStepsSchema } from '../prompts/geval-steps.js'
import { formatScore } from '../trace/render.js'
import type { MetricTrace, TraceNode } from '../trace/types.js'
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

  /** Scores the data the metric prepared from a test case. Never rejects. */
  async score(data: unknown, signal: AbortSignal | undefined, started: number): Promise<MetricResult> {
    const context = { options: this.#options, started }
    const nodes: TraceNode[] = []
    const notes: string[] = []
    let usage: MetricUsage = NO_USAGE
    const trace = (): MetricTrace => ({
      metric: this.#options.name,
      nodes: [...nodes],
      roots: nodes.map((node) => node.id),
      notes: [...notes],
    })
    let steps: StepsOutcome
    try {
      steps = await this.#stepsFor(signal)
    } catch (error) {
      nodes.push(stepNode({ ...this.#stepsEntry(), status: 'failed', error: messageOf(error) }))
      return errorResult(context, error, trace(), usage)
    }
    // The steps serve every trial of a measurement: the first trial counts them, the others got them for nothing.
    const laterTrial = (currentTrial()?.trial ?? 1) > 1
    const stepsUsage = steps.source === 'judged' && !laterTrial ? steps.usage : NO_USAGE
    usage = addUsage(usage, stepsUsage)
    nodes.push(
      stepNode({
        ...this.#stepsEntry(),
        output: steps.steps.map((step, index) => `${index + 1}. ${step}`).join('\n'),
        outputLabel: 'steps',
        step: 1,
        usage: stepsUsage,
        ...(steps.source === 'judged' ? { latencyMs: Math.round(steps.latencyMs), cached: steps.cached } : {}),
      }),
    )
    notes.push(STEPS_NOTES[steps.source])
    if (steps.source === 'judged') addNote(notes, localCheckNote(steps.response))

    const { scoreRange, rubric, topLogprobs } = this.#definition
    const [low, high] = scoreRange
    const withLogprobs = topLogprobs > 0 && !this.#options.strictMode
    const scoreEntry = { id: 'n2', kind: 'GEvalScore', label: 'Score', text: this.#scaleText() }
    let call: JudgeCall<{ reason: string; score: number }>
    try {
      call = await callJudge(
        this.#options.judge,
        {
          messages: gevalScorePrompt(steps.steps, scoreRange, rubric, this.#fields.conversational, data),
          schema: this.#scoreSchema,
          schemaName: 'geval_score',
          promptVersion: GEVAL_SCORE_PROMPT,
          question: this.#options.strictMode
            ? { kind: 'predicate', instructions: steps.steps.join('\n'), state: data, field: 'score' }
            : {
                kind: 'score',
                instructions: steps.steps.join('\n'),
                state: data,
                levels: range(low, high),
                field: 'score',
              },
          ...(withLogprobs ? { topLogprobs } : {}),
        },
        signal,
      )
    } catch (error) {
      nodes.push(stepNode({ ...scoreEntry, status: 'failed', error: messageOf(error) }))
      return errorResult(context, error, trace(), usage)
    }
    usage = addUsage(usage, call.usage)
    const raw = call.value.score
    const weighting = withLogprobs ? weigh(raw, call, scoreRange) : rawBecause(raw, this.#options.strictMode)
    notes.push(weighting.note)
    addNote(notes, localCheckNote(call.response))
    const normalised = clampScore((weighting.score - low) / (high - low))
    const { score, threshold } = applyStrictMode(normalised, this.#options.threshold, this.#options.strictMode)
    if (this.#options.strictMode && score !== normalised) {
      notes.push(`strict mode: the score ${formatScore(normalised)} is below 1, so it counts as 0`)
    }
    nodes.push(
      stepNode({
        ...scoreEntry,
        verdict: weighting.mode === 'weighted' ? `${raw} (weighted ${round(weighting.score)})` : String(raw),
        reason: call.value.reason,
        step: 2,
        usage: call.usage,
        latencyMs: Math.round(call.latencyMs),
        cached: call.response.cached,
      }),
    )
    const reason = this.#options.includeReason
      ? this.#reason(raw, weighting, normalised, call.value.reason, score !== normalised)
      : undefined
    return buildResult(context, { score, threshold, reason, trace: trace(), usage })
  }

  async #stepsFor(signal: AbortSignal | undefined): Promise<StepsOutcome> {
    const given = this.#definition.evaluationSteps
    if (given) return { source: 'given', steps: given }
    const existing = this.#steps
    if (existing) {
      // Another measurement asked first and is billed. Here the answer counts as a cached call, like any answer
      // shared between identical requests, so that no measurement's result depends on which one asked first.
      const waiting = performance.now()
      const call = await abortable(existing, signal)
      const usage = usageOf({ ...call.response, cached: true })
      const latencyMs = performance.now() - waiting
      return { source: 'judged', steps: call.value.steps, usage, latencyMs, cached: true, response: call.response }
    }
    // The call is shared, so no single measurement's signal may cancel it; each one only stops waiting.
    // Outside any trial: the steps are generated once for the metric, not sampled once per trial.
    const generation = outsideTrials(() =>
      callJudge(
        this.#options.judge,
        {
          messages: gevalStepsPrompt(this.#definition.criteria ?? '', this.#fields),
          schema: gevalStepsSchema,
          schemaName: 'geval_steps',
          promptVersion: GEVAL_STEPS_PROMPT,
        },
        undefined,
      ),
    )
    this.#steps = generation
    // A failure is not remembered: the next measurement tries again.
    generation.catch(() => {
      if (this.#steps === generation) this.#steps = undefined
    })
    const call = await abortable(generation, signal)
    const { usage, latencyMs, response } = call
    return { source: 'judged', steps: call.value.steps, usage, latencyMs, cached: response.cached, response }
  }

  #stepsEntry() {
    const { criteria } = this.#definition
    return { id: 'n1', kind: 'GEvalSteps', label: 'Evaluation steps', text: criteria ?? 'given in evaluationSteps' }
  }

  #scaleText(): string {
    const { rubric, scoreRange } = this.#definition
    if (!rubric) return `an integer from ${scoreRange[0]} to ${scoreRange[1]}`
    return `rubric ${rubric.map(({ scoreRange: [start, end] }) => (start === end ? start : `${start}–${end}`)).join(', ')}`
  }

  #reason(raw: number, weighting: ScoreWeighting, normalised: number, judgeReason: string, zeroed: boolean): string {
    const [low, high] = this.#definition.scoreRange
    const band = this.#definition.rubric?.find(({ scoreRange: [start, end] }) => raw >= start && raw <= end)
    const inBand = band ? ` (rubric ${band.scoreRange.join('–')}: ${JSON.stringify(band.expectedOutcome)})` : ''
    const weighted = weighting.mode === 'weighted' ? `, ${round(weighting.score)} weighted by its logprobs` : ''
    const strict = zeroed ? ' Strict mode counts anything below 1 as 0.' : ''
    return `The judge scored ${raw} on ${low}–${high}${inBand}${weighted}, which is ${formatScore(normalised)}.${strict} ${judgeReason.trim()}`
  }
}

function weigh(raw: number, call: JudgeCall<unknown>, range: readonly [number, number]): ScoreWeighting {
  // A judge that had to drop the logprobs request says why (OpenAIJudge does, for models that reject it).
  const unavailable = call.response.logprobsUnavailable
  if (unavailable !== undefined && call.response.logprobs === undefined) {
    return { mode: 'raw', score: raw, note: `raw score: ${unavailable}` }
  }
  return weightScore(raw, call.response.logprobs, range)
}

function range(low: number, high: number): number[] {
  return Array.from({ length: high - low + 1 }, (_, index) => low + index)
}

function rawBecause(raw: number, strictMode: boolean): ScoreWeighting {
  return {
    mode: 'raw',
    score: raw,
    note: strictMode
      ? 'raw score: strict mode passes only a perfect score, which a probability-weighted mean almost never is, so logprobs were not requested'
      : 'raw score: topLogprobs is 0, so logprobs were not requested',
  }
}

function round(value: number): string {
  return String(Math.round(value * 1000) / 1000)
}
