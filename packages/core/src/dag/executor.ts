import { errorAt, type JudgetreeError, MeasurementAbortedError, NoVerdictReachedError } from '../errors.js'
import type { JudgeRequest } from '../judge/types.js'
import type { Measurement, MeasurementPart } from '../metric/measurement.js'
import type { Metric, MetricResult } from '../metric/types.js'
import type { ConversationalTestCase, LLMTestCase } from '../test-case/schemas.js'
import type { SkipCause, TraceNode, TraceNodeDetails } from '../trace/types.js'
import type { DagNode, NodeRunContext, NodeRunResult, ShownInput, TaskInput } from './node.js'
import type { GraphPlan, ParentEdge } from './plan.js'

/** Everything one walk of a DAG needs. */
export interface WalkOptions {
  readonly plan: GraphPlan
  readonly testCase: LLMTestCase | ConversationalTestCase
  /**
   * The measurement the walk records into: each node that runs records its judge calls and child metric through a
   * child recorder of its own, which bills the measurement; its signal stops the walk.
   */
  readonly recorder: Measurement
  /** Run independent nodes concurrently; otherwise one at a time in topological order. */
  readonly asyncMode: boolean
}

/** A verdict leaf the walk reached. */
export interface ReachedLeaf {
  readonly node: DagNode
  readonly score: number
}

/** What one walk produced; the metric turns it into a result. */
export interface WalkOutcome {
  /** Trace entries: nodes that ran by step, then skipped ones in declaration order. */
  readonly nodes: readonly TraceNode[]
  readonly roots: readonly string[]
  readonly leaves: readonly ReachedLeaf[]
  /** Judgements that ran, in step order, for the reason. */
  readonly judgements: readonly {
    readonly node: DagNode
    readonly verdict: string | boolean
    /** The judge's reason; a decision judge gives none, but `probabilities`. */
    readonly reason: string | undefined
    readonly probabilities?: Readonly<Record<string, number>> | undefined
    readonly decidedBy?: string | undefined
  }[]
  /** The recorders of the steps that ran, in step order: the order their remarks on the judge's answers read in. */
  readonly steps: readonly MeasurementPart[]
  readonly error: JudgetreeError | undefined
  /** How every node settled, for an exploration that continues the walk (see explore.ts). */
  readonly states: ReadonlyMap<DagNode, NodeState>
}

/** How one node of a walk settled: it ran (with what it produced), was skipped, or failed. */
export type NodeState =
  | { readonly status: 'ran'; readonly result: NodeRunResult; readonly record: NodeCall }
  | { readonly status: 'skipped'; readonly because: string; readonly cause: SkipCause }
  | { readonly status: 'failed'; readonly error: unknown; readonly record: NodeCall }

/**
 * Walks a DAG once. Edges from TaskNodes carry data (the child waits and runs only if the parent ran); edges from
 * judgements and verdicts carry control (the child runs only if chosen). Every node runs at most once. The outcome
 * depends only on the judge's answers, never on their timing: steps are numbered in topological order and the
 * first failure is chosen by that order too.
 */
export async function walkDag(options: WalkOptions): Promise<WalkOutcome> {
  const states = await settleAll(options)
  return { ...summarise(options.plan, states, options.recorder.signal), states }
}

/**
 * Settles every node of the plan: runs the nodes reached, skips the others. `seed` holds states settled before (by
 * a walk that an exploration continues), kept as they are; their failures stop nothing here.
 */
export async function settleAll(
  options: WalkOptions,
  seed?: ReadonlyMap<DagNode, NodeState>,
): Promise<ReadonlyMap<DagNode, NodeState>> {
  const { plan, testCase, recorder } = options
  const { signal } = recorder
  const stop = new AbortController()
  const onAbort = () => stop.abort(signal?.reason)
  if (signal?.aborted) onAbort()
  else signal?.addEventListener('abort', onAbort, { once: true })

  const states = new Map<DagNode, Promise<NodeState>>()
  for (const [node, state] of seed ?? []) states.set(node, Promise.resolve(state))
  const settle = (node: DagNode): Promise<NodeState> => {
    let state = states.get(node)
    if (!state) {
      state = decideAndRun(node)
      states.set(node, state)
    }
    return state
  }

  const decideAndRun = async (node: DagNode): Promise<NodeState> => {
    const incoming = plan.parents.get(node) ?? NO_EDGES
    // A root awaits nothing and a single parent needs no Promise.all: this runs for every node of every walk.
    const parentStates =
      incoming.length === 0
        ? []
        : incoming.length === 1
          ? [await settle((incoming[0] as ParentEdge).node)]
          : await Promise.all(incoming.map((edge) => settle(edge.node)))
    // Most nodes have no TaskNode parent: they share one empty list rather than build two per walk.
    let inputs: TaskInput[] | undefined
    let inputTasks: DagNode[] | undefined
    let gated = false
    let chosenBy: DagNode | undefined
    for (let index = 0; index < incoming.length; index++) {
      const edge = incoming[index] as ParentEdge
      const state = parentStates[index] as NodeState
      if (edge.edge !== 'data') {
        gated = true
        if (state.status === 'ran' && state.result.activates?.includes(node) === true) chosenBy ??= edge.node
        continue
      }
      if (state.status !== 'ran') {
        return {
          status: 'skipped',
          because: `its TaskNode parent ${edge.node.describe()} did not run`,
          cause: 'input-missing',
        }
      }
      if (state.result.input) {
        inputs ??= []
        inputs.push(state.result.input)
      }
      inputTasks ??= []
      inputTasks.push(edge.node)
    }
    const chosen = chosenBy !== undefined
    if (gated && !chosen) {
      // A judge that ran and chose no path to this node answered something else; otherwise nothing led here.
      let offered = false
      for (let index = 0; index < incoming.length; index++) {
        if (incoming[index]?.edge === 'choice' && parentStates[index]?.status === 'ran') offered = true
      }
      const because = notReachedBecause(incoming, parentStates, plan)
      return { status: 'skipped', because, cause: offered ? 'not-chosen' : 'not-reached' }
    }
    if (stop.signal.aborted) {
      return { status: 'skipped', because: 'the measurement stopped before it was reached', cause: 'stopped' }
    }
    const source = plan.inherits.has(node) ? await inheritedInput(chosenBy) : undefined
    const part = recorder.child(stop.signal)
    const call = new NodeCall(node, testCase, stop.signal, part, inputs ?? NO_INPUTS, inputTasks ?? NO_NODES, source)
    try {
      const result = await node.run(call)
      return { status: 'ran', result, record: call }
    } catch (error) {
      stop.abort(error)
      return { status: 'failed', error, record: call }
    }
  }

  // A judgement with no input of its own is shown what the judgement above its chosen verdict was shown, which
  // has run by then (the verdict waited for it). Through several such judgements, this is transitive.
  // A verdict shared by several judgements lends the input of one that chose it (the graph checked they all show
  // the same input).
  const inheritedInput = async (verdict: DagNode | undefined): Promise<NodeCall> => {
    for (const edge of plan.parents.get(verdict as DagNode) ?? NO_EDGES) {
      if (edge.edge !== 'choice') continue
      const candidate = await settle(edge.node)
      if (candidate.status === 'ran' && candidate.result.activates?.includes(verdict as DagNode) === true) {
        return candidate.record
      }
    }
    throw new Error('judgetree bug: an inheriting node ran without its source')
  }

  // The states as they settle, in order: no second await per node once they have.
  const settled = new Map<DagNode, NodeState>()
  try {
    if (options.asyncMode) {
      const finals = await Promise.all(plan.order.map(settle))
      for (let index = 0; index < plan.order.length; index++) {
        settled.set(plan.order[index] as DagNode, finals[index] as NodeState)
      }
    } else for (const node of plan.order) settled.set(node, await settle(node))
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
  return settled
}

/**
 * What a node runs with, and what it recorded: its calls, through its child recorder, and the input its judge was
 * shown. One per node that runs in every walk, so its methods are shared rather than closures.
 */
class NodeCall implements NodeRunContext {
  readonly testCase: LLMTestCase | ConversationalTestCase
  readonly signal: AbortSignal
  /** The node's child recorder: its judge calls and child metric. */
  readonly part: MeasurementPart
  /** The judgement whose input this node was shown, when it has none of its own. */
  readonly inputFrom: DagNode | undefined
  /** The TaskNodes whose outputs are in that input. */
  readonly inputTasks: readonly DagNode[]
  /** What the node's judge was shown, once it asked. */
  shown: ShownInput | undefined
  readonly #node: DagNode
  readonly #inputs: readonly TaskInput[]
  /** The call of the judgement whose input this node inherits. */
  readonly #source: NodeCall | undefined

  constructor(
    node: DagNode,
    testCase: LLMTestCase | ConversationalTestCase,
    signal: AbortSignal,
    part: MeasurementPart,
    inputs: readonly TaskInput[],
    inputTasks: readonly DagNode[],
    source: NodeCall | undefined,
  ) {
    this.#node = node
    this.testCase = testCase
    this.signal = signal
    this.part = part
    this.#inputs = inputs
    this.#source = source
    this.inputFrom = source === undefined ? undefined : source.#node
    this.inputTasks = source === undefined ? inputTasks : source.inputTasks
  }

  input(): Record<string, unknown> {
    return this.shownInput().data
  }

  /** Renders what the node's judge is shown, once: its own input, or the one it inherits. */
  shownInput(): ShownInput {
    // Rendered when the node asks, so a turnWindow is checked only by a node that runs.
    this.shown ??= this.#source === undefined ? this.#node.show(this.testCase, this.#inputs) : this.#source.shownInput()
    return this.shown
  }

  judge<T>(request: Omit<JudgeRequest<T>, 'signal'>): Promise<T> {
    return this.part.judge(request)
  }

  async measureChild(metric: Metric<never>): Promise<MetricResult> {
    const result = await this.part.measure(metric, this.testCase)
    if (result.error?.code === 'MEASUREMENT_ABORTED') throw result.error
    // The walk puts this node's name in front when it reports the failure.
    if (result.error) throw errorAt(result.error, `its metric "${result.name}"`)
    return result
  }
}

function notReachedBecause(
  incoming: readonly { node: DagNode; edge: string }[],
  parentStates: readonly NodeState[],
  plan: GraphPlan,
): string {
  // Most skipped nodes of a walk are the verdicts of one judgement that answered another: their words, directly.
  const only = parentStates[0]
  if (incoming.length === 1 && incoming[0]?.edge === 'choice' && only?.status === 'ran') {
    return `not chosen: the judge answered ${JSON.stringify(only.result.details.verdict)}`
  }
  const shared = incoming.filter((edge) => edge.edge === 'choice').length > 1
  const reasons = incoming.flatMap((edge, index) => {
    if (edge.edge === 'data') return []
    const state = parentStates[index] as NodeState
    const parent = plan.names.get(edge.node) ?? edge.node.describe()
    // Control edges leave verdicts: a verdict that did not run was not chosen.
    if (state.status !== 'ran' && edge.edge === 'control') return [`${parent} was not chosen`]
    if (state.status !== 'ran') return [`${parent} did not run`]
    if (edge.edge === 'choice') {
      const answered = `the judge answered ${JSON.stringify(state.result.details.verdict)}`
      // A verdict shared by several judgements says which answered what.
      return [shared ? `${parent}: ${answered}` : answered]
    }
    return [`${parent} was not reached`]
  })
  // Choice edges lead to verdicts: a verdict is chosen or not, any other node is reached or not.
  const verdict = incoming.some((edge) => edge.edge === 'choice')
  return `${verdict ? 'not chosen' : 'not reached'}: ${reasons.join('; ')}`
}

/** The trace entries, leaves, judgements and error of a settled walk. */
export function summarise(
  plan: GraphPlan,
  states: ReadonlyMap<DagNode, NodeState>,
  signal: AbortSignal | undefined,
): Omit<WalkOutcome, 'states'> {
  const steps = new Map<DagNode, number>()
  for (const node of plan.order) {
    if (states.get(node)?.status === 'ran' && node.step) steps.set(node, steps.size + 1)
  }

  const layout = staticLayout(plan)
  const placedUnder = new Map<DagNode, DagNode>()
  for (const node of plan.order) {
    const primary = activatingParent(node, plan, states) ?? layout.firstParent.get(node)
    if (primary) placedUnder.set(node, primary)
  }

  // Entries that ran by step first, then the others (skipped, failed, verdicts), each in the plan's order.
  const ranFirst: TraceNode[] = []
  const others: TraceNode[] = []
  const leaves: ReachedLeaf[] = []
  const judgements: WalkOutcome['judgements'][number][] = []
  let firstFailure: { node: DagNode; error: unknown } | undefined
  for (const node of plan.order) {
    const state = states.get(node) as NodeState
    // One literal and assignments, in the order the trace's keys always had: no object is built per node only to be
    // copied into another, and V8 keeps the entries of one kind on one shape.
    const head = layout.heads.get(node) as EntryHead
    const entry = {
      id: head.id,
      kind: head.kind,
      role: head.role,
      label: head.label,
      text: head.text,
      turnWindow: head.turnWindow,
    } as Mutable<TraceNode>
    if (head.details !== undefined) Object.assign(entry, head.details)
    entry.inputs = layout.inputIds.get(node) ?? NO_IDS
    entry.children = childrenOf(node, plan, layout, placedUnder)
    // A verdict shared by several judgements is drawn under one (the one that chose it, if any); the others list it.
    const owners = layout.sharedOwners.get(node)
    if (owners !== undefined) {
      entry.alsoUnder = owners.filter((owner) => owner !== placedUnder.get(node)).map((owner) => id(plan, owner))
    }
    if (state.status === 'skipped') {
      entry.status = 'skipped'
      entry.skippedBecause = state.because
      entry.skipCause = state.cause
      others.push(entry)
      continue
    }
    const { part, shown, inputFrom } = state.record
    entry.usage = part.usage
    entry.latencyMs = Math.round(part.latencyMs)
    entry.cached = part.cached
    if (shown?.turns) entry.shownTurns = shown.turns
    if (inputFrom) {
      entry.inputFrom = id(plan, inputFrom)
      entry.inputs = state.record.inputTasks.map((task) => id(plan, task))
    }
    if (state.status === 'failed') {
      firstFailure ??= isOwnAbort(state.error, signal) ? undefined : { node, error: state.error }
      entry.status = 'failed'
      entry.error = messageOf(state.error)
      entry.metric = part.metric
      others.push(entry)
      continue
    }
    const { details } = state.result
    const { decision } = part
    Object.assign(entry, details)
    if (decision !== undefined) Object.assign(entry, decision)
    entry.status = 'ran'
    entry.step = steps.get(node)
    if (entry.step === undefined) others.push(entry)
    else ranFirst.push(entry)
    if (state.result.leafScore !== undefined) leaves.push({ node, score: state.result.leafScore })
    if (state.result.judgement) judgements.push({ node, ...state.result.judgement, ...decision })
  }
  for (const entry of others) ranFirst.push(entry)

  const roots: string[] = []
  for (const node of plan.order) if (!placedUnder.has(node)) roots.push(id(plan, node))
  let error: JudgetreeError | undefined
  if (firstFailure?.error instanceof MeasurementAbortedError) {
    // The caller's signal stopped the walk: that happened to the measurement, not at a node.
    error = firstFailure.error
  } else if (firstFailure) {
    const where = plan.names.get(firstFailure.node) ?? firstFailure.node.describe()
    error = errorAt(firstFailure.error, where, { node: where })
  } else if (signal?.aborted) error = new MeasurementAbortedError(signal.reason)
  else if (leaves.length === 0) error = noVerdictError(plan, states)
  const recorded: MeasurementPart[] = []
  for (const node of steps.keys()) {
    const state = states.get(node)
    if (state?.status === 'ran') recorded.push(state.record.part)
  }
  return { nodes: ranFirst, roots, leaves, judgements, steps: recorded, error }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** What a node's trace entry starts with in every walk; `details` is what `staticDetails()` shows, if anything. */
interface EntryHead extends Pick<TraceNode, 'id' | 'kind' | 'role' | 'label' | 'text' | 'turnWindow'> {
  readonly details: TraceNodeDetails | undefined
}

/** The ids of the children drawn under `node` in this walk; most nodes of a walk (the verdicts) share one empty list. */
function childrenOf(
  node: DagNode,
  plan: GraphPlan,
  layout: StaticLayout,
  placedUnder: ReadonlyMap<DagNode, DagNode>,
): readonly string[] {
  let ids: string[] | undefined
  for (const child of layout.uniqueChildren.get(node) ?? NO_NODES) {
    if (placedUnder.get(child) !== node) continue
    ids ??= []
    ids.push(id(plan, child))
  }
  return ids ?? NO_IDS
}

/** The parent whose decision led to `node` in this walk (a judgement that chose it, a verdict that ran), if any. */
function activatingParent(
  node: DagNode,
  plan: GraphPlan,
  states: ReadonlyMap<DagNode, NodeState>,
): DagNode | undefined {
  for (const edge of plan.parents.get(node) ?? NO_EDGES) {
    if (edge.edge === 'data') continue
    const state = states.get(edge.node)
    if (state?.status === 'ran' && state.result.activates?.includes(node) === true) return edge.node
  }
  return undefined
}

const NO_EDGES: readonly ParentEdge[] = Object.freeze([])
const NO_IDS: readonly string[] = Object.freeze([])
const NO_NODES: readonly DagNode[] = Object.freeze([])
const NO_INPUTS: readonly TaskInput[] = Object.freeze([])
const layouts = new WeakMap<GraphPlan, StaticLayout>()

/** What a trace needs from a plan that never changes between walks, computed once per plan. */
interface StaticLayout {
  readonly inputIds: ReadonlyMap<DagNode, readonly string[]>
  readonly uniqueChildren: ReadonlyMap<DagNode, readonly DagNode[]>
  /** For each verdict that several nodes choose between, those nodes in declaration order. */
  readonly sharedOwners: ReadonlyMap<DagNode, readonly DagNode[]>
  /** Where a node is drawn when no parent chose it in a walk: its first control parent, else its first parent. */
  readonly firstParent: ReadonlyMap<DagNode, DagNode>
  /** The first fields of each node's trace entry, which no walk changes. */
  readonly heads: ReadonlyMap<DagNode, EntryHead>
}

function staticLayout(plan: GraphPlan): StaticLayout {
  let layout = layouts.get(plan)
  if (layout === undefined) {
    const inputIds = new Map<DagNode, readonly string[]>()
    const uniqueChildren = new Map<DagNode, readonly DagNode[]>()
    const sharedOwners = new Map<DagNode, readonly DagNode[]>()
    const firstParent = new Map<DagNode, DagNode>()
    const heads = new Map<DagNode, EntryHead>()
    for (const node of plan.order) {
      const incoming = plan.parents.get(node) ?? NO_EDGES
      const first = incoming.find((edge) => edge.edge !== 'data') ?? incoming[0]
      if (first) firstParent.set(node, first.node)
      const details = node.staticDetails()
      heads.set(node, {
        id: id(plan, node),
        kind: node.kind,
        role: node.traceRole,
        label: node.label,
        text: node.text,
        turnWindow: node.turnWindow,
        details: Object.keys(details).length > 0 ? details : undefined,
      })
      const owners = (plan.parents.get(node) ?? NO_EDGES).filter((edge) => edge.edge === 'choice')
      const distinct = [...new Set(owners.map((edge) => edge.node))]
      if (distinct.length > 1) sharedOwners.set(node, Object.freeze(distinct))
      const edges = (plan.parents.get(node) ?? NO_EDGES).filter((edge) => edge.edge === 'data')
      // A node that inherits its input reads the outputs its source reads; the order puts the source first.
      const source = plan.inherits.get(node)?.[0]
      inputIds.set(
        node,
        source ? (inputIds.get(source) ?? NO_IDS) : Object.freeze(edges.map((edge) => id(plan, edge.node))),
      )
      uniqueChildren.set(node, Object.freeze([...new Set(node.children)]))
    }
    layout = { inputIds, uniqueChildren, sharedOwners, firstParent, heads }
    layouts.set(plan, layout)
  }
  return layout
}

/**
 * Why a walk reached no verdict, naming where it stopped. Two shapes lead there: a node that waits for a TaskNode
 * which did not run (its branch was not taken), and a node that a TaskNode fed but whose verdict was not chosen
 * (the TaskNode and the verdict lie on different branches). Each gets its own advice.
 */
function noVerdictError(plan: GraphPlan, states: ReadonlyMap<DagNode, NodeState>): NoVerdictReachedError {
  const name = (node: DagNode) => plan.names.get(node) ?? node.describe()
  const skipped = (node: DagNode, cause: SkipCause) => {
    const state = states.get(node)
    return state?.status === 'skipped' && state.cause === cause ? state : undefined
  }
  const stops: string[] = []
  const advice: string[] = []
  const waiting = plan.order.filter((node) => skipped(node, 'input-missing'))
  for (const node of waiting) {
    stops.push(`${name(node)}, which could not run because ${skipped(node, 'input-missing')?.because}`)
  }
  if (waiting.length > 0) {
    advice.push(
      'A node that waits for a TaskNode on another branch never runs when that branch is not taken: make the ' +
        'TaskNode a parent on every path that leads to the node, or move the node under the branch.',
    )
  }
  const unchosen = plan.order.flatMap((node) => {
    const state = skipped(node, 'not-reached') ?? skipped(node, 'not-chosen')
    const fedBy = (plan.parents.get(node) ?? NO_EDGES).find(
      (edge) => edge.edge === 'data' && states.get(edge.node)?.status === 'ran',
    )
    return state && fedBy ? [{ node, because: state.because, task: fedBy.node }] : []
  })
  for (const { node, because, task } of unchosen) {
    stops.push(`${name(node)}, which its TaskNode parent ${name(task)} fed, but which was ${because}`)
  }
  if (unchosen.length > 0) {
    advice.push(
      'A node under a TaskNode that also hangs from a verdict runs only when that verdict is chosen too, so with the ' +
        'TaskNode and the verdict on different branches it never runs: make the node a child of the TaskNode alone, ' +
        "or put the TaskNode on the verdict's branch as well.",
    )
  }
  if (stops.length === 0) {
    // Not a shape the checks above know: name the last nodes that ran, so the reader knows where to look.
    const ran = plan.order.filter((node) => states.get(node)?.status === 'ran')
    const last = ran.filter((node) => !node.children.some((child) => states.get(child)?.status === 'ran'))
    if (last.length > 0) stops.push(`${last.map(name).join(', ')}, after which no node ran`)
    advice.push('Every path the judge can take must end at a VerdictNode with a score or a child metric.')
  }
  const where = stops.length > 0 ? ` The walk stopped at ${stops.join('; ')}.` : ''
  return new NoVerdictReachedError(`No verdict was reached, so there is no score.${where} ${advice.join(' ')}`)
}

function id(plan: GraphPlan, node: DagNode): string {
  return plan.ids.get(node) ?? '?'
}

function isOwnAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  if (error instanceof MeasurementAbortedError) return !signal?.aborted
  return isAbortError(error)
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError'
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
