// Branches not walked (DESIGN.md §9): after the walk, the verdicts a judgement did not choose but gave at least
// `explore` probability are walked too, by the same executor, so that their subtrees' values replace the 0/1 bounds
// of passProbability. The path, the score and the reason are the walk's: explored entries stay apart from them.
import type { TraceNode } from '../trace/types.js'
import { type NodeState, settleAll, summarise, type WalkOptions, type WalkOutcome } from './executor.js'
import type { DagNode } from './node.js'

/**
 * Walks every unchosen verdict whose probability is at least `threshold` (and above 0) and whose subtree is not a
 * scored leaf, as if its judgement had chosen it too; then the unchosen verdicts of the judgements that walk reached,
 * until none is left. Only verdicts that came with a distribution are explored. Resolves to the trace entries of what
 * was explored (marked `explored`, without step numbers), apart from the walk's; empty when nothing was.
 */
export async function exploreBranches(
  options: WalkOptions,
  walked: WalkOutcome,
  threshold: number,
): Promise<readonly TraceNode[]> {
  if (!(threshold > 0)) return []
  let states = walked.states
  const opened = new Map<DagNode, Set<DagNode>>()
  // Each round opens at least one more verdict, so there are at most as many rounds as verdicts.
  for (let found = unexplored(states, opened, threshold); found.length > 0; ) {
    for (const { judgement, verdict } of found) {
      const verdicts = opened.get(judgement) ?? new Set()
      verdicts.add(verdict)
      opened.set(judgement, verdicts)
    }
    const seed = new Map<DagNode, NodeState>()
    for (const [node, state] of states) {
      if (state.status !== 'skipped') seed.set(node, withOpened(state, opened.get(node)))
    }
    states = await settleAll(options, seed)
    found = unexplored(states, opened, threshold)
  }
  if (opened.size === 0) return []
  const before = walked.states
  const isExplored = (node: DagNode) => before.get(node)?.status === 'skipped' && states.get(node)?.status !== 'skipped'
  const ids = options.plan.order.filter(isExplored).map((node) => options.plan.ids.get(node) as string)
  const entries = new Map(summarise(options.plan, states, undefined).nodes.map((entry) => [entry.id, entry]))
  // In the graph's order, as the explored subtrees read from their verdicts down.
  return ids.map((id) => {
    const entry = entries.get(id) as TraceNode
    return {
      ...entry,
      step: undefined,
      explored: true,
      children: entry.children.filter((child) => ids.includes(child)),
    }
  })
}

/** The verdicts still to explore: unchosen, not yet opened, probable enough, and not a scored leaf. */
function unexplored(
  states: ReadonlyMap<DagNode, NodeState>,
  opened: ReadonlyMap<DagNode, ReadonlySet<DagNode>>,
  threshold: number,
): { readonly judgement: DagNode; readonly verdict: DagNode }[] {
  const found: { judgement: DagNode; verdict: DagNode }[] = []
  for (const [judgement, state] of states) {
    if (state.status !== 'ran' || judgement.childEdge !== 'choice') continue
    const probabilities = state.record.part.decision?.probabilities
    if (probabilities === undefined) continue
    for (const verdict of new Set(judgement.children)) {
      if (state.result.activates?.includes(verdict) === true || opened.get(judgement)?.has(verdict) === true) continue
      const p = probabilities[verdict.text] ?? 0
      if (p > 0 && p >= threshold && verdict.staticDetails().score === undefined) found.push({ judgement, verdict })
    }
  }
  return found
}

/** A judgement's state with the verdicts opened under it counted as chosen, so the executor walks them. */
function withOpened(state: NodeState, verdicts: ReadonlySet<DagNode> | undefined): NodeState {
  if (verdicts === undefined || state.status !== 'ran') return state
  const activates = [...new Set([...(state.result.activates ?? []), ...verdicts])]
  return { ...state, result: { ...state.result, activates } }
}
