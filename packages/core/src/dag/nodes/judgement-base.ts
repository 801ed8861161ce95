import type { InputView } from '../../test-case/view.js'
import type { DagNode, NodeMode, NodeRunContext, NodeRunResult, ReportIssue } from '../node.js'
import {
  byText,
  childrenOption,
  compact,
  describeNodeOptions,
  nodeOptionIssues,
  optionalLabel,
  requireText,
} from './construction.js'
import { NodeBase } from './node-base.js'
import { isVerdictNode, type VerdictNodeBase } from './verdict-node.js'

/** Options shared by every judgement node kind. */
export interface JudgementNodeBaseOptions<Verdict> {
  /** The question the judge answers about the data. No need to list the answers: they come from the verdicts. */
  criteria: string
  /**
   * The possible outcomes, each a VerdictNode. Leave it out to add them top-down with `addVerdict`; either way the
   * rules about them are checked when the DeepAcyclicGraph is built.
   */
  children?: readonly Verdict[] | undefined
  /** Shown in traces instead of the criteria. */
  label?: string | undefined
}

const byCriteria = byText('criteria')

/**
 * The part binary and non-binary judgements share: a criteria, verdict children, one judge call whose verdict
 * picks the child to continue with.
 */
export abstract class JudgementNodeBase extends NodeBase<VerdictNodeBase> implements DagNode {
  readonly childEdge = 'choice' as const
  readonly canBeRoot = true
  readonly readsInput = true
  readonly inheritsInput = true
  readonly traceRole = 'judgement' as const
  readonly step = true
  readonly criteria: string

  protected constructor(
    kind: string,
    mode: NodeMode,
    options: JudgementNodeBaseOptions<unknown>,
    view: (report: ReportIssue) => InputView,
  ) {
    const { report, done } = nodeOptionIssues(kind, options, byCriteria)
    const criteria = requireText(options, 'criteria', report, 'the question the judge answers')
    const label = optionalLabel(options, report)
    const children = childrenOption<VerdictNodeBase>(options, report)
    super(kind, mode, { label, children, view: view(report) })
    this.criteria = criteria
    done()
  }

  get text(): string {
    return this.criteria
  }

  staticDetails() {
    return {}
  }

  picture() {
    return { shape: 'diamond' as const, text: this.label ?? this.criteria }
  }

  fields() {
    return compact({ criteria: this.criteria, ...this.readingFields() })
  }

  describe(): string {
    return describeNodeOptions(this.kind, { label: this.label, criteria: this.criteria }, byCriteria)
  }

  /** Checks that every child is a verdict; the kind adds its own rules on the verdict values. */
  validateChildren(report: ReportIssue): void {
    const strays = this.children.filter((child) => !isVerdictNode(child))
    if (strays.length > 0) {
      report(
        'judgement-children',
        `every child of a judgement must be a VerdictNode; found ${strays.map((child) => describeChild(child)).join(', ')}. ` +
          'To continue the walk after a verdict, give that VerdictNode the node as its `child`.',
      )
    }
    this.validateVerdicts(this.children.filter(isVerdictNode), report)
  }

  protected abstract validateVerdicts(verdicts: readonly VerdictNodeBase[], report: ReportIssue): void

  /** Asks the judge and returns its verdict and reason. */
  protected abstract judge(context: NodeRunContext): Promise<{ verdict: string | boolean; reason: string }>

  async run(context: NodeRunContext): Promise<NodeRunResult> {
    const { verdict, reason } = await this.judge(context)
    const chosen = this.children.filter((child) => child.verdict === verdict)
    return { activates: chosen, judgement: { verdict, reason }, details: { verdict, reason } }
  }
}

function describeChild(child: unknown): string {
  if (typeof child === 'object' && child !== null && typeof (child as DagNode).describe === 'function') {
    return (child as DagNode).describe()
  }
  return typeof child
}
