// A DAG saved by the reference library (its `to_json`-style export, also what its platform hands out), turned into
// judgetree's JSON form so that `DeepAcyclicGraph.fromJSON` builds and validates it like any other:
//
//   { "nodes": { "<uuid>": { "type": "TaskNode" | "BinaryJudgementNode" | "NonBinaryJudgementNode" | "VerdictNode",
//                            snake_case options, "children": ["<uuid>", …] }, … } }
//
// It records no roots (they are the nodes no other node refers to) and no mode: its type names are the single-turn
// ones for both families, so the mode is the caller's (`mode`), or read from the fields the nodes name. A verdict's
// child is `{ type: "node", ref }`, `{ type: "geval", …its options }` or `{ type: "metric", metric_class, kwargs }`.
import { DagValidationError } from '../errors.js'
import type { Metric } from '../metric/types.js'
import { ConversationalGEval } from '../metrics/conversational-geval.js'
import { GEval } from '../metrics/geval.js'
import type { NodeMode } from './node.js'

type Fields = Record<string, unknown>

/** A document without judgetree's `format` whose `nodes` is an object: the reference library's form. */
export function isReferenceDag(value: unknown): value is { nodes: Record<string, unknown> } {
  if (typeof value !== 'object' || value === null || 'format' in value) return false
  const nodes = (value as { nodes?: unknown }).nodes
  return typeof nodes === 'object' && nodes !== null && !Array.isArray(nodes)
}

// Fields only a conversation has; the reference's other field names are shared by both families.
const CONVERSATIONAL_FIELDS = new Set([
  'role',
  'content',
  'scenario',
  'expected_outcome',
  'chatbot_role',
  'user_description',
])

/** The reference's `actual_output` is judgetree's `actualOutput`. */
const camel = (name: string) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())

/**
 * The reference document in judgetree's JSON form, with the child metrics its verdicts name: a G-Eval child is built
 * from its options unless `metrics` has one of that name; any other metric must be passed in `metrics` under its
 * name (its `kwargs.name`, else its `metric_class`).
 */
export function fromReferenceDag(
  document: { nodes: Record<string, unknown> },
  options: {
    readonly mode?: NodeMode | undefined
    readonly metrics?: Readonly<Record<string, Metric<never>>> | undefined
  },
): { json: Fields; metrics: Record<string, Metric<never>> } {
  const entries = Object.entries(document.nodes).map(([id, entry]) => [id, asFields(entry, id)] as const)
  const mode = options.mode ?? inferredMode(entries.map(([, entry]) => entry))
  const prefix = mode === 'conversational' ? 'Conversational' : ''
  const metrics: Record<string, Metric<never>> = { ...options.metrics }
  const referenced = new Set<string>()
  const nodes: Record<string, Fields> = {}
  for (const [id, entry] of entries) {
    const { type, children, child, label, evaluation_params, turn_window, output_label, ...rest } = entry
    const childIds = Array.isArray(children) ? children.filter((item): item is string => typeof item === 'string') : []
    const node: Fields = {
      type: typeof type === 'string' && !type.startsWith('Conversational') ? `${prefix}${type}` : type,
      ...Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== null)),
      ...(typeof label === 'string' ? { label } : {}),
      ...(output_label === undefined ? {} : { outputLabel: output_label }),
      ...(Array.isArray(evaluation_params) ? { evaluationParams: evaluation_params.map(String).map(camel) } : {}),
      ...(Array.isArray(turn_window) ? { turnWindow: turn_window } : {}),
    }
    if (child !== undefined && child !== null) {
      const continued = verdictChild(child, id, mode, metrics)
      if (continued.ref !== undefined) childIds.push(continued.ref)
      else node.metric = continued.metric
    }
    for (const childId of childIds) referenced.add(childId)
    nodes[id] = childIds.length > 0 ? { ...node, children: childIds } : node
  }
  const roots = entries.map(([id]) => id).filter((id) => !referenced.has(id))
  if (roots.length === 0) {
    throw new DagValidationError([
      {
        rule: 'json-roots',
        node: 'JSON',
        message: "every node is some node's child, so there is no root: the graph has a cycle.",
      },
    ])
  }
  return { json: { format: 'judgetree-dag', version: 1, roots, nodes }, metrics }
}

function asFields(entry: unknown, id: string): Fields {
  if (typeof entry === 'object' && entry !== null && !Array.isArray(entry)) return entry as Fields
  throw new DagValidationError([
    { rule: 'json-shape', node: `node "${id}"`, message: 'is not an object with a "type" and its options.' },
  ])
}

/** Conversational when a node has a turn window, names a field only conversations have, or continues with one. */
function inferredMode(entries: readonly Fields[]): NodeMode {
  const conversational = entries.some((entry) => {
    const params = Array.isArray(entry.evaluation_params) ? entry.evaluation_params : []
    const child = entry.child as Fields | undefined
    return (
      Array.isArray(entry.turn_window) ||
      params.some((param) => CONVERSATIONAL_FIELDS.has(String(param))) ||
      child?.metric_class === 'ConversationalGEval'
    )
  })
  return conversational ? 'conversational' : 'single-turn'
}

/** A verdict's child: the node it continues at, or the name of the metric it continues with (added to `metrics`). */
function verdictChild(
  child: unknown,
  id: string,
  mode: NodeMode,
  metrics: Record<string, Metric<never>>,
): { ref?: string; metric?: string } {
  const spec = (typeof child === 'object' && child !== null ? child : {}) as Fields
  if (spec.type === 'node' && typeof spec.ref === 'string') return { ref: spec.ref }
  const isGEval = spec.type === 'geval' || spec.metric_class === 'GEval' || spec.metric_class === 'ConversationalGEval'
  const kwargs = (spec.type === 'geval' ? spec : (spec.kwargs ?? {})) as Fields
  const name =
    typeof kwargs.name === 'string'
      ? kwargs.name
      : typeof spec.metric_class === 'string'
        ? spec.metric_class
        : undefined
  if (spec.type !== 'geval' && spec.type !== 'metric' && spec.type !== 'node') {
    throw new DagValidationError([
      {
        rule: 'json-verdict-child',
        node: `node "${id}"`,
        message: `has a child of type ${JSON.stringify(spec.type)}; the reference's are "node" (with "ref"), "geval" and "metric".`,
      },
    ])
  }
  if (name === undefined || (spec.type === 'node' && typeof spec.ref !== 'string')) {
    throw new DagValidationError([
      {
        rule: 'json-verdict-child',
        node: `node "${id}"`,
        message: 'has a child with neither a "ref" nor a metric name.',
      },
    ])
  }
  // A metric passed in by name wins; a G-Eval is rebuilt from its options; any other must be passed in.
  if (metrics[name] === undefined && isGEval) metrics[name] = gevalFrom(kwargs, name, mode)
  return { metric: name }
}

// The reference's G-Eval options judgetree has; the others (model, async_mode, verbose_mode, include_reason,
// top_logprobs, …) are how the reference runs a metric, which judgetree decides in its own options.
const GEVAL_OPTIONS = ['criteria', 'evaluation_steps', 'evaluation_params', 'threshold', 'strict_mode']

function gevalFrom(kwargs: Fields, name: string, mode: NodeMode): Metric<never> {
  const options: Fields = { name }
  for (const key of GEVAL_OPTIONS) {
    const value = kwargs[key]
    if (value === null || value === undefined) continue
    options[camel(key)] = key === 'evaluation_params' && Array.isArray(value) ? value.map(String).map(camel) : value
  }
  return (mode === 'conversational' ? new ConversationalGEval(options as never) : new GEval(options as never)) as never
}
