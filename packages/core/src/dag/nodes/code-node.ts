import { DagValidationError, JudgetreeError, MeasurementAbortedError } from '../../errors.js'
import { describeValue } from '../../internal/describe-value.js'
import { readEnv } from '../../internal/env.js'
import { functionSchema } from '../../internal/options.js'
import { scrubSecrets } from '../../internal/scrub.js'
import { type LLMTestCaseParam, TURN_LEVEL_PARAMS, type TurnParam } from '../../test-case/params.js'
import type { ConversationalTestCase, LLMTestCase, Turn } from '../../test-case/schemas.js'
import {
  checkConversationalOptions,
  checkSingleTurnParams,
  conversationalView,
  type InputView,
  resolveTurnWindow,
} from '../../test-case/view.js'
import type { DagNode, NodeMode, NodeRunContext, NodeRunResult, ReportIssue, TaskInput } from '../node.js'
import { VerdictParent } from './add-verdict.js'
import {
  checkNodeOption,
  childrenOption,
  compact,
  type Identify,
  nodeOptionIssues,
  optionalLabel,
  requireText,
} from './construction.js'
import { type ReadingOptions, readingKeys, staticsOf } from './node-base.js'
import { checkVerdictChildren } from './verdict-children.js'
import type { ConversationalVerdictNode, VerdictNode, VerdictNodeBase } from './verdict-node.js'

/** What a check returns: a verdict (`true`/`false`, or one of its children's string verdicts), or one with a reason. */
export type CodeCheckResult =
  | boolean
  | string
  | { readonly verdict: boolean | string; readonly reason?: string | undefined }

/** The second argument of a check. */
export interface CodeCheckContext {
  /**
   * Aborts when the measurement stops: its caller's signal (`measure(tc, { signal })`, evaluate()'s `signal`, the
   * test's timeout in Vitest or Jest) or another node's failure. The measurement does not wait for a check that
   * ignores it, but a check that starts work of its own (a request, a child process) should pass it on, or stop that
   * work when it fires, so nothing runs on after the measurement ended.
   */
  readonly signal: AbortSignal
}

/** What a single-turn CodeNode's check is given: the fields it names, and its TaskNode parents' outputs by label. */
export type CodeNodeView = {
  /** The outputs of its direct TaskNode parents, by `outputLabel`. */
  readonly outputs: Readonly<Record<string, string>>
} & { readonly [Param in LLMTestCaseParam]?: LLMTestCase[Param] }

/** One turn as a ConversationalCodeNode's check sees it: its 0-based index, role and the turn-level fields it names. */
export interface CodeNodeTurn {
  readonly index: number
  readonly role: Turn['role']
  readonly content?: string | undefined
  readonly retrievalContext?: readonly string[] | undefined
  readonly toolsCalled?: Turn['toolsCalled']
}

/**
 * What a ConversationalCodeNode's check is given: the turns in its window (when it names a turn-level parameter),
 * the conversation-level parameters it names, and its TaskNode parents' outputs by label. A node whose
 * `evaluationParams` are written in place gets {@link ConversationalCodeNodeViewOf} instead, where `turns` is typed
 * as present when it names a turn-level field.
 */
export interface ConversationalCodeNodeView {
  readonly outputs: Readonly<Record<string, string>>
  readonly turns?: readonly CodeNodeTurn[]
  readonly scenario?: string | undefined
  readonly expectedOutcome?: string | undefined
  readonly chatbotRole?: string | undefined
  readonly userDescription?: string | undefined
  readonly context?: readonly string[] | undefined
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
  readonly tags?: readonly string[] | undefined
}

/** The turn-level fields: naming one gives a conversational check the turns in its window. */
type TurnLevelParam = 'role' | 'content' | 'retrievalContext' | 'toolsCalled'

/**
 * What the check of a ConversationalCodeNode naming `Params` is given: {@link ConversationalCodeNodeView}, with
 * `turns` present when `Params` names a turn-level field (`role`, `content`, `retrievalContext`, `toolsCalled`).
 *
 * @example
 * new ConversationalCodeNode({
 *   name: 'Looked the order up',
 *   evaluationParams: [TurnParams.TOOLS_CALLED],
 *   check: (view) => view.turns.some((turn) => turn.toolsCalled?.some((tool) => tool.name === 'lookup_order')),
 * })
 */
export type ConversationalCodeNodeViewOf<Params extends readonly TurnParam[]> = TurnParam extends Params[number]
  ? ConversationalCodeNodeView
  : [Params[number] & TurnLevelParam] extends [never]
    ? ConversationalCodeNodeView
    : ConversationalCodeNodeView & { readonly turns: readonly CodeNodeTurn[] }

interface CodeNodeBaseOptions<View, Child> extends ReadingOptions {
  /** Names the check in traces, messages and Mermaid, e.g. "Under 200 words". */
  name: string
  /**
   * Decides the verdict without a judge call: return `true`/`false` (the node then has VerdictNode children true
   * and false), or one of its children's string verdicts; or `{ verdict, reason }` to explain it in the trace. May be
   * async. A thrown error fails the measurement, naming this node (its message is shown with any API key taken
   * out). The second argument holds the measurement's `signal`: a check still running when the measurement is
   * aborted is abandoned at once (the result says MEASUREMENT_ABORTED), so pass the signal on to any work it starts.
   * @example check: async (view, { signal }) => (await fetch(url, { signal })).ok
   */
  check: (view: View, context: CodeCheckContext) => CodeCheckResult | Promise<CodeCheckResult>
  /** The possible outcomes, each a VerdictNode; or add them with `addVerdict`. */
  children?: readonly Child[] | undefined
  /** Shown in traces instead of the name. */
  label?: string | undefined
}

/** Options for {@link CodeNode}. */
export interface CodeNodeOptions extends CodeNodeBaseOptions<CodeNodeView, VerdictNode> {
  /** Test-case fields the check is given. @default [] (only the outputs of parent TaskNodes) */
  evaluationParams?: readonly LLMTestCaseParam[] | undefined
}

/** Options for {@link ConversationalCodeNode}. */
export interface ConversationalCodeNodeOptions<Params extends readonly TurnParam[] = readonly TurnParam[]>
  extends CodeNodeBaseOptions<ConversationalCodeNodeViewOf<Params>, ConversationalVerdictNode> {
  /** Turn-level and conversation-level fields the check is given. @default [] */
  evaluationParams?: Params | undefined
  /** Inclusive range of turns the check is given; negative indices count from the end. @default every turn */
  turnWindow?: readonly [number, number] | undefined
}

// Its name is what the user calls the check, so it names the node the way a label does.
const byName: Identify = (options) =>
  typeof options.name === 'string' && options.name.trim() !== '' ? `"${options.name}"` : undefined

abstract class CodeNodeBase<Mode extends NodeMode, Options extends CodeNodeBaseOptions<never, unknown>>
  extends VerdictParent<boolean | string, Mode>
  implements DagNode
{
  // A check with nothing to read could only return a constant: the graph rejects it like an empty judgement.
  readonly readsInput = true
  // What a judgement above was shown is a prompt's data, not the fields a check is written against.
  readonly inheritsInput = false
  readonly unserializable = 'its check is a function, and a function is not data'
  readonly name: string
  readonly #check: (view: never, context: CodeCheckContext) => CodeCheckResult | Promise<CodeCheckResult>

  constructor(options: Options) {
    const { kind, mode } = staticsOf(new.target)
    const keys = ['name', 'check', 'children', 'label', ...readingKeys(mode)]
    const { report, done } = nodeOptionIssues(kind, options, keys, byName)
    const name = requireText(options, 'name', report, 'what the check decides, shown in traces')
    const check = (options as { check?: unknown }).check
    checkNodeOption(functionSchema('a function (view) => verdict'), options, report, 'check')
    const label = optionalLabel(options, report)
    const children = childrenOption<VerdictNodeBase>(options, report)
    // It decides in code, so its view shows data (fields by name, outputs by label), not a judge's prompt input.
    const view = mode === 'single-turn' ? fieldsView(options, report) : conversationView(options, report)
    super({ label, children, view, identify: byName })
    this.name = name
    this.#check = check as (view: never, context: CodeCheckContext) => CodeCheckResult
    done()
  }

  get text(): string {
    return this.name
  }

  /** `fromJSON` cannot build one: a check is a function, which JSON cannot hold. */
  static override fromFields(): never {
    throw new DagValidationError([
      {
        rule: 'json-code-node',
        node: 'CodeNode',
        message: 'a check is a function, which JSON cannot hold: build this node in code, not from JSON.',
      },
    ])
  }

  staticDetails() {
    return { title: 'Code' }
  }

  picture() {
    return { shape: 'hexagon' as const, title: 'Code', text: this.label ?? this.name }
  }

  fields() {
    return compact({ name: this.name, ...this.readingFields() })
  }

  validateChildren(report: ReportIssue): void {
    checkVerdictChildren(`a ${this.kind}`, this.children, report, true)
  }

  async run(context: NodeRunContext): Promise<NodeRunResult> {
    const view = context.input() as never
    const { signal } = context
    let answer: CodeCheckResult
    try {
      answer = await untilAborted(() => this.#check(view, { signal }), signal)
    } catch (error) {
      if (error instanceof MeasurementAbortedError) throw error
      // A bug in the user's check is not the judge's failure. Its message reaches results and reports, so any API
      // key in it (the check may have called a service and quoted its request) is taken out, as judges do.
      const thrown = error instanceof Error ? error.message : String(error)
      const message = scrubSecrets(thrown, readEnv('OPENAI_API_KEY'))
      const cause = message === thrown ? error : new Error(message)
      throw new JudgetreeError('METRIC_FAILED', `its check threw: ${message}`, { cause })
    }
    const { verdict, reason } =
      typeof answer === 'object' && answer !== null ? answer : { verdict: answer, reason: undefined }
    const chosen = this.children.filter((child) => child.verdict === verdict)
    if (chosen.length === 0) {
      const options = this.children.map((child) => JSON.stringify(child.verdict)).join(', ')
      throw new JudgetreeError(
        'JUDGE_OUTPUT_INVALID',
        `its check returned ${describeValue(answer)}, which is not one of its verdicts (${options}). ` +
          'Return one of them, or { verdict, reason }.',
      )
    }
    const judgement = {
      verdict,
      reason: typeof reason === 'string' ? reason : `the check returned ${JSON.stringify(verdict)}`,
    }
    return { activates: chosen, judgement, details: judgement }
  }
}

/**
 * Runs a check and waits for it, or for the signal: a check that never settles (a hung request, a forgotten
 * resolve) must not hold the measurement past its caller's timeout.
 */
function untilAborted<T>(check: () => T | Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new MeasurementAbortedError(signal.reason))
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new MeasurementAbortedError(signal.reason))
    signal.addEventListener('abort', onAbort, { once: true })
    new Promise<T>((settle) => settle(check()))
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', onAbort))
  })
}

function outputsOf(inputs: readonly TaskInput[]): Record<string, string> {
  return Object.fromEntries(inputs.map((input) => [input.label, input.output]))
}

/** Decides a single-turn verdict with your own function: no judge call. */
export class CodeNode extends CodeNodeBase<'single-turn', CodeNodeOptions> {
  static readonly kind = 'CodeNode'
  static readonly mode = 'single-turn'
}

/** Decides a verdict about a conversation with your own function: no judge call. */
export class ConversationalCodeNode<
  const Params extends readonly TurnParam[] = readonly TurnParam[],
> extends CodeNodeBase<'conversational', ConversationalCodeNodeOptions<Params>> {
  static readonly kind = 'ConversationalCodeNode'
  static readonly mode = 'conversational'
}

/** What a single-turn check is given: the fields it names, and its TaskNode parents' outputs by label. */
function fieldsView(options: ReadingOptions, report: ReportIssue): InputView {
  const params = checkSingleTurnParams(options.evaluationParams, report)
  return {
    params,
    turnWindow: undefined,
    missingParams: (testCase) => params.filter((param) => (testCase as LLMTestCase)[param] === undefined),
    show: (testCase, inputs) => ({
      data: {
        outputs: outputsOf(inputs),
        ...Object.fromEntries(params.map((param) => [param, (testCase as LLMTestCase)[param]])),
      },
    }),
  }
}

/** What a conversational check is given: the turns in its window, the conversation's fields, its parents' outputs. */
function conversationView(options: ReadingOptions, report: ReportIssue): InputView {
  const { params, turnWindow } = checkConversationalOptions(options.evaluationParams, options.turnWindow, report)
  const turnFields = params.filter((param) => TURN_LEVEL_PARAMS.has(param) && param !== 'role')
  const readsTurns = params.some((param) => TURN_LEVEL_PARAMS.has(param))
  const caseFields = params.filter((param) => !TURN_LEVEL_PARAMS.has(param))
  // Missing are the conversation-level fields, as for a judge: turn-level ones are optional per turn.
  const { missingParams } = conversationalView(params, turnWindow)
  return {
    params,
    turnWindow,
    missingParams,
    show: (testCase, inputs) => {
      const conversation = testCase as ConversationalTestCase
      const turns = turnWindow ? resolveTurnWindow(turnWindow, conversation.turns.length) : undefined
      const data: Record<string, unknown> = { outputs: outputsOf(inputs) }
      if (readsTurns) {
        const [start, end] = turns ?? [0, conversation.turns.length - 1]
        data.turns = conversation.turns.slice(start, end + 1).map((turn, offset) => ({
          index: start + offset,
          role: turn.role,
          ...Object.fromEntries(turnFields.map((field) => [field, turn[field as keyof Turn]])),
        }))
      }
      for (const field of caseFields) data[field] = conversation[field as keyof ConversationalTestCase]
      return { data, ...(turns ? { turns } : {}) }
    },
  }
}
