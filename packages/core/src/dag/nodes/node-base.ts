import type { ConversationalTestCase, LLMTestCase } from '../../test-case/schemas.js'
import type { InputView } from '../../test-case/view.js'
import type { DagNode, NodeMode, ShownInput, TaskInput } from '../node.js'

/** What a kind's constructor has checked and hands its base: everything every node has. */
export interface NodeParts<Child> {
  readonly label: string | undefined
  readonly children: readonly Child[]
  /** Which parameters and turns the node reads. */
  readonly view: InputView
}

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
 * adds what it does.
 */
export abstract class NodeBase<Child = DagNode> {
  readonly kind: string
  readonly mode: NodeMode
  readonly label: string | undefined
  readonly children: readonly Child[]
  /** Test-case parameters the node reads; checked before any judge call. */
  readonly evaluationParams: readonly string[]
  /** Inclusive turn range for conversational nodes. */
  readonly turnWindow: readonly [number, number] | undefined
  readonly #view: InputView

  protected constructor(kind: string, mode: NodeMode, parts: NodeParts<Child>) {
    this.kind = kind
    this.mode = mode
    this.label = parts.label
    this.children = parts.children
    this.#view = parts.view
    this.evaluationParams = parts.view.params
    this.turnWindow = parts.view.turnWindow
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
  static fromFields<Node>(
    this: new (
      options: never,
    ) => Node,
    fields: Readonly<Record<string, unknown>>,
    children: readonly DagNode[],
  ): Node {
    return new this({ ...fields, children } as never)
  }
}
