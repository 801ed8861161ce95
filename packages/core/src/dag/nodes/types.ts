import type { BinaryJudgementNode, ConversationalBinaryJudgementNode } from './binary-judgement-node.js'
import type { CodeNode, ConversationalCodeNode } from './code-node.js'
import type { ConversationalNonBinaryJudgementNode, NonBinaryJudgementNode } from './non-binary-judgement-node.js'
import type { ConversationalTaskNode, TaskNode } from './task-node.js'
import type { ConversationalToolCallNode, ToolCallNode } from './tool-call-node.js'
import type { ConversationalVerdictNode, VerdictNode } from './verdict-node.js'

/** Any node of a single-turn DAG. */
export type SingleTurnNode =
  | TaskNode
  | BinaryJudgementNode
  | NonBinaryJudgementNode
  | CodeNode
  | ToolCallNode
  | VerdictNode

/** Any node of a conversational DAG. */
export type ConversationalNode =
  | ConversationalTaskNode
  | ConversationalBinaryJudgementNode
  | ConversationalNonBinaryJudgementNode
  | ConversationalCodeNode
  | ConversationalToolCallNode
  | ConversationalVerdictNode
