import { checkConversationalOptions, conversationalView } from '../dag/inputs.js'
import { MissingTestCaseParamError } from '../errors.js'
import { checkMetricOptions, MetricBase } from '../metric/metric-base.js'
import type { MeasurementContext } from '../metric/result.js'
import type { MetricResult } from '../metric/types.js'
import { PARAM_LABELS, TURN_LEVEL_PARAMS, type TurnParam, TurnParams } from '../test-case/params.js'
import type { ConversationalTestCase } from '../test-case/schemas.js'
import { checkGEvalOptions, GEVAL_OPTION_KEYS, type GEvalBaseOptions, type Rubric } from './geval-rubric.js'
import { GEvalScorer } from './geval-scorer.js'

/** Options for {@link ConversationalGEval}. */
export interface ConversationalGEvalOptions extends GEvalBaseOptions {
  /** Turn-level and conversation-level fields the judge is shown; ROLE and CONTENT are always included. @default [TurnParams.ROLE, TurnParams.CONTENT] */
  evaluationParams?: readonly TurnParam[] | undefined
}

/**
 * Scores a whole conversation against criteria in plain words (or your own evaluation steps), G-Eval style: the
 * judge sees every turn with its index and role plus any conversation-level fields you name.
 *
 * @example
 * const empathy = new ConversationalGEval({
 *   name: 'Empathy',
 *   criteria: 'Does the assistant acknowledge the user’s feelings before solving the problem?',
 * })
 */
export class ConversationalGEval extends MetricBase<ConversationalTestCase> {
  readonly kind = 'conversational' as const
  readonly criteria: string | undefined
  readonly evaluationSteps: readonly string[] | undefined
  /** The fields shown: ROLE and CONTENT first, then the ones you named (your array is not changed). */
  readonly evaluationParams: readonly TurnParam[]
  readonly rubric: readonly Rubric[] | undefined
  /** The judge's integer score range: 0..10, or the rubric's min start..max end. */
  readonly scoreRange: readonly [number, number]
  readonly topLogprobs: number
  readonly #view: ReturnType<typeof conversationalView>
  readonly #scorer: GEvalScorer

  constructor(options: ConversationalGEvalOptions) {
    const spec = {
      keys: GEVAL_OPTION_KEYS,
      notAnObject: () =>
        'new ConversationalGEval(options) needs an options object with { name, criteria or evaluationSteps }.',
    }
    const checked = checkMetricOptions('ConversationalGEval', options, spec, (checking, problems) => ({
      definition: checkGEvalOptions(checking, problems),
      params: checkConversationalOptions(checking.evaluationParams, undefined, (_rule, message) =>
        problems.add(message.replace('this node', 'this metric')),
      ).params,
    }))
    super('ConversationalGEval', checked.options)
    const { definition, params } = checked
    // The judge cannot read a conversation without who said what; a copy, so the caller's array is untouched.
    const shown: TurnParam[] = [TurnParams.ROLE, TurnParams.CONTENT, ...params]
    this.evaluationParams = Object.freeze([...new Set(shown)])
    this.criteria = definition.criteria
    this.evaluationSteps = definition.evaluationSteps
    this.rubric = definition.rubric
    this.scoreRange = definition.scoreRange
    this.topLogprobs = definition.topLogprobs
    this.#view = conversationalView(this.evaluationParams, undefined)
    this.#scorer = new GEvalScorer(definition, this.options, {
      conversational: true,
      turnFields: this.evaluationParams.filter((param) => TURN_LEVEL_PARAMS.has(param)).map((p) => PARAM_LABELS[p]),
      caseFields: this.evaluationParams.filter((param) => !TURN_LEVEL_PARAMS.has(param)).map((p) => PARAM_LABELS[p]),
    })
  }

  protected override async run(
    testCase: ConversationalTestCase,
    measurement: MeasurementContext,
    signal: AbortSignal | undefined,
  ): Promise<MetricResult> {
    const missing = this.#view.missingParams(testCase)
    if (missing.length > 0) throw new MissingTestCaseParamError(this.name, missing, 'its evaluationParams')
    return this.#scorer.score(this.#view.show(testCase, []).data, signal, measurement.started)
  }
}
