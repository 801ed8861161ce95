import { z } from 'zod'
import { ConfigurationError, type DagIssue, DagValidationError } from '../errors.js'
import type { Metric } from '../metric/types.js'
import type { DeepAcyclicGraph } from './graph.js'
import type { DagNode, NodeMode } from './node.js'
import { NODE_KINDS_BY_NAME } from './nodes/registry.js'
import { planOf } from './plan.js'
import { fromReferenceDag, isReferenceDag } from './reference-json.js'

const FORMAT = 'judgetree-dag'

/** A DAG as JSON: nodes by id, each with its type, its own options and the ids of its children. */
export const serializedDagSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(1),
  roots: z.array(z.string()).min(1),
  nodes: z.record(z.string(), z.looseObject({ type: z.string(), children: z.array(z.string()).optional() })),
})

/** The JSON form of a {@link DeepAcyclicGraph}. */
export type SerializedDag = z.infer<typeof serializedDagSchema>

/** Options for `DeepAcyclicGraph.fromJSON`. */
export interface DagFromJSONOptions {
  /**
   * Metrics a verdict continues with, by the name the JSON refers to them by (`"metric": "Correctness"`; in a DAG
   * saved by the reference library, a child metric's `kwargs.name`, else its `metric_class`).
   */
  metrics?: Readonly<Record<string, Metric<never>>> | undefined
  /**
   * The family of a DAG saved by the reference library, which does not record it: `'conversational'` builds its
   * `TaskNode`s as `ConversationalTaskNode`s, and so on. judgetree's own JSON names each node's class.
   * @default conversational when a node has a `turn_window` or names a field only conversations have, else single-turn
   */
  mode?: NodeMode | undefined
}

/** Writes a graph as JSON-ready data; a verdict's child metric is written as its name. */
export function dagToJSON(dag: DeepAcyclicGraph): SerializedDag {
  const plan = planOf(dag)
  const blocked = plan.order.flatMap((node) =>
    node.unserializable === undefined ? [] : [`${plan.names.get(node) ?? node.describe()}: ${node.unserializable}`],
  )
  if (blocked.length > 0) {
    throw new ConfigurationError(
      `This DAG cannot be written as JSON: ${blocked.join('; ')}. Keep the DAG in code (export it from a module ` +
        'your tests import), or replace each such node with one made of data, such as a BinaryJudgementNode.',
    )
  }
  const nodes: SerializedDag['nodes'] = {}
  for (const node of plan.order) {
    const { metric, ...fields } = node.fields() as { metric?: Metric<never> } & Record<string, unknown>
    const children = node.children.map((child) => plan.ids.get(child) as string)
    nodes[plan.ids.get(node) as string] = {
      type: node.kind,
      ...fields,
      ...(metric ? { metric: metric.name } : {}),
      ...(children.length > 0 ? { children } : {}),
    }
  }
  const roots = dag.rootNodes.map((root) => plan.ids.get(root as DagNode) as string)
  return { format: FORMAT, version: 1, roots, nodes }
}

/**
 * Builds a graph's root nodes from its JSON form with exactly the validation of building them in code: every
 * problem is reported in one {@link DagValidationError}. The graph itself then checks the rules between nodes.
 */
export function rootsFromJSON(json: unknown, options: DagFromJSONOptions = {}): DagNode[] {
  const text = typeof json === 'string' ? parseText(json) : json
  // A DAG saved by the reference library is read through its translation, and validated like any other.
  const { json: value, metrics } = isReferenceDag(text)
    ? fromReferenceDag(text, options)
    : { json: text, metrics: options.metrics }
  const parsed = serializedDagSchema.safeParse(value)
  if (!parsed.success) {
    throw new DagValidationError(
      parsed.error.issues.map((issue, index) => ({
        rule: 'json-shape',
        node: issue.path.length > 0 ? `JSON at ${issue.path.join('.')}` : 'JSON',
        message:
          index > 0
            ? `${issue.message}.`
            : `${issue.message}. A serialised DAG is { format: "${FORMAT}", version: 1, roots: [ids], nodes: { id: { type, ...options, children?: [ids] } } }, as written by dag.toJSON().`,
      })),
    )
  }
  const { nodes, roots } = parsed.data
  const built = new Map<string, DagNode>()
  const issues: DagIssue[] = []
  const building: string[] = []

  const buildingSet = new Set<string>()
  type Entry = (typeof nodes)[string]
  type Kind = NonNullable<ReturnType<typeof NODE_KINDS_BY_NAME.get>>
  interface Frame {
    readonly id: string
    readonly entry: Entry
    readonly kind: Kind
    next: number
    readonly children: (DagNode | undefined)[]
  }

  /** Starts building a node: its finished node (or failure) at once, or a frame whose children must be built first. */
  const start = (id: string, from: string): Frame | { readonly done: DagNode | undefined } => {
    const existing = built.get(id)
    if (existing) return { done: existing }
    const entry = nodes[id]
    if (!entry) {
      issues.push({
        rule: 'json-unknown-node',
        node: from,
        message: `refers to node "${id}", which is not in "nodes".`,
      })
      return { done: undefined }
    }
    if (buildingSet.has(id)) {
      issues.push({
        rule: 'cycle',
        node: `node "${id}"`,
        message: `the graph has a cycle: ${[...building.slice(building.indexOf(id)), id].join(' → ')}.`,
      })
      return { done: undefined }
    }
    const kind = NODE_KINDS_BY_NAME.get(entry.type)
    if (!kind) {
      issues.push({
        rule: 'json-unknown-type',
        node: `node "${id}"`,
        message: `has type "${entry.type}", which is not a node kind; use one of ${[...NODE_KINDS_BY_NAME.keys()].join(', ')}.`,
      })
      return { done: undefined }
    }
    building.push(id)
    buildingSet.add(id)
    return { id, entry, kind, next: 0, children: [] }
  }

  /** Builds a node whose children are built (or failed). */
  const finish = ({ id, entry, kind, children }: Frame): DagNode | undefined => {
    building.pop()
    buildingSet.delete(id)
    const { type: _type, children: _children, ...fields } = entry
    if (typeof fields.metric === 'string') {
      const metric = metrics?.[fields.metric]
      if (!metric) {
        issues.push({
          rule: 'json-unknown-metric',
          node: `node "${id}"`,
          message: `continues with the metric "${fields.metric}"; pass it as fromJSON(json, { metrics: { ${JSON.stringify(fields.metric)}: metric } }).`,
        })
        return undefined
      }
      fields.metric = metric
    }
    if (children.some((child) => child === undefined)) return undefined
    try {
      const node = kind.fromFields(fields, children as DagNode[])
      built.set(id, node)
      return node
    } catch (error) {
      if (!(error instanceof DagValidationError)) throw error
      issues.push(...error.issues.map((issue) => ({ ...issue, node: `node "${id}" (${issue.node})` })))
      return undefined
    }
  }

  /** Builds a node after its children, depth first; iterative, so a deep chain cannot overflow the stack. */
  const build = (id: string, from: string): DagNode | undefined => {
    const first = start(id, from)
    if ('done' in first) return first.done
    const frames: Frame[] = [first]
    for (;;) {
      const frame = frames[frames.length - 1] as Frame
      const childIds = frame.entry.children ?? []
      if (frame.next < childIds.length) {
        const child = start(childIds[frame.next++] as string, `node "${frame.id}"`)
        if ('done' in child) frame.children.push(child.done)
        else frames.push(child)
        continue
      }
      frames.pop()
      const node = finish(frame)
      const parent = frames[frames.length - 1]
      if (parent === undefined) return node
      parent.children.push(node)
    }
  }

  const rootNodes = roots.map((id) => build(id, 'roots'))
  if (issues.length === 0) {
    for (const id of Object.keys(nodes)) {
      if (!built.has(id)) {
        issues.push({
          rule: 'json-unreachable-node',
          node: `node "${id}"`,
          message: 'is not reachable from any root; list it in "roots" or as some node\'s child, or remove it.',
        })
      }
    }
  }
  if (issues.length > 0) throw new DagValidationError(issues)
  return rootNodes as DagNode[]
}

function parseText(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new DagValidationError([
      { rule: 'json-syntax', node: 'JSON', message: `is not valid JSON: ${(error as Error).message}` },
    ])
  }
}
