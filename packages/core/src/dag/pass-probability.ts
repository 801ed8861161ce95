// A DAG walk's chance of passing (DESIGN.md §9), computed from the plan and the walk's trace after the walk: it never
// asks the judge and never changes the score. Each subtree's value is a small distribution over the DAG's score
// (atoms, merged by score), each atom with the mass of the worlds in which it passes.
import { bounded, judged, lowestPivot } from '../metric/pass-probability.js'
import type { MetricResult, PassPivot, PassProbability } from '../metric/types.js'
import type { TraceNode } from '../trace/types.js'
import type { DagNode } from './node.js'
import type { GraphPlan } from './plan.js'

/** Score → the probability of reaching it, and of reaching it and passing. */
type Atoms = Map<number, { mass: number; passing: number }>

/** How a subtree that was not walked counts: as failing (score 0) for `low`, as passing (score 1) for `high`. */
type Bound = 'low' | 'high'

/** Why there is no probability: a verdict that matters came as a point. */
const ABSENT = Symbol('absent')

/** What the walk left for the computation: the plan, and the trace entries by id. */
export interface WalkedDag {
  readonly plan: GraphPlan
  readonly nodes: readonly TraceNode[]
  /** The entries of the branches walked off the path (`explore`), whose values replace their bounds. */
  readonly explored?: readonly TraceNode[] | undefined
  readonly threshold: number
  readonly strictMode: boolean
}

/** Where a walk's pass probability is missing: the entry of the decision (or child metric) answered as a point. */
export interface PointAnswered {
  readonly pointAt: TraceNode
}

/**
 * The chance that the walk passes and its expected score: a verdict leaf with score s passes when s / 10 reaches
 * the threshold (strict: s = 10); a judgement's value is the sum over its verdicts of p(verdict) × that verdict's
 * value; a TaskNode passes its children's on; a child metric contributes its own; parallel branches (the score is
 * their minimum) are independent. Undefined when a judgement on the path answered with a point and its verdicts'
 * values differ, or a child metric that matters has none: then the first such entry in the walk's order.
 */
export function dagPassProbability(walked: WalkedDag): PassProbability | PointAnswered {
  const entries = new Map(walked.nodes.map((node) => [node.id, node]))
  for (const entry of walked.explored ?? []) entries.set(entry.id, entry)
  // The lower bound first: a point answer that matters makes it absent, and then the upper bound is never computed.
  const lowValue = new DagValue(walked, entries, 'low')
  const low = lowValue.total()
  if (low === ABSENT) return { pointAt: lowValue.pointAt as TraceNode }
  const highValue = new DagValue(walked, entries, 'high')
  const high = highValue.total()
  if (high === ABSENT) return { pointAt: highValue.pointAt as TraceNode }
  const pivot = pivotOf(walked.nodes)
  const exact = low.p === high.p && low.expectedScore === high.expectedScore
  return exact ? judged(low, pivot) : bounded(low, high, pivot)
}

/**
 * One bound's computation, bottom-up in reverse topological order (so a chain of thousands of judgements needs no
 * deep recursion): every node's value from its children's. A node that several TaskNodes (or a TaskNode and a
 * verdict) lead to runs once, so it counts under the first of them only.
 */
class DagValue {
  readonly #walked: WalkedDag
  readonly #entries: ReadonlyMap<string, TraceNode>
  readonly #bound: Bound
  readonly #values = new Map<DagNode, Atoms | typeof ABSENT>()
  /** The first entry, in the walk's order, whose point answer (or child metric without one) made the value absent. */
  pointAt: TraceNode | undefined

  constructor(walked: WalkedDag, entries: ReadonlyMap<string, TraceNode>, bound: Bound) {
    this.#walked = walked
    this.#entries = entries
    this.#bound = bound
  }

  total(): { p: number; expectedScore: number } | typeof ABSENT {
    const { plan, strictMode } = this.#walked
    for (let index = plan.order.length - 1; index >= 0; index--) {
      const node = plan.order[index] as DagNode
      this.#values.set(node, this.#compute(node))
    }
    const roots = plan.order.filter((node) => (plan.parents.get(node) ?? []).length === 0)
    const atoms = this.#parallel(roots)
    if (atoms === ABSENT) return ABSENT
    let p = 0
    let expectedScore = 0
    for (const [score, { mass, passing }] of atoms) {
      p += passing
      expectedScore += score * mass
    }
    const round = (value: number) => Math.min(1, Math.max(0, Math.round(value * 1e9) / 1e9))
    return { p: round(p), expectedScore: round(strictMode ? p : expectedScore) }
  }

  /** Branches that all run: the score is their minimum, and they pass together. */
  #parallel(nodes: readonly DagNode[]): Atoms | typeof ABSENT {
    let combined: Atoms = new Map([[1, { mass: 1, passing: 1 }]])
    for (const node of new Set(nodes)) {
      const value = this.#value(node)
      if (value === ABSENT) return ABSENT
      combined = minimum(combined, value)
    }
    return combined
  }

  /** What a node that runs contributes under `parent`: its value under the first node that leads to it, else nothing. */
  #under(parent: DagNode): DagNode[] {
    return parent.children.filter(
      (child) => (this.#walked.plan.parents.get(child) ?? []).find((edge) => edge.edge !== 'choice')?.node === parent,
    )
  }

  #value(node: DagNode): Atoms | typeof ABSENT {
    const value = this.#values.get(node)
    if (value === undefined) throw new Error('judgetree bug: a node valued before its children')
    return value
  }

  #compute(node: DagNode): Atoms | typeof ABSENT {
    const entry = this.#entry(node)
    if (node.traceRole === 'verdict') return this.#verdict(node, entry)
    if (node.childEdge === 'choice') return this.#judgement(node, entry)
    // A TaskNode (or any node feeding data) passes its children's value on; they all run.
    return this.#parallel(this.#under(node))
  }

  #verdict(node: DagNode, entry: TraceNode | undefined): Atoms | typeof ABSENT {
    const score = node.staticDetails().score
    if (score !== undefined) return this.#leaf(score / 10)
    if (entry?.status !== 'ran') return this.#unknown()
    if (entry.metric !== undefined) return this.#childMetric(entry.metric, entry)
    return this.#parallel(this.#under(node))
  }

  #judgement(node: DagNode, entry: TraceNode | undefined): Atoms | typeof ABSENT {
    if (entry?.status !== 'ran') return this.#unknown()
    // The verdicts of each answer (several verdict nodes may share a value: they all run), grouped once.
    const answers = new Map<string, DagNode[]>()
    for (const verdict of new Set(node.children)) {
      const group = answers.get(verdict.text)
      if (group === undefined) answers.set(verdict.text, [verdict])
      else group.push(verdict)
    }
    const chosen = String(entry.verdict)
    const probabilities = entry.probabilities
    // A node that decided without a judge (code, tool calls) is certain of its verdict.
    const certain = probabilities === undefined && (entry.usage?.judgeCalls ?? 0) === 0
    if (probabilities === undefined && !certain) {
      const value = this.#pointAnswer(answers, chosen)
      return value === ABSENT ? this.#absent(entry) : value
    }
    const mixture: Atoms = new Map()
    for (const [value, verdicts] of answers) {
      const p = certain ? (value === chosen ? 1 : 0) : (probabilities?.[value] ?? 0)
      if (p === 0) continue
      const atoms = this.#branch(verdicts, value === chosen)
      if (atoms === ABSENT) return ABSENT
      addScaled(mixture, atoms, p)
    }
    return mixture
  }

  /**
   * A judgement answered with a point: its verdict matters unless every verdict leads to the same value (all known
   * without a walk), in which case that is its value.
   */
  #pointAnswer(answers: ReadonlyMap<string, readonly DagNode[]>, chosen: string): Atoms | typeof ABSENT {
    const walked = this.#branch(answers.get(chosen) ?? [], true)
    if (walked === ABSENT) return ABSENT
    const key = JSON.stringify([...walked])
    for (const [value, verdicts] of answers) {
      if (value === chosen) continue
      const other = this.#branch(verdicts, false)
      if (other === ABSENT || JSON.stringify([...other]) !== key) return ABSENT
    }
    return walked
  }

  /** The verdicts of one answer, which all run when it is chosen. */
  #branch(verdicts: readonly DagNode[], chosen: boolean): Atoms | typeof ABSENT {
    // An answer not chosen is known for free only when it ends at scored leaves, or when it was explored; anything
    // else needs judge calls. An explored branch that met a point answer stays bounded: it never hides the walk's value.
    const walked = (verdict: DagNode) => this.#entry(verdict)?.status === 'ran'
    if (!chosen && verdicts.some((verdict) => verdict.staticDetails().score === undefined && !walked(verdict))) {
      return this.#unknown()
    }
    let combined: Atoms = new Map([[1, { mass: 1, passing: 1 }]])
    for (const verdict of verdicts) {
      const atoms = this.#value(verdict)
      if (atoms === ABSENT) return chosen ? ABSENT : this.#unknown()
      combined = minimum(combined, atoms)
    }
    return combined
  }

  #leaf(score: number): Atoms {
    const line = this.#walked.strictMode ? 1 : this.#walked.threshold
    return new Map([[score, { mass: 1, passing: Math.round(score * 1e9) / 1e9 >= line ? 1 : 0 }]])
  }

  #childMetric(result: MetricResult, entry: TraceNode): Atoms | typeof ABSENT {
    const own = result.passProbability
    if (own === undefined) return this.#absent(entry)
    return new Map([[own.expectedScore, { mass: 1, passing: this.#bound === 'low' ? own.low : own.high }]])
  }

  /** Absent because of `entry`; computed bottom-up, so the last one recorded is the first in the walk's order. */
  #absent(entry: TraceNode): typeof ABSENT {
    this.pointAt = entry
    return ABSENT
  }

  /** A subtree not walked: failing at score 0 for the lower bound, passing at 1 for the upper. */
  #unknown(): Atoms {
    return this.#bound === 'low' ? new Map([[0, { mass: 1, passing: 0 }]]) : new Map([[1, { mass: 1, passing: 1 }]])
  }

  #entry(node: DagNode): TraceNode | undefined {
    return this.#entries.get(this.#walked.plan.ids.get(node) ?? '')
  }
}

/** The minimum of two independent scores: it passes when both do. */
function minimum(left: Atoms, right: Atoms): Atoms {
  const combined: Atoms = new Map()
  for (const [a, first] of left) {
    for (const [b, second] of right) {
      add(combined, Math.min(a, b), first.mass * second.mass, first.passing * second.passing)
    }
  }
  return combined
}

function addScaled(into: Atoms, atoms: Atoms, p: number): void {
  for (const [score, { mass, passing }] of atoms) add(into, score, mass * p, passing * p)
}

function add(into: Atoms, score: number, mass: number, passing: number): void {
  const atom = into.get(score)
  if (atom === undefined) into.set(score, { mass, passing })
  else {
    atom.mass += mass
    atom.passing += passing
  }
}

/** The judgement on the walked path whose chosen verdict was least probable. */
function pivotOf(nodes: readonly TraceNode[]): PassPivot | undefined {
  return lowestPivot(
    nodes.map((node) => {
      if (node.status !== 'ran' || node.role !== 'judgement' || node.probabilities === undefined) return undefined
      const probability = node.probabilities[String(node.verdict)]
      if (probability === undefined || node.verdict === undefined) return undefined
      return { node: node.id, label: node.label ?? node.text, verdict: node.verdict, probability }
    }),
  )
}
