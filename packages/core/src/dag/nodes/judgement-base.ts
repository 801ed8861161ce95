import type { LLMTestCaseParam, TurnParam } from '../../test-case/params.js'
import type { DagNode, NodeMode, NodeRunContext, NodeRunResult, ReportIssue } from '../node.js'
import { VerdictParent } from './add-verdict.js'
import { byText, childrenOption, compact, nodeOptionIssues, optionalLabel, requireText } from './construction.js'
import { type ReadingOptions, readingKeys, readingView, staticsOf } from './node-base.js'
import {
  type ConversationalVerdictNode,
  isVerdictNode,
  type VerdictNode,
  type VerdictNodeBase,
} from './verdict-node.js'

/** Options shared by every judgement node kind. */
export interface JudgementNodeBaseOptions<Verdict> extends ReadingOptions {
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

/** Options of a single-turn judgement, binary or not. */
export interface SingleTurnJudgementOptions extends JudgementNodeBaseOptions<VerdictNode> {
  /** Test-case fields the judge is shown, after any parent TaskNode outputs. @default [] */
  evaluationParams?: readonly LLMTestCaseParam[] | undefined
}

/** Options of a conversational judgement, binary or not. */
export interface ConversationalJudgementOptions extends JudgementNodeBaseOptions<ConversationalVerdictNode> {
  /** Turn-level and conversation-level fields the judge is shown. @default [] */
  evaluationParams?: readonly TurnParam[] | undefined
  /**
   * Inclusive range of turns to show: an index >= 0 counts from the first turn (0), one < 0 from the end (-1 is the
   * last turn), so `[-2, -1]` is the last two turns of any conversation. @default every turn
   */
  turnWindow?: readonly [number, number] | undefined
}

const byCriteria = byText('criteria')

/**
 * The part binary and non-binary judgements share: a criteria, verdict children, one judge call whose verdict
 * picks the child to continue with.
 */
export abstract class JudgementNodeBase<
    Value extends boolean | string,
    Mode extends NodeMode,
    Options extends JudgementNodeBaseOptions<unknown>,
  >
  extends VerdictParent<Value, Mode>
  implements DagNode
{
  readonly readsInput = true
  readonly inheritsInput = true
  readonly criteria: string

  constructor(options: Options) {
    const { kind, mode } = staticsOf(new.target)
    const keys = ['criteria', 'children', 'label', ...readingKeys(mode)]
    const { report, done } = nodeOptionIssues(kind, options, keys, byCriteria)
    const criteria = requireText(options, 'criteria', report, 'the question the judge answers')
    const label = optionalLabel(options, report)
    const children = childrenOption<VerdictNodeBase>(options, report)
    super({ label, children, view: readingView(mode, options, report), identify: byCriteria })
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

  /**
   * Asks the judge and returns its verdict and reason, which a decision judge does not give (the judge's promise
   * itself: no async layer of its own).
   */
  protected abstract judge(context: NodeRunContext): Promise<{ verdict: string | boolean; reason?: string | undefined }>

  async run(context: NodeRunContext): Promise<NodeRunResult> {
    const { verdict, reason } = await this.judge(context)
    // A loop, not a filter with a closure: every judgement of every walk passes here.
    const chosen: VerdictNodeBase[] = []
    for (const child of this.children) if (child.verdict === verdict) chosen.push(child)
    return {
      activates: chosen,
      judgement: { verdict, reason },
      details: reason === undefined ? { verdict } : { verdict, reason },
    }
  }
}

function describeChild(child: unknown): string {
  if (typeof child === 'object' && child !== null && typeof (child as DagNode).describe === 'function') {
    return (child as DagNode).describe()
  }
  return typeof child
}
