import { checkSingleTurnParams, singleTurnView } from '../dag/inputs.js'
import { MissingTestCaseParamError } from '../errors.js'
import { checkMetricOptions, MetricBase } from '../metric/metric-base.js'
import type { MeasurementContext } from '../metric/result.js'
import type { MetricResult } from '../metric/types.js'
import { type LLMTestCaseParam, PARAM_LABELS } from '../test-case/params.js'
import type { LLMTestCase } from '../test-case/schemas.js'
import { checkGEvalOptions, GEVAL_OPTION_KEYS, type GEvalBaseOptions, type Rubric } from './geval-rubric.js'
import { GEvalScorer } from './geval-scorer.js'

/** Options for {@link GEval}. */
export interface GEvalOptions extends GEvalBaseOptions {
  /** The test-case fields the judge is shown; the generated steps name them too. */
  evaluationParams: readonly LLMTestCaseParam[]
}

/**
 * Scores a single-turn test case against criteria in plain words (or your own evaluation steps), G-Eval style:
 * steps generated once per metric, an integer score on 0..10 or a rubric, weighted by the judge's logprobs.
 *
 * @example
 * const correctness = new GEval({
 *   name: 'Correctness',
 *   criteria: 'Is the actual output factually correct given the expected output?',
 *   evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT, LLMTestCaseParams.EXPECTED_OUTPUT],
 * })
 */
export class GEval extends MetricBase<LLMTestCase> {
  readonly kind = 'single-turn' as const
  readonly criteria: string | undefined
  readonly evaluationSteps: readonly string[] | undefined
  readonly evaluationParams: readonly LLMTestCaseParam[]
  readonly rubric: readonly Rubric[] | undefined
  /** The judge's integer score range: 0..10, or the rubric's min start..max end. */
  readonly scoreRange: readonly [number, number]
  readonly topLogprobs: number
  readonly #view: ReturnType<typeof singleTurnView>
  readonly #scorer: GEvalScorer

  constructor(options: GEvalOptions) {
    const spec = {
      keys: GEVAL_OPTION_KEYS,
      notAnObject: () =>
        'new GEval(options) needs an options object with { name, criteria or evaluationSteps, evaluationParams }.',
    }
    const checked = checkMetricOptions('GEval', options, spec, (checking, problems) => {
      const definition = checkGEvalOptions(checking, problems)
      let params: LLMTestCaseParam[] = []
      if (Array.isArray(checking.evaluationParams) && checking.evaluationParams.length === 0) {
        problems.add(
          'evaluationParams is empty: list the fields the judge is shown, e.g. [LLMTestCaseParams.ACTUAL_OUTPUT].',
        )
      } else if (checking.evaluationParams === undefined) {
        problems.add(
          'needs evaluationParams: the fields the judge is shown, e.g. [LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT].',
        )
      } else {
        params = checkSingleTurnParams(checking.evaluationParams, (_rule, message) =>
          problems.add(message.replace('this node', 'this metric')),
        )
      }
      return { definition, params }
    })
    super('GEval', checked.options)
    const { definition, params } = checked
    this.criteria = definition.criteria
    this.evaluationSteps = definition.evaluationSteps
    this.evaluationParams = Object.freeze(params)
    this.rubric = definition.rubric
    this.scoreRange = definition.scoreRange
    this.topLogprobs = definition.topLogprobs
    this.#view = singleTurnView(this.evaluationParams)
    this.#scorer = new GEvalScorer(definition, this.options, {
      conversational: false,
      turnFields: [],
      caseFields: params.map((param) => PARAM_LABELS[param]),
    })
  }

  protected override async run(
    testCase: LLMTestCase,
    measurement: MeasurementContext,
    signal: AbortSignal | undefined,
  ): Promise<MetricResult> {
    const missing = this.#view.missingParams(testCase)
    if (missing.length > 0) throw new MissingTestCaseParamError(this.name, missing, 'its evaluationParams')
    return this.#scorer.score(this.#view.show(testCase, []).data, signal, measurement.started)
  }
}
