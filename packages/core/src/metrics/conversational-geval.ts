import { checkMetricOptions } from '../metric/base-metric.js'
import { PARAM_LABELS, TURN_LEVEL_PARAMS, type TurnParam, TurnParams } from '../test-case/params.js'
import type { ConversationalTestCase } from '../test-case/schemas.js'
import { checkConversationalOptions, conversationalView } from '../test-case/view.js'
import { GEvalBase } from './geval-base.js'
import { checkGEvalOptions, type GEvalBaseOptions, gevalShape } from './geval-rubric.js'

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
export class ConversationalGEval extends GEvalBase<ConversationalTestCase> {
  readonly kind = 'conversational' as const
  /** The fields shown: ROLE and CONTENT first, then the ones you named (your array is not changed). */
  readonly evaluationParams: readonly TurnParam[]

  constructor(options: ConversationalGEvalOptions) {
    const spec = { shape: gevalShape, expected: 'an options object with { name, criteria or evaluationSteps }' }
    const checked = checkMetricOptions('ConversationalGEval', options, spec, (checking, problems) => ({
      definition: checkGEvalOptions(checking, problems),
      params: checkConversationalOptions(
        checking.evaluationParams,
        undefined,
        (_rule, message) => problems.push(message),
        'this metric',
      ).params,
    }))
    // The judge cannot read a conversation without who said what; a copy, so the caller's array is untouched.
    const params = Object.freeze([...new Set([TurnParams.ROLE, TurnParams.CONTENT, ...checked.params])])
    super('ConversationalGEval', checked.options, checked.definition, {
      view: conversationalView(params, undefined),
      fields: {
        conversational: true,
        turnFields: params.filter((param) => TURN_LEVEL_PARAMS.has(param)).map((param) => PARAM_LABELS[param]),
        caseFields: params.filter((param) => !TURN_LEVEL_PARAMS.has(param)).map((param) => PARAM_LABELS[param]),
      },
    })
    this.evaluationParams = params
  }
}
