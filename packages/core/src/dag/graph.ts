import { type DotOptions, dagToDot } from './dot.js'
import { dagToMermaid, type MermaidOptions } from './mermaid.js'
import type { NodeMode } from './node.js'
import { sealNodes } from './nodes/node-base.js'
import type { ConversationalNode, SingleTurnNode } from './nodes/types.js'
import { type GraphPlan, hasPlan, type ParentEdge, planGraph, planOf } from './plan.js'
import { type DagFromJSONOptions, dagToJSON, rootsFromJSON, type SerializedDag } from './serialize.js'

/** Options for {@link DeepAcyclicGraph}. */
export interface DeepAcyclicGraphOptions<Node extends SingleTurnNode | ConversationalNode> {
  /** The nodes the walk starts from (never a VerdictNode). Several roots run as parallel branches. */
  rootNodes: readonly Node[]
}

/**
 * A decision tree for a DAG metric, checked against every construction rule when built: an invalid graph throws
 * one {@link DagValidationError} listing every problem. After that it is immutable and safe to share.
 *
 * @example
 * const dag = new DeepAcyclicGraph({ rootNodes: [extractHeadings] })
 */
export class DeepAcyclicGraph<Node extends SingleTurnNode | ConversationalNode = SingleTurnNode | ConversationalNode> {
  readonly rootNodes: readonly Node[]
  /** Whether the graph judges single-turn test cases or conversations. */
  readonly mode: NodeMode

  constructor(options: DeepAcyclicGraphOptions<Node>) {
    const plan = planGraph(this, options)
    // Checked and planned with these children: adding one now would leave the plan stale.
    sealNodes(plan.order)
    this.rootNodes = Object.freeze([...(options.rootNodes as Node[])])
    this.mode = plan.mode
    Object.freeze(this)
  }

  /** The graph as JSON-ready data; `DeepAcyclicGraph.fromJSON` builds it back with the same validation. */
  toJSON(): SerializedDag {
    return dagToJSON(this)
  }

  /**
   * Builds a graph from `toJSON()` output (an object or a JSON string). Child metrics are referred to by name and
   * passed in `options.metrics`.
   */
  static fromJSON<Node extends SingleTurnNode | ConversationalNode = SingleTurnNode | ConversationalNode>(
    json: unknown,
    options?: DagFromJSONOptions,
  ): DeepAcyclicGraph<Node> {
    return new DeepAcyclicGraph<Node>({ rootNodes: rootsFromJSON(json, options) as Node[] })
  }

  /** Draws the graph as a Mermaid flowchart; pass a result's `trace` to highlight the walked path. */
  toMermaid(options?: MermaidOptions): string {
    return dagToMermaid(this, options)
  }

  /**
   * Draws the graph in Graphviz's DOT language; pass a result's `trace` to highlight the walked path. Render it
   * with any Graphviz (`dot -Tsvg`, or Graphviz compiled to WebAssembly such as `@viz-js/viz`).
   */
  toDot(options?: DotOptions): string {
    return dagToDot(this, options)
  }
}

/** The executor's view of a built graph. */
export function graphPlan(dag: DeepAcyclicGraph): GraphPlan {
  return planOf(dag)
}

/** Whether a value is a built DeepAcyclicGraph. */
export function isDeepAcyclicGraph(value: unknown): value is DeepAcyclicGraph {
  return hasPlan(value)
}

export type { GraphPlan, ParentEdge }
