import { type DagIssue, DagValidationError } from '../errors.js'
import { describeValue } from '../internal/describe-value.js'
import { type DagNode, type EdgeKind, isDagNode, type NodeMode } from './node.js'

/** An edge into a node, as the executor needs it. */
export interface ParentEdge {
  readonly node: DagNode
  readonly edge: EdgeKind
}

/** What the executor needs, computed once when the graph is built. */
export interface GraphPlan {
  readonly mode: NodeMode
  /** Every node, in a topological order that breaks ties by declaration order. */
  readonly order: readonly DagNode[]
  /** `n1`, `n2`, … in declaration (depth-first) order. */
  readonly ids: ReadonlyMap<DagNode, string>
  /** Incoming edges, in declaration order. */
  readonly parents: ReadonlyMap<DagNode, readonly ParentEdge[]>
  /** Readable names including the path for verdicts, e.g. `BinaryJudgementNode "Satisfied?" → VerdictNode true`. */
  readonly names: ReadonlyMap<DagNode, string>
  /** Test-case parameters any node reads. */
  readonly params: readonly string[]
  /**
   * Judgements with no input of their own, reached through verdicts: each is shown what the judgement above the
   * chosen verdict was shown. Maps the node to those judgements, in declaration order.
   */
  readonly inherits: ReadonlyMap<DagNode, readonly DagNode[]>
}

const plans = new WeakMap<object, GraphPlan>()

/** Checks a graph's nodes against every construction rule and plans its walks; throws one error listing every issue. */
export function planGraph(owner: object, options: unknown): GraphPlan {
  const plan = buildPlan(options)
  plans.set(owner, plan)
  return plan
}

/** The plan of a built graph. */
export function planOf(dag: object): GraphPlan {
  const plan = plans.get(dag)
  if (!plan) throw new TypeError('not a DeepAcyclicGraph built with `new DeepAcyclicGraph(...)`')
  return plan
}

/** Whether a value is a built graph (one with a plan). */
export function hasPlan(value: unknown): boolean {
  return typeof value === 'object' && value !== null && plans.has(value)
}

function buildPlan(options: unknown): GraphPlan {
  const issues: DagIssue[] = []
  const rootNodes = (options as { rootNodes?: unknown } | undefined)?.rootNodes
  if (!Array.isArray(rootNodes) || rootNodes.length === 0) {
    throw new DagValidationError([
      {
        rule: 'root-nodes',
        node: 'DeepAcyclicGraph',
        message: `rootNodes must be a non-empty array of nodes; got ${describeValue(rootNodes)}.`,
      },
    ])
  }

  const ids = new Map<DagNode, string>()
  const names = new Map<DagNode, string>()
  const parents = new Map<DagNode, ParentEdge[]>()
  const discovered: DagNode[] = []
  const onStack: DagNode[] = []
  const cycles: string[] = []

  const nameOf = (node: DagNode) => names.get(node) ?? node.describe()
  const report = (node: string, rule: string, message: string) => issues.push({ rule, node, message })

  const onStackSet = new Set<DagNode>()
  // Depth-first, children in order; iterative (an explicit stack of frames) so a deep chain cannot overflow.
  const enter = (node: DagNode, parent: DagNode | undefined): boolean => {
    if (onStackSet.has(node)) {
      const path = [...onStack.slice(onStack.indexOf(node)), node].map((step) => step.describe())
      cycles.push(path.join(' → '))
      return false
    }
    if (ids.has(node)) return false
    ids.set(node, `n${ids.size + 1}`)
    names.set(node, node.canBeRoot || !parent ? node.describe() : `${nameOf(parent)} → ${node.describe()}`)
    discovered.push(node)
    parents.set(node, parents.get(node) ?? [])
    onStack.push(node)
    onStackSet.add(node)
    return true
  }
  const visit = (root: DagNode) => {
    const frames: { node: DagNode; next: number }[] = []
    if (enter(root, undefined)) frames.push({ node: root, next: 0 })
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as { node: DagNode; next: number }
      const { node } = frame
      if (frame.next >= node.children.length) {
        frames.pop()
        onStack.pop()
        onStackSet.delete(node)
        continue
      }
      const child = node.children[frame.next++]
      if (!isDagNode(child)) {
        report(nameOf(node), 'child-not-a-node', `children contains ${describeValue(child)}, which is not a DAG node.`)
        continue
      }
      const incoming = parents.get(child) ?? []
      incoming.push({ node, edge: node.childEdge })
      parents.set(child, incoming)
      if (enter(child, node)) frames.push({ node: child, next: 0 })
    }
  }

  const roots: DagNode[] = []
  for (const [index, root] of rootNodes.entries()) {
    if (!isDagNode(root)) {
      report('DeepAcyclicGraph', 'root-not-a-node', `rootNodes[${index}] is ${describeValue(root)}, not a DAG node.`)
      continue
    }
    if (roots.includes(root)) {
      report(root.describe(), 'root-duplicate', `is listed in rootNodes more than once; list it once.`)
      continue
    }
    roots.push(root)
  }
  for (const root of roots) visit(root)

  for (const cycle of cycles) {
    report(
      cycle.split(' → ')[0] ?? 'DeepAcyclicGraph',
      'cycle',
      `the graph has a cycle: ${cycle}. A DAG's edges must never lead back to a node.`,
    )
  }

  const mode = roots[0]?.mode ?? 'single-turn'
  const inherits = new Map<DagNode, readonly DagNode[]>()
  const dataParents = (node: DagNode) => (parents.get(node) ?? []).filter((parent) => parent.edge === 'data')
  const hasOwnInput = (node: DagNode) => node.evaluationParams.length > 0 || dataParents(node).length > 0
  // The judgements whose verdicts lead to a node: what such a node is shown when it has no input of its own.
  // Only nodes that inherit input themselves lend it: what a code or tool-call node reads is no judge's input.
  const judgementsAbove = (node: DagNode) => [
    ...new Set(
      (parents.get(node) ?? [])
        .filter((parent) => parent.edge === 'control')
        .flatMap((verdict) => (parents.get(verdict.node) ?? []).filter((parent) => parent.edge === 'choice'))
        .map((parent) => parent.node)
        .filter((judgement) => judgement.inheritsInput),
    ),
  ]
  // The nodes with input of their own that an inheriting node ends up shown the input of (transitively).
  const inputSources = (start: DagNode, seen: Set<DagNode>): DagNode[] => {
    const sources: DagNode[] = []
    const pending = [start]
    while (pending.length > 0) {
      const node = pending.pop() as DagNode
      if (hasOwnInput(node)) sources.push(node)
      else if (!seen.has(node)) {
        seen.add(node)
        pending.push(...(inherits.get(node) ?? []).toReversed())
      }
    }
    return sources
  }
  const inputSignature = (node: DagNode) =>
    JSON.stringify([dataParents(node).map((parent) => ids.get(parent.node)), node.evaluationParams, node.turnWindow])
  const mixed = mixedModes(discovered, parents, nameOf)
  if (mixed !== undefined) report('DeepAcyclicGraph', 'mixed-modes', mixed)
  for (const node of discovered) {
    const name = nameOf(node)
    node.validateChildren((rule, message) => report(name, rule, message))
    // A verdict may belong to several judgements (chosen when any of them picks it); each judgement checks that its
    // verdicts' values fit it, so a string verdict under a binary judgement is still reported there.
    const labelled = new Map<string, DagNode>()
    for (const { node: task } of dataParents(node)) {
      const label = task.outputLabel
      if (label === undefined) continue
      const first = labelled.get(label)
      if (first === undefined) labelled.set(label, task)
      else if (first !== task) {
        report(
          name,
          'duplicate-output-label',
          `reads two TaskNode outputs labelled ${JSON.stringify(label)}, from ${nameOf(first)} and ${nameOf(task)}; ` +
            'the judge would see only one of them. Give each TaskNode its own outputLabel.',
        )
      }
    }
    if (node.readsInput && !hasOwnInput(node)) {
      const above = node.inheritsInput ? judgementsAbove(node) : []
      if (above.length > 0) inherits.set(node, above)
      else report(name, 'node-without-input', withoutInputMessage(node, mode))
    }
  }
  for (const [node, above] of inherits) {
    const sources = [...new Set(above.flatMap((judgement) => inputSources(judgement, new Set())))]
    const shown = new Map(sources.map((source) => [inputSignature(source), source]))
    if (shown.size > 1) {
      report(
        nameOf(node),
        'inherited-input-ambiguous',
        'has no input of its own and is reached through verdicts of judgements that are shown different input ' +
          `(${[...shown.values()].map(nameOf).join('; ')}), so what it would be shown depends on the path taken. ` +
          "Give it evaluationParams, or list it among a TaskNode's children so it reads that task's output.",
      )
    }
  }
  for (const root of roots) {
    if (!root.canBeRoot) {
      report(nameOf(root), 'verdict-root', 'a VerdictNode cannot be a root: put it under a judgement node.')
    }
    const incoming = parents.get(root) ?? []
    // A root inside a cycle has a parent too; the cycle is the problem worth reporting.
    if (incoming.length > 0 && cycles.length === 0) {
      report(
        nameOf(root),
        'root-has-parent',
        `is listed in rootNodes but is also a child of ${incoming.map((parent) => nameOf(parent.node)).join('; ')}. ` +
          'Remove it from rootNodes: it runs when its parents let it.',
      )
    }
  }

  if (issues.length > 0) throw new DagValidationError(issues)

  const params = [...new Set(discovered.flatMap((node) => node.evaluationParams))]
  return { mode, order: topologicalOrder(discovered, parents), ids, parents, names, params, inherits }
}

/**
 * A graph of single-turn and Conversational* nodes, said without guessing which the user meant: the graph is built
 * before the metric it goes to, so the message names, for each metric, the nodes to change (the top node of each
 * run of the other family; the nodes below it follow).
 */
function mixedModes(
  discovered: readonly DagNode[],
  parents: ReadonlyMap<DagNode, readonly ParentEdge[]>,
  nameOf: (node: DagNode) => string,
): string | undefined {
  if (new Set(discovered.map((node) => node.mode)).size < 2) return undefined
  const tops = (mode: NodeMode) =>
    discovered
      .filter((node) => node.mode === mode && !(parents.get(node) ?? []).some((parent) => parent.node.mode === mode))
      .map(nameOf)
      .join('; ')
  return (
    'mixes single-turn and Conversational* nodes; one DAG takes one family. For a DAGMetric (single-turn test ' +
    `cases), make these single-turn (TaskNode, BinaryJudgementNode, …): ${tops('conversational')}. For a ` +
    `ConversationalDAGMetric (conversations), make these Conversational*: ${tops('single-turn')}.`
  )
}

function withoutInputMessage(node: DagNode, mode: NodeMode): string {
  const example = mode === 'single-turn' ? 'LLMTestCaseParams.ACTUAL_OUTPUT' : 'TurnParams.ROLE, TurnParams.CONTENT'
  const fix = `Add evaluationParams (e.g. [${example}]) or list it among a TaskNode's children so it reads that task's output.`
  return node.inheritsInput
    ? 'would be shown nothing: it names no evaluationParams, has no TaskNode parent and is not under a verdict of ' +
        `a judgement (whose input it would then be shown). ${fix}`
    : `would be shown nothing: it names no evaluationParams and has no TaskNode parent. ${fix}`
}

/**
 * Kahn's algorithm; among ready nodes the one declared first goes first, so the order never depends on timing.
 * Linear in nodes and edges (times log n for the ready queue): a judgement with 10,000 verdicts is planned in
 * milliseconds, where sorting the ready list at every step and counting a child's edges by scanning its parent's
 * children took seconds.
 */
export function topologicalOrder(discovered: readonly DagNode[], parents: ReadonlyMap<DagNode, readonly ParentEdge[]>) {
  const remaining = new Map(discovered.map((node) => [node, parents.get(node)?.length ?? 0]))
  const position = new Map(discovered.map((node, index) => [node, index]))
  const ready = new ReadyQueue()
  for (const [index, node] of discovered.entries()) if (remaining.get(node) === 0) ready.push(index)
  const order: DagNode[] = []
  while (ready.size > 0) {
    const node = discovered[ready.pop()] as DagNode
    order.push(node)
    // A child listed twice has two edges from this node: each one counts.
    for (const child of node.children) {
      const left = (remaining.get(child) ?? 0) - 1
      remaining.set(child, left)
      if (left === 0) ready.push(position.get(child) ?? 0)
    }
  }
  return order
}

/** A binary min-heap of declaration positions: the ready node declared first comes out first. */
class ReadyQueue {
  readonly #heap: number[] = []

  get size(): number {
    return this.#heap.length
  }

  push(value: number): void {
    const heap = this.#heap
    heap.push(value)
    let at = heap.length - 1
    while (at > 0) {
      const parent = (at - 1) >> 1
      if ((heap[parent] as number) <= value) break
      heap[at] = heap[parent] as number
      at = parent
    }
    heap[at] = value
  }

  pop(): number {
    const heap = this.#heap
    const top = heap[0] as number
    const last = heap.pop() as number
    if (heap.length === 0) return top
    let at = 0
    for (;;) {
      const left = 2 * at + 1
      if (left >= heap.length) break
      const right = left + 1
      const smaller = right < heap.length && (heap[right] as number) < (heap[left] as number) ? right : left
      if ((heap[smaller] as number) >= last) break
      heap[at] = heap[smaller] as number
      at = smaller
    }
    heap[at] = last
    return top
  }
}
