import type { DagNode } from '../node.js'
import { BinaryJudgementNode, ConversationalBinaryJudgementNode } from './binary-judgement-node.js'
import { ConversationalNonBinaryJudgementNode, NonBinaryJudgementNode } from './non-binary-judgement-node.js'
import { ConversationalTaskNode, TaskNode } from './task-node.js'
import { ConversationalToolCallNode, ToolCallNode } from './tool-call-node.js'
import { ConversationalVerdictNode, VerdictNode } from './verdict-node.js'

/** Builds a node from its serialised fields and its already-built children (a verdict's child metric is in fields). */
export type NodeFactory = (fields: Record<string, unknown>, children: DagNode[]) => DagNode

const withChildren = (fields: Record<string, unknown>, children: DagNode[]) => ({ ...fields, children }) as never
const verdict = (fields: Record<string, unknown>, children: DagNode[]) => {
  const { metric, ...rest } = fields
  const child = children[0] ?? metric
  return (child === undefined ? rest : { ...rest, child }) as never
}

/** Every node kind by class name: adding a kind means adding one line here. */
export const NODE_FACTORIES: Readonly<Record<string, NodeFactory>> = {
  TaskNode: (fields, children) => new TaskNode(withChildren(fields, children)),
  BinaryJudgementNode: (fields, children) => new BinaryJudgementNode(withChildren(fields, children)),
  NonBinaryJudgementNode: (fields, children) => new NonBinaryJudgementNode(withChildren(fields, children)),
  VerdictNode: (fields, children) => new VerdictNode(verdict(fields, children)),
  ConversationalTaskNode: (fields, children) => new ConversationalTaskNode(withChildren(fields, children)),
  ConversationalBinaryJudgementNode: (fields, children) =>
    new ConversationalBinaryJudgementNode(withChildren(fields, children)),
  ConversationalNonBinaryJudgementNode: (fields, children) =>
    new ConversationalNonBinaryJudgementNode(withChildren(fields, children)),
  ConversationalVerdictNode: (fields, children) => new ConversationalVerdictNode(verdict(fields, children)),
  ToolCallNode: (fields, children) => new ToolCallNode(withChildren(fields, children)),
  ConversationalToolCallNode: (fields, children) => new ConversationalToolCallNode(withChildren(fields, children)),
}
