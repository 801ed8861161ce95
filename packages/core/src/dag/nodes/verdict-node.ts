import { z } from 'zod'
import { describeValue } from '../../internal/describe-value.js'
import { expecting } from '../../internal/options.js'
import type { ConversationalMetric, Metric, SingleTurnMetric } from '../../metric/types.js'
import {
  type DagNode,
  isDagNode,
  type NodeMode,
  type NodeRunContext,
  type NodeRunResult,
  type ReportIssue,
} from '../node.js'
import { checkNodeOption, compact, type Identify, nodeOptionIssues } from './construction.js'
import { type Builds, NO_VIEW, NodeBase, staticsOf } from './node-base.js'
import type { ConversationalNode, SingleTurnNode } from './types.js'

/** A verdict ends the walk with a score, or continues it at a node or a metric. */
type VerdictNodeBaseOptions<Child> =
  | {
      /** The judgement answer this verdict stands for: boolean under a binary judgement, string under a non-binary. */
      verdict: boolean | string
      /** The score (an integer 0..10) the metric gets when the walk ends here. */
      score: number
      child?: undefined
    }
  | {
      verdict: boolean | string
      /** The node to continue the walk at, or a metric whose score becomes the DAG's score. */
      child: Child
      score?: undefined
    }

/** What a single-turn verdict may continue with: any single-turn node but a verdict, or a single-turn metric. */
export type VerdictChild = Exclude<SingleTurnNode, VerdictNode> | SingleTurnMetric

/** What a conversational verdict may continue with: any conversational node but a verdict, or such a metric. */
export type ConversationalVerdictChild = Exclude<ConversationalNode, ConversationalVerdictNode> | ConversationalMetric

/** Options for {@link VerdictNode}. */
export type VerdictNodeOptions = VerdictNodeBaseOptions<VerdictChild>

/** Options for {@link ConversationalVerdictNode}. */
export type ConversationalVerdictNodeOptions = VerdictNodeBaseOptions<ConversationalVerdictChild>

// By mode, not as a class argument: the options name the nodes a verdict continues with, which include the class.
interface VerdictOptions {
  'single-turn': VerdictNodeOptions
  conversational: ConversationalVerdictNodeOptions
}

const verdictSchema = expecting(
  z.union([z.boolean(), z.string().refine((text) => text.trim().length > 0)]),
  'a boolean (under a binary judgement) or a non-empty string',
)

const scoreSchema = expecting(
  z.number().int().min(0).max(10),
  'an integer from 0 to 10 (a score of 7 gives the metric 0.7)',
)

const byVerdict: Identify = (options) =>
  'verdict' in options ? `(verdict: ${describeValue(options.verdict)})` : undefined

/** The shared implementation of both verdict kinds. */
export abstract class VerdictNodeBase<Mode extends NodeMode = NodeMode>
  extends NodeBase<DagNode, Mode>
  implements DagNode
{
  readonly childEdge = 'control' as const
  override readonly canBeRoot = false
  readonly readsInput = false
  readonly inheritsInput = false
  readonly traceRole = 'verdict' as const
  override readonly step = false
  readonly verdict: boolean | string
  /** Integer 0..10 when the walk ends here. */
  readonly score: number | undefined
  /** The node the walk continues at, if any. */
  readonly child: DagNode | undefined
  /** The metric whose score becomes the DAG's score, if any. */
  readonly metric: Metric<never> | undefined

  constructor(options: VerdictOptions[Mode]) {
    const { kind, mode } = staticsOf(new.target)
    const { report, done } = nodeOptionIssues(kind, options, ['verdict', 'score', 'child'], byVerdict)
    const { verdict, score, child } = options as VerdictNodeBaseOptions<unknown>
    checkNodeOption(verdictSchema, options, report, 'verdict')
    const hasScore = score !== undefined
    const hasChild = child !== undefined
    if (hasScore === hasChild) {
      report(
        'verdict-score-or-child',
        hasScore
          ? 'a VerdictNode takes either score or child, not both: remove one.'
          : 'a VerdictNode needs a score (an integer 0..10 that ends the walk) or a child (a node or metric to continue with).',
      )
    }
    if (hasScore) checkNodeOption(scoreSchema, options, report, 'score', 'verdict-score')
    let node: DagNode | undefined
    let metric: Metric<never> | undefined
    if (hasChild) {
      if (isDagNode(child)) node = child
      else if (isMetric(child)) metric = child as Metric<never>
      else report('verdict-child', `child must be a DAG node or a metric; got ${describeValue(child)}.`)
      if (metric && metric.kind !== expectedMetricKind(mode)) {
        report(
          'verdict-metric-kind',
          `child metric "${metric.name}" judges ${metric.kind} test cases, but this ${kind} belongs to a ${mode} DAG. ` +
            `Use a ${expectedMetricKind(mode)} metric here.`,
        )
      }
    }
    super({ label: undefined, children: Object.freeze(node ? [node] : []), view: NO_VIEW, identify: byVerdict })
    this.verdict = verdict
    this.score = hasScore ? score : undefined
    this.child = node
    this.metric = metric
    done()
  }

  get text(): string {
    return String(this.verdict)
  }

  /** A verdict's child is a node among the built children, or a metric named in its fields. */
  static override fromFields<Node>(
    this: Builds<Node>,
    fields: Readonly<Record<string, unknown>>,
    children: readonly DagNode[],
  ): Node {
    const { metric, ...rest } = fields
    const child = children[0] ?? metric
    return new this((child === undefined ? rest : { ...rest, child }) as never)
  }

  staticDetails() {
    return this.score === undefined ? {} : { score: this.score }
  }

  picture() {
    return { shape: 'pill' as const, text: String(this.verdict), score: this.score, metric: this.metric?.name }
  }

  fields() {
    return compact({ verdict: this.verdict, score: this.score, metric: this.metric })
  }

  validateChildren(report: ReportIssue): void {
    if (this.child && this.child.traceRole === 'verdict') {
      report('verdict-verdict-child', 'a VerdictNode cannot continue at another VerdictNode; give it a score instead.')
    }
  }

  async run(context: NodeRunContext): Promise<NodeRunResult> {
    if (this.metric) {
      const result = await context.measureChild(this.metric)
      return { leafScore: result.score, details: { metric: result } }
    }
    if (this.child) return { activates: [this.child], details: {} }
    const score = this.score ?? 0
    return { leafScore: score / 10, details: { score } }
  }
}

/** One outcome of a single-turn judgement: a score that ends the walk, or a node or metric to continue with. */
export class VerdictNode extends VerdictNodeBase<'single-turn'> {
  static readonly kind = 'VerdictNode'
  static readonly mode = 'single-turn'
}

/** One outcome of a conversational judgement: a score that ends the walk, or a node or metric to continue with. */
export class ConversationalVerdictNode extends VerdictNodeBase<'conversational'> {
  static readonly kind = 'ConversationalVerdictNode'
  static readonly mode = 'conversational'
}

/** Whether a node is a verdict (of either kind). */
export function isVerdictNode(node: unknown): node is VerdictNodeBase {
  return node instanceof VerdictNodeBase
}

function isMetric(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Metric).measure === 'function' &&
    typeof (value as Metric).name === 'string'
  )
}

function expectedMetricKind(mode: NodeMode): Metric['kind'] {
  return mode === 'single-turn' ? 'single-turn' : 'conversational'
}
