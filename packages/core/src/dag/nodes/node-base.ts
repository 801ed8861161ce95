import { DagValidationError } from '../../errors.js'
import type { ConversationalTestCase, LLMTestCase } from '../../test-case/schemas.js'
import {
  checkConversationalOptions,
  checkSingleTurnParams,
  conversationalView,
  type InputView,
  singleTurnView,
} from '../../test-case/view.js'
import type { DagNode, NodeMode, ReportIssue, ShownInput, TaskInput } from '../node.js'
import { describeNodeOptions, type Identify } from './construction.js'

// Nodes a built graph holds: their children are fixed from then on.
const sealed = new WeakSet<object>()

/** Fixes the children of the nodes a DeepAcyclicGraph was built from (it planned its walks with them). */
export function sealNodes(nodes: Iterable<object>): void {
  for (const node of nodes) sealed.add(node)
}

/** What a kind's constructor has checked and hands its base: everything every node has. */
export interface NodeParts<Child> {
  readonly label: string | undefined
  readonly children: readonly Child[]
  /** Which parameters and turns the node reads. */
  readonly view: InputView
  /** How messages name the node from its fields when it has no label (as its option messages do). */
  readonly identify?: Identify | undefined
}

/** What each node class says of itself in statics: its kind name (as `toJSON` writes it) and its mode. */
export interface NodeStatics {
  readonly kind: string
  readonly mode: NodeMode
}

/**
 * The statics of the class being built, from a base's `new.target`: a twin class states its kind and mode once, as
 * statics, and the bases of its family read them here (before `super`, to name the node in option messages).
 */
export function staticsOf(target: object): NodeStatics {
  return target as unknown as NodeStatics
}

/** The options of a node that shows test-case fields to a judge: which fields (and turns, in a conversation). */
export interface ReadingOptions {
  readonly evaluationParams?: readonly string[] | undefined
  readonly turnWindow?: readonly [number, number] | undefined
}

/** The options of {@link ReadingOptions} a node of `mode` takes: a single-turn node has no turns to window. */
export function readingKeys(mode: NodeMode): readonly string[] {
  return mode === 'single-turn' ? ['evaluationParams'] : ['evaluationParams', 'turnWindow']
}

/** Checks `evaluationParams` (and a conversational node's `turnWindow`) and gives the view a judge is shown. */
export function readingView(mode: NodeMode, options: ReadingOptions, report: ReportIssue): InputView {
  if (mode === 'single-turn') return singleTurnView(checkSingleTurnParams(options.evaluationParams, report))
  const checked = checkConversationalOptions(options.evaluationParams, options.turnWindow, report)
  return conversationalView(checked.params, checked.turnWindow)
}

/** A node class, as `fromFields` calls it: its options were checked by its constructor. */
export type Builds<Node> = new (options: never) => Node

/** A view for nodes that read nothing of the test case (verdicts). */
export const NO_VIEW: InputView = Object.freeze({
  params: Object.freeze([]),
  turnWindow: undefined,
  missingParams: () => [],
  show: () => ({ data: {} }),
})

/**
 * What every node kind shares: its kind and mode, label, children, what it reads of a test case, and how the
 * registry builds it back from `toJSON` fields. A kind extends this (directly or through a base of its family) and
 * adds what it does; its classes name their kind and `Mode` in statics (see {@link NodeStatics}).
 */
export abstract class NodeBase<Child = DagNode, Mode extends NodeMode = NodeMode> {
  readonly kind: string
  readonly mode: Mode
  /** Every node but a verdict can start a walk. */
  readonly canBeRoot: boolean = true
  /** Every node but a verdict is numbered as a step of the walk when it runs. */
  readonly step: boolean = true
  readonly label: string | undefined
  // Grown in place by appendChild; `children` hands out a frozen copy, made again only after a child was added, so
  // an array handed out stays as it was and adding n verdicts one by one is linear, not quadratic.
  readonly #children: Child[]
  #shownChildren: readonly Child[] | undefined
  /** Test-case parameters the node reads; checked before any judge call. */
  readonly evaluationParams: readonly string[]
  /** Inclusive turn range for conversational nodes. */
  readonly turnWindow: readonly [number, number] | undefined
  readonly #view: InputView
  readonly #identify: Identify | undefined

  protected constructor(parts: NodeParts<Child>) {
    const { kind, mode } = staticsOf(new.target)
    this.kind = kind
    this.mode = mode as Mode
    this.label = parts.label
    this.#children = [...parts.children]
    this.#shownChildren = Object.isFrozen(parts.children) ? parts.children : undefined
    this.#view = parts.view
    this.#identify = parts.identify
    this.evaluationParams = parts.view.params
    this.turnWindow = parts.view.turnWindow
  }

  /** The nodes this node points to, in the order they were given (in `children`, then by `addNode`/`addVerdict`). */
  get children(): readonly Child[] {
    this.#shownChildren ??= Object.freeze([...this.#children])
    return this.#shownChildren
  }

  /**
   * Adds a child after construction (top-down building). The rules about children are checked when the
   * DeepAcyclicGraph is built, as for `children`; a node already in a built graph takes no more, since that graph
   * was checked and planned without them.
   */
  protected appendChild<Added extends Child>(child: Added, method: string): Added {
    if (sealed.has(this)) {
      throw new DagValidationError([
        {
          rule: 'node-sealed',
          node: this.describe(),
          message:
            `${method} was called on a node that is already part of a built DeepAcyclicGraph, which was checked and ` +
            'planned without the new child. Add every child before building the graph; to change a built graph, ' +
            'create its nodes again.',
        },
      ])
    }
    this.#children.push(child)
    this.#shownChildren = undefined
    return child
  }

  /** The node's own options, not its children, as JSON-ready data (a verdict's child metric is `metric`). */
  abstract fields(): Readonly<Record<string, unknown>>

  /** A short human name for messages and traces: its label, else what its kind picks from its fields. */
  describe(): string {
    return describeNodeOptions(this.kind, this.fields(), this.#identify)
  }

  /** The `toJSON` fields of what the node reads, and its label: kinds list their own fields, then these. */
  protected readingFields(): Record<string, unknown> {
    return {
      evaluationParams: this.evaluationParams.length > 0 ? this.evaluationParams : undefined,
      turnWindow: this.turnWindow,
      label: this.label,
    }
  }

  missingParams(testCase: LLMTestCase | ConversationalTestCase): readonly string[] {
    return this.#view.missingParams(testCase)
  }

  show(testCase: LLMTestCase | ConversationalTestCase, inputs: readonly TaskInput[]): ShownInput {
    return this.#view.show(testCase, inputs)
  }

  /**
   * Builds a node of this kind from its `fields()` and its already-built children, as `fromJSON` does; kinds whose
   * options are shaped otherwise (verdicts) override it.
   */
  static fromFields<Node>(this: Builds<Node>, fields: Readonly<Record<string, unknown>>, children: readonly DagNode[]) {
    return new this({ ...fields, children } as never)
  }
}
