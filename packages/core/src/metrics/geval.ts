import { checkMetricOptions } from '../metric/base-metric.js'
import { type LLMTestCaseParam, PARAM_LABELS } from '../test-case/params.js'
import type { LLMTestCase } from '../test-case/schemas.js'
import { checkSingleTurnParams, singleTurnView } from '../test-case/view.js'
import { GEvalBase } from './geval-base.js'
import { checkGEvalOptions, type GEvalBaseOptions, gevalShape } from './geval-rubric.js'

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
export class GEval extends GEvalBase<LLMTestCase> {
  readonly kind = 'single-turn' as const
  readonly evaluationParams: readonly LLMTestCaseParam[]

  constructor(options: GEvalOptions) {
    const spec = {
      shape: gevalShape,
      expected: 'an options object with { name, criteria or evaluationSteps, evaluationParams }',
    }
    const checked = checkMetricOptions('GEval', options, spec, (checking, problems) => {
      const definition = checkGEvalOptions(checking, problems)
      let params: LLMTestCaseParam[] = []
      if (Array.isArray(checking.evaluationParams) && checking.evaluationParams.length === 0) {
        problems.push(
          'evaluationParams is empty: list the fields the judge is shown, e.g. [LLMTestCaseParams.ACTUAL_OUTPUT].',
        )
      } else if (checking.evaluationParams === undefined) {
        problems.push(
          'needs evaluationParams: the fields the judge is shown, e.g. [LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT].',
        )
      } else {
        params = checkSingleTurnParams(
          checking.evaluationParams,
          (_rule, message) => problems.push(message),
          'this metric',
        )
      }
      return { definition, params }
    })
    const params = Object.freeze(checked.params)
    super('GEval', checked.options, checked.definition, {
      view: singleTurnView(params),
      fields: { conversational: false, turnFields: [], caseFields: params.map((param) => PARAM_LABELS[param]) },
    })
    this.evaluationParams = params
  }
}
