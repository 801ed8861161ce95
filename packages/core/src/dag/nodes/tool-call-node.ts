import { z } from 'zod'
import { expecting, flagSchema } from '../../internal/options.js'
import type { ConversationalTestCase, LLMTestCase } from '../../test-case/schemas.js'
import { checkConversationalOptions, type InputView, resolveTurnWindow } from '../../test-case/view.js'
import type { DagNode, NodeMode, NodeRunContext, NodeRunResult, ReportIssue } from '../node.js'
import { VerdictParent } from './add-verdict.js'
import { checkNodeOption, childrenOption, compact, nodeOptionIssues, optionalLabel } from './construction.js'
import { staticsOf } from './node-base.js'
import { checkVerdictChildren } from './verdict-children.js'
import type { ConversationalVerdictNode, VerdictNode, VerdictNodeBase } from './verdict-node.js'

interface ToolCallNodeBaseOptions<Child> {
  /** Tool names that must all have been called. @default [] */
  required?: readonly string[] | undefined
  /** Tool names that must not have been called. @default [] */
  forbidden?: readonly string[] | undefined
  /** Whether `required` must have been called in that order (other calls may come between). @default false */
  inOrder?: boolean | undefined
  /** Exactly two VerdictNodes: verdict true (every rule held) and verdict false; or add them with `addVerdict`. */
  children?: readonly Child[] | undefined
  /** Shown in traces instead of the rules. */
  label?: string | undefined
}

/** Options for {@link ToolCallNode}. */
export type ToolCallNodeOptions = ToolCallNodeBaseOptions<VerdictNode>

/** Options for {@link ConversationalToolCallNode}. */
export interface ConversationalToolCallNodeOptions extends ToolCallNodeBaseOptions<ConversationalVerdictNode> {
  /** Inclusive range of turns whose tool calls count; negative indices count from the end. @default every turn */
  turnWindow?: readonly [number, number] | undefined
}

/** One tool call, with the turn it was made in (conversations only). */
interface Call {
  readonly name: string
  readonly turn?: number
}

abstract class ToolCallNodeBase<Mode extends NodeMode, Options extends ToolCallNodeBaseOptions<unknown>>
  extends VerdictParent<boolean, Mode>
  implements DagNode
{
  // It reads `toolsCalled` itself and shows no judge anything.
  readonly readsInput = false
  readonly inheritsInput = false
  readonly required: readonly string[]
  readonly forbidden: readonly string[]
  readonly inOrder: boolean

  constructor(options: Options) {
    const { kind, mode } = staticsOf(new.target)
    const keys = [
      'required',
      'forbidden',
      'inOrder',
      'children',
      'label',
      ...(mode === 'single-turn' ? [] : ['turnWindow']),
    ]
    const { report, done } = nodeOptionIssues(kind, options, keys)
    const required = toolNames(options, 'required', report)
    const forbidden = toolNames(options, 'forbidden', report)
    const inOrder = checkNodeOption(flagSchema.optional(), options, report, 'inOrder', 'in-order')
    if (required.length === 0 && forbidden.length === 0) {
      report('tool-call-rules', 'a tool-call node needs at least one tool name in required or forbidden.')
    }
    const both = required.filter((name) => forbidden.includes(name))
    if (both.length > 0) {
      report(
        'tool-call-contradiction',
        `${both.map((name) => JSON.stringify(name)).join(', ')} is both required and forbidden, so the verdict could never be true.`,
      )
    }
    const label = optionalLabel(options, report)
    const children = childrenOption<VerdictNodeBase>(options, report)
    const { turnWindow } = options as { turnWindow?: unknown }
    super({ label, children, view: callsView(mode, turnWindow, report) })
    this.required = required
    this.forbidden = forbidden
    this.inOrder = inOrder.ok && inOrder.value === true
    done()
  }

  /** The rules, as the trace and Mermaid show them. */
  get text(): string {
    const parts: string[] = []
    if (this.required.length > 0) parts.push(`required ${this.required.join(this.inOrder ? ' → ' : ', ')}`)
    if (this.forbidden.length > 0) parts.push(`forbidden ${this.forbidden.join(', ')}`)
    return parts.join('; ')
  }

  staticDetails() {
    return { title: 'Tool calls' }
  }

  picture() {
    return { shape: 'hexagon' as const, title: 'Tool calls', text: this.label ?? this.text }
  }

  fields() {
    return compact({
      required: this.required.length > 0 ? this.required : undefined,
      forbidden: this.forbidden.length > 0 ? this.forbidden : undefined,
      inOrder: this.inOrder ? true : undefined,
      // It reads toolsCalled by its nature, not through an evaluationParams option.
      turnWindow: this.turnWindow,
      label: this.label,
    })
  }

  override describe(): string {
    return this.label === undefined ? `${this.kind} (${this.text})` : `${this.kind} "${this.label}"`
  }

  validateChildren(report: ReportIssue): void {
    checkVerdictChildren(`a ${this.kind}`, this.children, report, false)
  }

  async run(context: NodeRunContext): Promise<NodeRunResult> {
    const { calls } = context.input() as { calls: readonly Call[] }
    const problems = this.problems(calls)
    const verdict = problems.length === 0
    const called =
      calls.length === 0 ? 'No tool was called.' : `Tools called: ${calls.map((call) => call.name).join(', ')}.`
    const reason = verdict ? `${this.passed()} ${called}` : `${capitalise(problems.join('; '))}. ${called}`
    const chosen = this.children.filter((child) => child.verdict === verdict)
    return { activates: chosen, judgement: { verdict, reason }, details: { verdict, reason } }
  }

  private problems(calls: readonly Call[]): string[] {
    const names = calls.map((call) => call.name)
    const problems: string[] = []
    const missing = this.required.filter((name) => !names.includes(name))
    if (missing.length > 0) {
      problems.push(
        `required tool${missing.length === 1 ? '' : 's'} ${quoted(missing)} ${missing.length === 1 ? 'was' : 'were'} not called`,
      )
    }
    for (const name of this.forbidden) {
      const turns = calls.flatMap((call) => (call.name === name && call.turn !== undefined ? [call.turn] : []))
      if (!names.includes(name)) continue
      problems.push(
        `forbidden tool "${name}" was called${turns.length > 0 ? ` (turn${turns.length === 1 ? '' : 's'} ${turns.join(', ')})` : ''}`,
      )
    }
    if (this.inOrder && missing.length === 0 && !isSubsequence(this.required, names)) {
      problems.push(`required tools were not called in order ${this.required.join(' → ')}`)
    }
    return problems
  }

  private passed(): string {
    const parts: string[] = []
    if (this.required.length > 0) {
      parts.push(`every required tool was called${this.inOrder ? ' in order' : ''} (${this.required.join(', ')})`)
    }
    if (this.forbidden.length > 0) parts.push(`no forbidden tool was called (${this.forbidden.join(', ')})`)
    return `${capitalise(parts.join(' and '))}.`
  }
}

/** Decides true or false from the tools a single-turn test case called, without a judge call. */
export class ToolCallNode extends ToolCallNodeBase<'single-turn', ToolCallNodeOptions> {
  static readonly kind = 'ToolCallNode'
  static readonly mode = 'single-turn'
}

/** Decides true or false from the tools called across a conversation's turns, without a judge call. */
export class ConversationalToolCallNode extends ToolCallNodeBase<'conversational', ConversationalToolCallNodeOptions> {
  static readonly kind = 'ConversationalToolCallNode'
  static readonly mode = 'conversational'
}

/** What a tool-call node reads: every call (single-turn), or the calls of each turn in its window, with the turn. */
function callsView(mode: NodeMode, turnWindow: unknown, report: ReportIssue): InputView {
  if (mode === 'single-turn') {
    return {
      params: ['toolsCalled'],
      turnWindow: undefined,
      // Pass toolsCalled: [] for "no tools"; a test case without the field may simply not record them.
      missingParams: (testCase) => ((testCase as LLMTestCase).toolsCalled === undefined ? ['toolsCalled'] : []),
      show: (testCase) => ({
        data: { calls: ((testCase as LLMTestCase).toolsCalled ?? []).map((call) => ({ name: call.name })) },
      }),
    }
  }
  // Checked like any window over turns; a turn without toolsCalled called none, so nothing can be missing.
  const window = checkConversationalOptions(['toolsCalled'], turnWindow, report).turnWindow
  return {
    params: [],
    turnWindow: window,
    missingParams: () => [],
    show: (testCase) => {
      const conversation = testCase as ConversationalTestCase
      const turns = window ? resolveTurnWindow(window, conversation.turns.length) : undefined
      const [start, end] = turns ?? [0, conversation.turns.length - 1]
      const calls = conversation.turns
        .slice(start, end + 1)
        .flatMap((turn, offset) => (turn.toolsCalled ?? []).map((call) => ({ name: call.name, turn: start + offset })))
      return { data: { calls }, ...(turns ? { turns } : {}) }
    },
  }
}

const toolNamesSchema = expecting(
  z.array(z.string().refine((name) => name.trim().length > 0)),
  'an array of tool names (non-empty strings)',
).optional()

function toolNames(options: object, key: 'required' | 'forbidden', report: ReportIssue): readonly string[] {
  const checked = checkNodeOption(toolNamesSchema, options, report, key)
  return Object.freeze(checked.ok && checked.value !== undefined ? [...new Set(checked.value)] : [])
}

/** Whether `wanted` appears in `names` in order, other names allowed between. */
function isSubsequence(wanted: readonly string[], names: readonly string[]): boolean {
  let next = 0
  for (const name of names) if (name === wanted[next]) next++
  return next === wanted.length
}

function quoted(names: readonly string[]): string {
  return names.map((name) => JSON.stringify(name)).join(', ')
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
