import type { MetricTrace, TraceNode } from '../trace/types.js'
import type { DagNode } from './node.js'
import type { GraphPlan } from './plan.js'

/** What a picture of the graph needs to know about one measurement: which nodes ran and which edges were walked. */
export interface WalkView {
  readonly id: (node: DagNode) => string
  readonly status: (node: DagNode) => TraceNode['status'] | undefined
  readonly walked: (node: DagNode, child: DagNode) => boolean
  /** The probability of a walked edge to a verdict, when the judge gave one; undefined for any other edge. */
  readonly probability: (node: DagNode, child: DagNode) => number | undefined
}

/** Reads a trace against the graph's plan; without a trace, nothing ran and nothing was walked. */
export function walkView(plan: GraphPlan, trace: MetricTrace | undefined): WalkView {
  const entries = new Map(trace?.nodes.map((node) => [node.id, node]) ?? [])
  const id = (node: DagNode) => plan.ids.get(node) as string
  const status = (node: DagNode) => entries.get(id(node))?.status
  const ran = (node: DagNode) => status(node) === 'ran'
  // An edge to a verdict was walked only if this node chose it: a verdict shared with another judgement may have
  // run because the other one chose it.
  const walked = (node: DagNode, child: DagNode) =>
    ran(node) && ran(child) && (node.childEdge !== 'choice' || String(entries.get(id(node))?.verdict) === child.text)
  const probability = (node: DagNode, child: DagNode) =>
    node.childEdge === 'choice' && walked(node, child) ? entries.get(id(node))?.probabilities?.[child.text] : undefined
  return { id, status, walked, probability }
}
