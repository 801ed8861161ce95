import { JudgetreeError, MeasurementAbortedError, NoVerdictReachedError } from '../errors.js'
import type { JudgeModel } from '../judge/types.js'
import type { MetricResult, MetricUsage } from '../metric/types.js'
import { addUsage, NO_USAGE, usageOf } from '../metric/usage.js'
import type { ConversationalTestCase, LLMTestCase } from '../test-case/schemas.js'
import type { TraceNode } from '../trace/types.js'
import type { GraphPlan } from './graph.js'
import type { DagNode, NodeRunContext, NodeRunResult, TaskInput } from './node.js'

/** Everything one walk of a DAG needs. */
export interface WalkOptions {
  readonly plan: GraphPlan
  readonly testCase: LLMTestCase | ConversationalTestCase
  readonly judge: JudgeModel
  /** Run independent nodes concurrently; otherwise one at a time in topological order. */
  readonly asyncMode: boolean
  readonly signal?: AbortSignal | undefined
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
    readonly reason: string
  }[]
  readonly usage: MetricUsage
  readonly error: JudgetreeError | undefined
}

type NodeState =
  | { readonly status: 'ran'; readonly result: NodeRunResult; readonly record: CallRecord }
  | { readonly status: 'skipped'; readonly because: string }
  | { readonly status: 'failed'; readonly error: unknown; readonly record: CallRecord }

interface CallRecord {
  usage: MetricUsage
  latencyMs: number
  calls: number
  cachedCalls: number
  metric: MetricResult | undefined
}

/**
 * Walks a DAG once. Edges from TaskNodes carry data (the child waits and runs only if the parent ran); edges from
 * judgements and verdicts carry control (the child runs only if chosen). Every node runs at most once. The outcome
 * depends only on the judge's answers, never on their timing: steps are numbered in topological order and the
 * first failure is chosen by that order too.
 */
export async function walkDag(options: WalkOptions): Promise<WalkOutcome> {
  const { plan, testCase, judge } = options
  const stop = new AbortController()
  const onAbort = () => stop.abort(options.signal?.reason)
  if (options.signal?.aborted) onAbort()
  else options.signal?.addEventListener('abort', onAbort, { once: true })

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
    const incoming = plan.parents.get(node) ?? []
    const parentStates = await Promise.all(incoming.map((edge) => settle(edge.node)))
    const inputs: TaskInput[] = []
    for (const [index, edge] of incoming.entries()) {
      if (edge.edge !== 'data') continue
      const state = parentStates[index] as NodeState
      if (state.status !== 'ran') {
        return { status: 'skipped', because: `its TaskNode parent ${edge.node.describe()} did not run` }
      }
      inputs.push({
        label: (edge.node as { outputLabel?: string }).outputLabel ?? '',
        output: state.result.output ?? '',
      })
    }
    const gates = incoming.flatMap((edge, index) => (edge.edge === 'data' ? [] : [parentStates[index] as NodeState]))
    if (gates.length > 0 && !gates.some((s) => s.status === 'ran' && s.result.activates?.includes(node))) {
      return { status: 'skipped', because: notReachedBecause(node, incoming, parentStates, plan) }
    }
    if (stop.signal.aborted) {
      return { status: 'skipped', because: 'the measurement stopped before it was reached' }
    }
    const record: CallRecord = { usage: NO_USAGE, latencyMs: 0, calls: 0, cachedCalls: 0, metric: undefined }
    const context: NodeRunContext = {
      testCase,
      inputs,
      judge: async (request) => {
        stop.signal.throwIfAborted()
        const started = performance.now()
        const response = await judge.generate({ ...request, signal: stop.signal })
        record.latencyMs += performance.now() - started
        record.usage = addUsage(record.usage, usageOf(response))
        return response.value
      },
      measureChild: async (metric) => {
        const started = performance.now()
        const result = await metric.measure(testCase as never, { signal: stop.signal })
        record.latencyMs += performance.now() - started
        record.metric = result
        if (result.error) {
          throw new JudgetreeError(
            result.error.code,
            `The metric "${result.name}" under ${plan.names.get(node)} failed: ${result.error.message}`,
            { cause: result.error },
          )
        }
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

  try {
    if (options.asyncMode) await Promise.all(plan.order.map(settle))
    else for (const node of plan.order) await settle(node)
  } finally {
    options.signal?.removeEventListener('abort', onAbort)
  }

  const settled = new Map<DagNode, NodeState>()
  for (const node of plan.order) settled.set(node, await settle(node))
  return summarise(plan, settled, options.signal)
}

function notReachedBecause(
  node: DagNode,
  incoming: readonly { node: DagNode; edge: string }[],
  parentStates: readonly NodeState[],
  plan: GraphPlan,
): string {
  const reasons = incoming.flatMap((edge, index) => {
    if (edge.edge === 'data') return []
    const state = parentStates[index] as NodeState
    const parent = plan.names.get(edge.node) ?? edge.node.describe()
    if (state.status !== 'ran' && edge.node.traceRole === 'verdict') return [`${parent} was not chosen`]
    if (state.status !== 'ran') return [`${parent} did not run`]
    if (edge.edge === 'choice') return [`the judge answered ${JSON.stringify(state.result.details.verdict)}`]
    return [`${parent} was not reached`]
  })
  return node.traceRole === 'verdict' ? `not chosen: ${reasons.join('; ')}` : `not reached: ${reasons.join('; ')}`
}

function summarise(
  plan: GraphPlan,
  states: ReadonlyMap<DagNode, NodeState>,
  signal: AbortSignal | undefined,
): WalkOutcome {
  const steps = new Map<DagNode, number>()
  for (const node of plan.order) {
    if (states.get(node)?.status === 'ran' && node.traceRole !== 'verdict') steps.set(node, steps.size + 1)
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
  const childrenOf = (node: DagNode) =>
    [...new Set(node.children)].filter((child) => placedUnder.get(child) === node).map((child) => id(plan, child))

  const entries: TraceNode[] = []
  const leaves: ReachedLeaf[] = []
  const judgements: { node: DagNode; verdict: string | boolean; reason: string }[] = []
  let usage = NO_USAGE
  let firstFailure: { node: DagNode; error: unknown } | undefined
  for (const node of plan.order) {
    const state = states.get(node) as NodeState
    const base = {
      id: id(plan, node),
      kind: node.kind,
      role: node.traceRole,
      label: node.label,
      text: node.text,
      turnWindow: node.turnWindow,
      ...node.staticDetails(),
      inputs: (plan.parents.get(node) ?? []).filter((edge) => edge.edge === 'data').map((edge) => id(plan, edge.node)),
      children: childrenOf(node),
    }
    if (state.status === 'skipped') {
      entries.push({ ...base, status: 'skipped', skippedBecause: state.because })
      continue
    }
    usage = addUsage(usage, state.record.usage)
    if (state.record.metric) usage = addUsage(usage, state.record.metric.usage)
    const measured = {
      usage: state.record.usage,
      latencyMs: Math.round(state.record.latencyMs),
      cached: state.record.usage.judgeCalls > 0 && state.record.usage.cachedCalls === state.record.usage.judgeCalls,
    }
    if (state.status === 'failed') {
      firstFailure ??= isOwnAbort(state.error, signal) ? undefined : { node, error: state.error }
      entries.push({
        ...base,
        ...measured,
        status: 'failed',
        error: messageOf(state.error),
        metric: state.record.metric,
      })
      continue
    }
    const { details } = state.result
    entries.push({ ...base, ...measured, ...details, status: 'ran', step: steps.get(node) })
    if (state.result.leafScore !== undefined) leaves.push({ node, score: state.result.leafScore })
    if (details.verdict !== undefined && node.traceRole === 'judgement') {
      judgements.push({ node, verdict: details.verdict, reason: details.reason ?? '' })
    }
  }

  const ranFirst = [
    ...entries.filter((entry) => entry.step !== undefined),
    ...entries.filter((entry) => entry.step === undefined),
  ]
  const roots = plan.order.filter((node) => !placedUnder.has(node)).map((node) => id(plan, node))
  let error: JudgetreeError | undefined
  if (firstFailure) error = asJudgetreeError(firstFailure.error, plan.names.get(firstFailure.node) ?? '')
  else if (signal?.aborted) error = new MeasurementAbortedError(signal.reason)
  else if (leaves.length === 0) error = noVerdictError(plan, states)
  return { nodes: ranFirst, roots, leaves, judgements, usage, error }
}

function noVerdictError(plan: GraphPlan, states: ReadonlyMap<DagNode, NodeState>): NoVerdictReachedError {
  const stuck = plan.order.filter((node) => {
    const state = states.get(node)
    return state?.status === 'skipped' && state.because.startsWith('its TaskNode parent')
  })
  const detail = stuck
    .map((node) => {
      const state = states.get(node) as { because: string }
      return `${plan.names.get(node)}, which could not run because ${state.because}`
    })
    .join('; ')
  return new NoVerdictReachedError(
    `No verdict was reached, so there is no score. ${detail ? `The walk stopped at ${detail}.` : ''} ` +
      'A node that waits for a TaskNode on another branch never runs when that branch is not taken: make the ' +
      'TaskNode a parent on every path that leads to the node, or move the node under the branch.',
  )
}

function id(plan: GraphPlan, node: DagNode): string {
  return plan.ids.get(node) ?? '?'
}

function isOwnAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  if (error instanceof MeasurementAbortedError) return !signal?.aborted
  return error instanceof Error && error.name === 'AbortError'
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function asJudgetreeError(error: unknown, where: string): JudgetreeError {
  if (error instanceof JudgetreeError) return error
  return new JudgetreeError('JUDGE_CALL_FAILED', `${where} failed: ${messageOf(error)}`, { cause: error })
}
