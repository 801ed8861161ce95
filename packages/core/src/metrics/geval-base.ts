import { MissingTestCaseParamError } from '../errors.js'
import { BaseMetric, checkedOptions, type MetricScore } from '../metric/base-metric.js'
import type { Measurement } from '../metric/measurement.js'
import type { ResolvedMetricOptions } from '../metric/options.js'
import type { GEvalFields } from '../prompts/geval-steps.js'
import type { ConversationalTestCase, LLMTestCase } from '../test-case/schemas.js'
import type { InputView } from '../test-case/view.js'
import type { GEvalDefinition, Rubric } from './geval-rubric.js'
import { GEvalScorer } from './geval-scorer.js'

/** What both G-Eval metrics share once their options are checked: the definition's fields and the scoring. */
export abstract class GEvalBase<TestCase extends LLMTestCase | ConversationalTestCase> extends BaseMetric<TestCase> {
  readonly criteria: string | undefined
  readonly evaluationSteps: readonly string[] | undefined
  readonly rubric: readonly Rubric[] | undefined
  /** The judge's integer score range: 0..10, or the rubric's min start..max end. */
  readonly scoreRange: readonly [number, number]
  readonly topLogprobs: number
  readonly #view: InputView
  readonly #scorer: GEvalScorer

  protected constructor(
    type: string,
    options: ResolvedMetricOptions,
    definition: GEvalDefinition,
    shown: { readonly view: InputView; readonly fields: GEvalFields },
  ) {
    super({}, checkedOptions(type, options))
    this.criteria = definition.criteria
    this.evaluationSteps = definition.evaluationSteps
    this.rubric = definition.rubric
    this.scoreRange = definition.scoreRange
    this.topLogprobs = definition.topLogprobs
    this.#view = shown.view
    this.#scorer = new GEvalScorer(definition, options, shown.fields)
  }

  protected override score(testCase: TestCase, ctx: Measurement): Promise<MetricScore> {
    const missing = this.#view.missingParams(testCase)
    if (missing.length > 0) throw new MissingTestCaseParamError(this.name, missing, 'its evaluationParams')
    return this.#scorer.score(this.#view.show(testCase, []).data, ctx)
  }
}
