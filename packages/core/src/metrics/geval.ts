import { checkSingleTurnParams, singleTurnView } from '../dag/inputs.js'
import { MissingTestCaseParamError } from '../errors.js'
import {
  checkKnownOptions,
  OptionProblems,
  type ResolvedMetricOptions,
  resolveCommonOptions,
} from '../metric/options.js'
import { errorResult } from '../metric/result.js'
import type { MeasureOptions, Metric, MetricResult } from '../metric/types.js'
import { type LLMTestCaseParam, PARAM_LABELS } from '../test-case/params.js'
import type { LLMTestCase } from '../test-case/schemas.js'
import { checkGEvalOptions, GEVAL_OPTION_KEYS, type GEvalBaseOptions, type Rubric } from './geval-rubric.js'
import { GEvalScorer } from './geval-scorer.js'
import { finish, parseSingleTurn } from './support.js'

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
export class GEval implements Metric<LLMTestCase> {
  readonly kind = 'single-turn' as const
  readonly name: string
  /** The threshold results are compared against (1 under strictMode). */
  readonly threshold: number
  readonly options: ResolvedMetricOptions
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
    const problems = new OptionProblems(`GEval "${String(options?.name)}"`)
    if (typeof options !== 'object' || options === null) {
      problems.add(
        'new GEval(options) needs an options object with { name, criteria or evaluationSteps, evaluationParams }.',
      )
      problems.throwIfAny()
    }
    checkKnownOptions(options, GEVAL_OPTION_KEYS, problems)
    this.options = resolveCommonOptions(options, problems)
    const definition = checkGEvalOptions(options, problems)
    let params: LLMTestCaseParam[] = []
    if (Array.isArray(options.evaluationParams) && options.evaluationParams.length === 0) {
      problems.add(
        'evaluationParams is empty: list the fields the judge is shown, e.g. [LLMTestCaseParams.ACTUAL_OUTPUT].',
      )
    } else if (options.evaluationParams === undefined) {
      problems.add(
        'needs evaluationParams: the fields the judge is shown, e.g. [LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT].',
      )
    } else {
      params = checkSingleTurnParams(options.evaluationParams, (_rule, message) =>
        problems.add(message.replace('this node', 'this metric')),
      )
    }
    problems.throwIfAny()
    this.name = this.options.name
    this.threshold = this.options.strictMode ? 1 : this.options.threshold
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

  /** Scores one test case. Never rejects: a missing parameter or a judge failure is a result with `error`. */
  async measure(testCase: LLMTestCase, options: MeasureOptions = {}): Promise<MetricResult> {
    const started = performance.now()
    let parsed: LLMTestCase
    try {
      parsed = parseSingleTurn(testCase, this.name, 'GEval')
      const missing = this.#view.missingParams(parsed)
      if (missing.length > 0) throw new MissingTestCaseParamError(this.name, missing, 'its evaluationParams')
    } catch (error) {
      return finish(errorResult({ options: this.options, started }, error), this.options.verboseMode)
    }
    const result = await this.#scorer.score(this.#view.show(parsed, []).data, options.signal, started)
    return finish(result, this.options.verboseMode)
  }
}
