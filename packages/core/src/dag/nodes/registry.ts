import type { DagNode, NodeMode } from '../node.js'
import { BinaryJudgementNode, ConversationalBinaryJudgementNode } from './binary-judgement-node.js'
import { CodeNode, ConversationalCodeNode } from './code-node.js'
import { ConversationalNonBinaryJudgementNode, NonBinaryJudgementNode } from './non-binary-judgement-node.js'
import { ConversationalTaskNode, TaskNode } from './task-node.js'
import { ConversationalToolCallNode, ToolCallNode } from './tool-call-node.js'
import { ConversationalVerdictNode, VerdictNode } from './verdict-node.js'

/** A node class as the registry holds it: its kind name, and how `fromJSON` builds it from its fields. */
export interface NodeKind<Node extends DagNode = DagNode> {
  /** The class name, as `toJSON` writes it in `type`. */
  readonly kind: string
  /** The mode its nodes have: the bases of a family read it, as they read `kind`, while building a node. */
  readonly mode: NodeMode
  /** Builds the node from its serialised fields and its already-built children (a verdict's metric is in fields). */
  fromFields(fields: Readonly<Record<string, unknown>>, children: readonly DagNode[]): Node
}

/**
 * Every node kind by name, as types: `SingleTurnNode` and `ConversationalNode` derive from this. (A type map,
 * because deriving the unions from the classes' values would make their option types refer to themselves.)
 */
export interface RegisteredNodes {
  TaskNode: TaskNode
  BinaryJudgementNode: BinaryJudgementNode
  NonBinaryJudgementNode: NonBinaryJudgementNode
  VerdictNode: VerdictNode
  ConversationalTaskNode: ConversationalTaskNode
  ConversationalBinaryJudgementNode: ConversationalBinaryJudgementNode
  ConversationalNonBinaryJudgementNode: ConversationalNonBinaryJudgementNode
  ConversationalVerdictNode: ConversationalVerdictNode
  ToolCallNode: ToolCallNode
  ConversationalToolCallNode: ConversationalToolCallNode
  CodeNode: CodeNode
  ConversationalCodeNode: ConversationalCodeNode
}

/** Any registered node. */
export type RegisteredNode = RegisteredNodes[keyof RegisteredNodes]

/**
 * Every node kind, in the order messages list them. Adding a kind means adding its class here and its line in
 * {@link RegisteredNodes}; the compiler checks the two lists agree.
 */
export const NODE_KINDS = [
  TaskNode,
  BinaryJudgementNode,
  NonBinaryJudgementNode,
  VerdictNode,
  ConversationalTaskNode,
  ConversationalBinaryJudgementNode,
  ConversationalNonBinaryJudgementNode,
  ConversationalVerdictNode,
  ToolCallNode,
  ConversationalToolCallNode,
  CodeNode,
  ConversationalCodeNode,
] as const satisfies readonly NodeKind[]

// Fails to compile when a class is in one list and not the other.
type Listed = InstanceType<(typeof NODE_KINDS)[number]>
const agree: [Listed, RegisteredNode] extends [RegisteredNode, Listed] ? true : never = true
void agree

// Fails to compile when a class's static mode is not the mode its instances are typed with.
type MisBranded = (typeof NODE_KINDS)[number] extends infer Kind
  ? Kind extends { readonly mode: infer Static; prototype: { readonly mode: infer Instance } }
    ? [Static] extends [Instance]
      ? never
      : Kind
    : Kind
  : never
const branded: [MisBranded] extends [never] ? true : never = true
void branded

/** The registered kinds by name, for `fromJSON`. */
export const NODE_KINDS_BY_NAME: ReadonlyMap<string, NodeKind> = new Map(
  NODE_KINDS.map((kind): [string, NodeKind] => [kind.kind, kind]),
)
