import { checkConversationalOptions, conversationalView } from '../dag/inputs.js'
import { MissingTestCaseParamError } from '../errors.js'
import {
  checkKnownOptions,
  OptionProblems,
  type ResolvedMetricOptions,
  resolveCommonOptions,
} from '../metric/options.js'
import { errorResult } from '../metric/result.js'
import type { MeasureOptions, Metric, MetricResult } from '../metric/types.js'
import { PARAM_LABELS, TURN_LEVEL_PARAMS, type TurnParam, TurnParams } from '../test-case/params.js'
import type { ConversationalTestCase } from '../test-case/schemas.js'
import { checkGEvalOptions, GEVAL_OPTION_KEYS, type GEvalBaseOptions, type Rubric } from './geval-rubric.js'
import { GEvalScorer } from './geval-scorer.js'
import { finish, parseConversation } from './support.js'

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
export class ConversationalGEval implements Metric<ConversationalTestCase> {
  readonly kind = 'conversational' as const
  readonly name: string
  /** The threshold results are compared against (1 under strictMode). */
  readonly threshold: number
  readonly options: ResolvedMetricOptions
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
    const problems = new OptionProblems(`ConversationalGEval "${String(options?.name)}"`)
    if (typeof options !== 'object' || options === null) {
      problems.add(
        'new ConversationalGEval(options) needs an options object with { name, criteria or evaluationSteps }.',
      )
      problems.throwIfAny()
    }
    checkKnownOptions(options, GEVAL_OPTION_KEYS, problems)
    this.options = resolveCommonOptions(options, problems)
    const definition = checkGEvalOptions(options, problems)
    const { params } = checkConversationalOptions(options.evaluationParams, undefined, (_rule, message) =>
      problems.add(message.replace('this node', 'this metric')),
    )
    problems.throwIfAny()
    // The judge cannot read a conversation without who said what; a copy, so the caller's array is untouched.
    const shown: TurnParam[] = [TurnParams.ROLE, TurnParams.CONTENT, ...params]
    this.evaluationParams = Object.freeze([...new Set(shown)])
    this.name = this.options.name
    this.threshold = this.options.strictMode ? 1 : this.options.threshold
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

  /** Scores one conversation. Never rejects: a missing parameter or a judge failure is a result with `error`. */
  async measure(testCase: ConversationalTestCase, options: MeasureOptions = {}): Promise<MetricResult> {
    const started = performance.now()
    let parsed: ConversationalTestCase
    try {
      parsed = parseConversation(testCase, this.name, 'ConversationalGEval')
      const missing = this.#view.missingParams(parsed)
      if (missing.length > 0) throw new MissingTestCaseParamError(this.name, missing, 'its evaluationParams')
    } catch (error) {
      return finish(errorResult({ options: this.options, started }, error), this.options.verboseMode)
    }
    const result = await this.#scorer.score(this.#view.show(parsed, []).data, options.signal, started)
    return finish(result, this.options.verboseMode)
  }
}
