import { errorAt, type JudgetreeError, MeasurementAbortedError, NoVerdictReachedError } from '../errors.js'
import type { Measurement, MeasurementPart } from '../metric/measurement.js'
import type { ConversationalTestCase, LLMTestCase } from '../test-case/schemas.js'
import type { SkipCause, TraceNode } from '../trace/types.js'
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
}

type NodeState =
  | { readonly status: 'ran'; readonly result: NodeRunResult; readonly record: NodeRecord }
  | { readonly status: 'skipped'; readonly because: string; readonly cause: SkipCause }
  | { readonly status: 'failed'; readonly error: unknown; readonly record: NodeRecord }

/** What a node that ran recorded: its calls, through its child recorder, and the input its judge was shown. */
interface NodeRecord {
  readonly part: MeasurementPart
  /** What the node's judge was shown, once it asked. */
  shown: ShownInput | undefined
  /** Renders what the node's judge is shown: its own input, or the one it inherits. */
  readonly render: () => ShownInput
  /** The judgement whose input this node was shown, when it has none of its own. */
  readonly inputFrom: DagNode | undefined
  /** The TaskNodes whose outputs are in that input. */
  readonly inputTasks: readonly DagNode[]
}

/**
 * Walks a DAG once. Edges from TaskNodes carry data (the child waits and runs only if the parent ran); edges from
 * judgements and verdicts carry control (the child runs only if chosen). Every node runs at most once. The outcome
 * depends only on the judge's answers, never on their timing: steps are numbered in topological order and the
 * first failure is chosen by that order too.
 */
export async function walkDag(options: WalkOptions): Promise<WalkOutcome> {
  const { plan, testCase, recorder } = options
  const { signal } = recorder
  const stop = new AbortController()
  const onAbort = () => stop.abort(signal?.reason)
  if (signal?.aborted) onAbort()
  else signal?.addEventListener('abort', onAbort, { once: true })

  const states = new Map<DagNode, Promise<NodeState>>()
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
    const inputs: TaskInput[] = []
    const inputTasks: DagNode[] = []
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
      if (state.result.input) inputs.push(state.result.input)
      inputTasks.push(edge.node)
    }
    const chosen = chosenBy !== undefined
    if (gated && !chosen) {
      // A judge that ran and chose no path to this node answered something else; otherwise nothing led here.
      const offered = incoming.some((edge, index) => edge.edge === 'choice' && parentStates[index]?.status === 'ran')
      const because = notReachedBecause(incoming, parentStates, plan)
      return { status: 'skipped', because, cause: offered ? 'not-chosen' : 'not-reached' }
    }
    if (stop.signal.aborted) {
      return { status: 'skipped', because: 'the measurement stopped before it was reached', cause: 'stopped' }
    }
    const inherited = plan.inherits.has(node) ? await inheritedInput(chosenBy) : undefined
    const record: NodeRecord = {
      part: recorder.child(stop.signal),
      shown: undefined,
      render: inherited?.render ?? (() => node.show(testCase, inputs)),
      inputFrom: inherited?.from,
      inputTasks: inherited?.tasks ?? inputTasks,
    }
    const context: NodeRunContext = {
      testCase,
      signal: stop.signal,
      input: () => {
        // Rendered when the node asks, so a turnWindow is checked only by a node that runs.
        record.shown ??= record.render()
        return record.shown.data
      },
      judge: (request) => record.part.judge(request),
      measureChild: async (metric) => {
        const result = await record.part.measure(metric, testCase)
        if (result.error?.code === 'MEASUREMENT_ABORTED') throw result.error
        // The walk puts this node's name in front when it reports the failure.
        if (result.error) throw errorAt(result.error, `its metric "${result.name}"`)
        return result
      },
    }
    try {
      const result = await node.run(context)
      return { status: 'ran', result, record }
    } catch (error) {
      stop.abort(error)
      return { status: 'failed', error, record }
    }
  }

  // A judgement with no input of its own is shown what the judgement above its chosen verdict was shown, which
  // has run by then (the verdict waited for it). Through several such judgements, this is transitive.
  // A verdict shared by several judgements lends the input of one that chose it (the graph checked they all show
  // the same input).
  const inheritedInput = async (verdict: DagNode | undefined) => {
    let judgement: DagNode | undefined
    let state: NodeState | undefined
    for (const edge of plan.parents.get(verdict as DagNode) ?? NO_EDGES) {
      if (edge.edge !== 'choice') continue
      const candidate = await settle(edge.node)
      if (candidate.status === 'ran' && candidate.result.activates?.includes(verdict as DagNode) === true) {
        judgement = edge.node
        state = candidate
        break
      }
    }
    if (!judgement || state?.status !== 'ran')
      throw new Error('judgetree bug: an inheriting node ran without its source')
    const source = state.record
    return {
      from: judgement,
      tasks: source.inputTasks,
      render: () => {
        source.shown ??= source.render()
        return source.shown
      },
    }
  }

  // The states as they settle, in order: no second await per node once they have.
  const settled = new Map<DagNode, NodeState>()
  try {
    if (options.asyncMode) {
      const finals = await Promise.all(plan.order.map(settle))
      for (const [index, node] of plan.order.entries()) settled.set(node, finals[index] as NodeState)
    } else for (const node of plan.order) settled.set(node, await settle(node))
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
  return summarise(plan, settled, signal)
}

function notReachedBecause(
  incoming: readonly { node: DagNode; edge: string }[],
  parentStates: readonly NodeState[],
  plan: GraphPlan,
): string {
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

function summarise(
  plan: GraphPlan,
  states: ReadonlyMap<DagNode, NodeState>,
  signal: AbortSignal | undefined,
): WalkOutcome {
  const steps = new Map<DagNode, number>()
  for (const node of plan.order) {
    if (states.get(node)?.status === 'ran' && node.step) steps.set(node, steps.size + 1)
  }

  const placedUnder = new Map<DagNode, DagNode>()
  for (const node of plan.order) {
    const incoming = plan.parents.get(node) ?? []
    const activating = incoming.find((edge) => {
      const state = states.get(edge.node)
      return edge.edge !== 'data' && state?.status === 'ran' && state.result.activates?.includes(node)
    })
    const primary = activating ?? incoming.find((edge) => edge.edge !== 'data') ?? incoming[0]
    if (primary) placedUnder.set(node, primary.node)
  }
  const layout = staticLayout(plan)
  const childrenOf = (node: DagNode) => {
    const ids: string[] = []
    for (const child of layout.uniqueChildren.get(node) ?? [])
      if (placedUnder.get(child) === node) ids.push(id(plan, child))
    return ids
  }

  // A verdict shared by several judgements is drawn under one (the one that chose it, if any); the others list it.
  const alsoUnderOf = (node: DagNode) => {
    const owners = layout.sharedOwners.get(node)
    if (owners === undefined) return undefined
    return { alsoUnder: owners.filter((owner) => owner !== placedUnder.get(node)).map((owner) => id(plan, owner)) }
  }

  const entries: TraceNode[] = []
  const leaves: ReachedLeaf[] = []
  const judgements: WalkOutcome['judgements'][number][] = []
  let firstFailure: { node: DagNode; error: unknown } | undefined
  for (const node of plan.order) {
    const state = states.get(node) as NodeState
    // Object.assign, not spreads: V8 copies these mixed shapes ~50x faster, and a trace is built per measurement.
    const base = Object.assign(
      {
        id: id(plan, node),
        kind: node.kind,
        role: node.traceRole,
        label: node.label,
        text: node.text,
        turnWindow: node.turnWindow,
      },
      node.staticDetails(),
      {
        inputs: layout.inputIds.get(node) ?? NO_IDS,
        children: childrenOf(node),
      },
      alsoUnderOf(node),
    )
    if (state.status === 'skipped') {
      entries.push(
        Object.assign(base, { status: 'skipped' as const, skippedBecause: state.because, skipCause: state.cause }),
      )
      continue
    }
    const { part } = state.record
    const measured = {
      usage: part.usage,
      latencyMs: Math.round(part.latencyMs),
      cached: part.cached,
      ...(state.record.shown?.turns ? { shownTurns: state.record.shown.turns } : {}),
      ...(state.record.inputFrom
        ? { inputFrom: id(plan, state.record.inputFrom), inputs: state.record.inputTasks.map((task) => id(plan, task)) }
        : {}),
    }
    if (state.status === 'failed') {
      firstFailure ??= isOwnAbort(state.error, signal) ? undefined : { node, error: state.error }
      entries.push(
        Object.assign(base, measured, {
          status: 'failed' as const,
          error: messageOf(state.error),
          metric: part.metric,
        }),
      )
      continue
    }
    const { details } = state.result
    const { decision } = part
    entries.push(Object.assign(base, measured, details, decision, { status: 'ran' as const, step: steps.get(node) }))
    if (state.result.leafScore !== undefined) leaves.push({ node, score: state.result.leafScore })
    if (state.result.judgement) judgements.push({ node, ...state.result.judgement, ...decision })
  }

  const ranFirst = [
    ...entries.filter((entry) => entry.step !== undefined),
    ...entries.filter((entry) => entry.step === undefined),
  ]
  const roots = plan.order.filter((node) => !placedUnder.has(node)).map((node) => id(plan, node))
  let error: JudgetreeError | undefined
  if (firstFailure?.error instanceof MeasurementAbortedError) {
    // The caller's signal stopped the walk: that happened to the measurement, not at a node.
    error = firstFailure.error
  } else if (firstFailure) {
    const where = plan.names.get(firstFailure.node) ?? firstFailure.node.describe()
    error = errorAt(firstFailure.error, where, { node: where })
  } else if (signal?.aborted) error = new MeasurementAbortedError(signal.reason)
  else if (leaves.length === 0) error = noVerdictError(plan, states)
  const recorded = [...steps.keys()].flatMap((node) => {
    const state = states.get(node)
    return state?.status === 'ran' ? [state.record.part] : []
  })
  return { nodes: ranFirst, roots, leaves, judgements, steps: recorded, error }
}

const NO_EDGES: readonly ParentEdge[] = Object.freeze([])
const NO_IDS: readonly string[] = Object.freeze([])
const layouts = new WeakMap<GraphPlan, StaticLayout>()

/** What a trace needs from a plan that never changes between walks, computed once per plan. */
interface StaticLayout {
  readonly inputIds: ReadonlyMap<DagNode, readonly string[]>
  readonly uniqueChildren: ReadonlyMap<DagNode, readonly DagNode[]>
  /** For each verdict that several nodes choose between, those nodes in declaration order. */
  readonly sharedOwners: ReadonlyMap<DagNode, readonly DagNode[]>
}

function staticLayout(plan: GraphPlan): StaticLayout {
  let layout = layouts.get(plan)
  if (layout === undefined) {
    const inputIds = new Map<DagNode, readonly string[]>()
    const uniqueChildren = new Map<DagNode, readonly DagNode[]>()
    const sharedOwners = new Map<DagNode, readonly DagNode[]>()
    for (const node of plan.order) {
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
    layout = { inputIds, uniqueChildren, sharedOwners }
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
