import type { MetricResult, MetricUsage } from '../metric/types.js'

/** What part a trace entry plays: renderers lay entries out by role, never by node class. */
export type TraceRole = 'task' | 'judgement' | 'verdict' | 'step'

/**
 * Why a trace entry was skipped: a TaskNode it waits for did not run (`input-missing`); a judge above it answered
 * another verdict (`not-chosen`); nothing led to it (`not-reached`); the measurement stopped first (`stopped`).
 */
export type SkipCause = 'input-missing' | 'not-chosen' | 'not-reached' | 'stopped'

/** What a node reports about its own run, merged into its trace entry by the executor. */
export interface TraceNodeDetails {
  /** What the trace calls the node instead of its role's name, e.g. `Code` for a node that decides in code. */
  readonly title?: string | undefined
  /** A TaskNode's output. */
  readonly output?: string | undefined
  /** The name a TaskNode's children read its output under. */
  readonly outputLabel?: string | undefined
  /** A judgement's verdict. */
  readonly verdict?: string | boolean | undefined
  /** The judge's reason for its verdict; a decision judge gives none (see `probabilities`). */
  readonly reason?: string | undefined
  /**
   * A decision's probabilities, as the judge gave them: of `true` and `false`, of each option, or of each score level
   * (keyed by its number). Absent when the judge answered with a point.
   */
  readonly probabilities?: Readonly<Record<string, number>> | undefined
  /** The decision judge that answered this decision (the metric's `decisionModel`), by name. */
  readonly decidedBy?: string | undefined
  /** With a jury: each juror's verdict on this decision (and its probability), in declaration order. */
  readonly jury?: readonly JurorVerdict[] | undefined
  /**
   * Why a decision asked with logprobs (the metric's `topLogprobs`) came without `probabilities`: the model refused
   * logprobs, or they do not tell its options apart at the answer token.
   */
  readonly probabilitiesUnavailable?: string | undefined
  /** A verdict leaf's score, 0..10. */
  readonly score?: number | undefined
  /** A child metric's full result, whose own trace nests here. */
  readonly metric?: MetricResult | undefined
}

/** One juror's verdict on a decision, as the trace shows it. */
export interface JurorVerdict {
  readonly juror: string
  readonly verdict: string | number | boolean
  /** The juror's probability of its verdict, when it gave a distribution. */
  readonly probability?: number | undefined
}

/** One node of a metric's trace: a DAG node (ran or skipped), or one step of a non-DAG metric. */
export interface TraceNode extends TraceNodeDetails {
  /** Stable within a metric: `n1`, `n2`, … in the graph's declaration order. */
  readonly id: string
  /** The node class, e.g. `ConversationalBinaryJudgementNode`. */
  readonly kind: string
  readonly role: TraceRole
  readonly label: string | undefined
  /** The criteria, instructions or verdict value. */
  readonly text: string
  /** The node's turnWindow as declared (a negative index counts from the end of the conversation). */
  readonly turnWindow?: readonly [number, number] | undefined
  /** The 0-based, inclusive turns the judge was shown, when a turnWindow chose them (resolved for this conversation). */
  readonly shownTurns?: readonly [number, number] | undefined
  readonly status: 'ran' | 'skipped' | 'failed'
  /** 1-based position among the non-verdict nodes that ran, in topological order (independent of timing). */
  readonly step?: number | undefined
  /** Why a skipped node did not run, in words. */
  readonly skippedBecause?: string | undefined
  /** Why a skipped node did not run, as a code to branch on. */
  readonly skipCause?: SkipCause | undefined
  /** Why a failed node failed. */
  readonly error?: string | undefined
  /** Ids of the TaskNodes whose output this node read (its own parents', or those of the node it inherits from). */
  readonly inputs: readonly string[]
  /**
   * For a judgement with no input of its own (no evaluationParams, no TaskNode parent): the id of the judgement
   * above its chosen verdict, whose input (task outputs, parameters, turn window) it was shown.
   */
  readonly inputFrom?: string | undefined
  /** Ids of the entries drawn below this one in the tree. */
  readonly children: readonly string[]
  /**
   * For a verdict shared by several judgements: the ids of those it is not drawn under (it is drawn under the one
   * that chose it, else the first). It was chosen if any of them chose it, and what follows it ran once.
   */
  readonly alsoUnder?: readonly string[] | undefined
  /** Judge calls made by this node itself (a child metric's calls are in its own result). */
  readonly usage?: MetricUsage | undefined
  readonly latencyMs?: number | undefined
  /** True when every judge answer of this node came from the cache. */
  readonly cached?: boolean | undefined
  /** In the merged trace of a trials measurement: how many trials ran this node, and what they answered. */
  readonly trials?: TraceNodeTrials | undefined
  /** True for an entry of `MetricTrace.explored`: walked off the path, only to narrow passProbability's bounds. */
  readonly explored?: boolean | undefined
}

/** How the trials of one measurement went through one node. */
export interface TraceNodeTrials {
  /** Trials that ran (or failed at) this node; for a verdict, trials that chose it. */
  readonly ran: number
  /** Trials in the measurement. */
  readonly of: number
  /** Each different answer (verdict or score) and how many trials gave it, most frequent first. */
  readonly answers: readonly { readonly answer: string; readonly count: number }[]
}

/** Everything a metric did for one measurement, as data. `verboseLogs` renders it. */
export interface MetricTrace {
  readonly metric: string
  /** Entries in order: those that ran by step, then the skipped ones. */
  readonly nodes: readonly TraceNode[]
  /** Ids of the tree's top-level entries. */
  readonly roots: readonly string[]
  /** Metric-level remarks, such as how several leaves combined into one score. */
  readonly notes: readonly string[]
  /**
   * A DAG's unchosen branches walked with `explore`, apart from the path: they narrow passProbability's bounds and
   * never change the score. Their roots are the explored verdicts; ids are those of the same nodes in `nodes`, where
   * they show as not chosen. Absent when nothing was explored.
   */
  readonly explored?: readonly TraceNode[] | undefined
}
