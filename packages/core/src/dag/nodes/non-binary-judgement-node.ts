import {
  NON_BINARY_JUDGEMENT_PROMPT,
  nonBinaryJudgementPrompt,
  nonBinaryVerdictSchema,
} from '../../prompts/non-binary-judgement.js'
import type { LLMTestCaseParam, TurnParam } from '../../test-case/params.js'
import {
  checkConversationalOptions,
  checkSingleTurnParams,
  conversationalView,
  singleTurnView,
} from '../../test-case/view.js'
import type { NodeRunContext, ReportIssue } from '../node.js'
import { addVerdictTo, type VerdictOutcome } from './add-verdict.js'
import { JudgementNodeBase, type JudgementNodeBaseOptions } from './judgement-base.js'
import {
  type ConversationalVerdictChild,
  ConversationalVerdictNode,
  type VerdictChild,
  VerdictNode,
  type VerdictNodeBase,
} from './verdict-node.js'

/** Options for {@link NonBinaryJudgementNode}. */
export interface NonBinaryJudgementNodeOptions extends JudgementNodeBaseOptions<VerdictNode> {
  /** Test-case fields the judge is shown, after any parent TaskNode outputs. @default [] */
  evaluationParams?: readonly LLMTestCaseParam[] | undefined
}

/** Options for {@link ConversationalNonBinaryJudgementNode}. */
export interface ConversationalNonBinaryJudgementNodeOptions
  extends JudgementNodeBaseOptions<ConversationalVerdictNode> {
  /** Turn-level and conversation-level fields the judge is shown. @default [] */
  evaluationParams?: readonly TurnParam[] | undefined
  /**
   * Inclusive range of turns to show: an index >= 0 counts from the first turn (0), one < 0 from the end (-1 is the
   * last turn), so `[-2, -1]` is the last two turns of any conversation. @default every turn
   */
  turnWindow?: readonly [number, number] | undefined
}

abstract class NonBinaryJudgementBase extends JudgementNodeBase {
  // One schema object per node (its verdicts never change): judges and the cache memoise JSON schemas by identity.
  #schema: ReturnType<typeof nonBinaryVerdictSchema> | undefined

  /** The verdict options in declaration order, as the judge is shown them. */
  get options(): string[] {
    return this.children.map((child) => String(child.verdict))
  }

  protected validateVerdicts(verdicts: readonly VerdictNodeBase[], report: ReportIssue): void {
    const nonStrings = verdicts.filter((verdict) => typeof verdict.verdict !== 'string')
    if (nonStrings.length > 0) {
      report(
        'non-binary-verdict-type',
        `a non-binary judgement's verdicts must be strings; got ${nonStrings.map((v) => JSON.stringify(v.verdict)).join(', ')}. ` +
          'Use a BinaryJudgementNode for true/false verdicts.',
      )
    }
    if (verdicts.length < 2) {
      report(
        'non-binary-verdicts',
        `a non-binary judgement needs at least two VerdictNode children (the options to choose from); got ${verdicts.length}.`,
      )
    }
    const seen = new Set<unknown>()
    const duplicates = new Set<unknown>()
    for (const verdict of verdicts) {
      if (seen.has(verdict.verdict)) duplicates.add(verdict.verdict)
      seen.add(verdict.verdict)
    }
    if (duplicates.size > 0) {
      report(
        'non-binary-duplicate-verdicts',
        `each verdict of a non-binary judgement must be distinct; ${[...duplicates].map((v) => JSON.stringify(v)).join(', ')} appears more than once.`,
      )
    }
  }

  protected async judge(context: NodeRunContext) {
    const options = this.options
    this.#schema ??= nonBinaryVerdictSchema(options as [string, ...string[]])
    return context.judge({
      messages: nonBinaryJudgementPrompt(this.criteria, options, context.input()),
      schema: this.#schema,
      schemaName: 'non_binary_verdict',
      promptVersion: NON_BINARY_JUDGEMENT_PROMPT,
      question: { kind: 'choice', instructions: this.criteria, state: context.input(), options, field: 'verdict' },
    })
  }
}

/** Asks the judge to pick one of several answers about a single-turn test case; the walk follows that verdict. */
export class NonBinaryJudgementNode extends NonBinaryJudgementBase {
  static readonly kind = 'NonBinaryJudgementNode'
  // Brands the class so TypeScript keeps single-turn and conversational nodes apart.
  declare readonly mode: 'single-turn'

  constructor(options: NonBinaryJudgementNodeOptions) {
    super(NonBinaryJudgementNode.kind, 'single-turn', options, (report) =>
      singleTurnView(checkSingleTurnParams(options.evaluationParams, report)),
    )
  }

  /**
   * Adds an outcome top-down and returns it: `{ score }` ends the walk there, `{ then }` continues at a node or
   * metric. Pass an existing VerdictNode instead to share it with another judgement.
   * @example present.addVerdict('Yes', { score: 0 })
   */
  addVerdict(verdict: string, outcome: VerdictOutcome<VerdictChild>): VerdictNode
  addVerdict(shared: VerdictNode): VerdictNode
  addVerdict(verdict: string | VerdictNode, outcome?: VerdictOutcome<VerdictChild>): VerdictNode {
    return addVerdictTo(this, verdict, outcome, VerdictNode, (node) => this.appendChild(node, 'addVerdict'))
  }
}

/** Asks the judge to pick one of several answers about a conversation; the walk follows that verdict. */
export class ConversationalNonBinaryJudgementNode extends NonBinaryJudgementBase {
  static readonly kind = 'ConversationalNonBinaryJudgementNode'
  // Brands the class so TypeScript keeps single-turn and conversational nodes apart.
  declare readonly mode: 'conversational'

  constructor(options: ConversationalNonBinaryJudgementNodeOptions) {
    super(ConversationalNonBinaryJudgementNode.kind, 'conversational', options, (report) => {
      const checked = checkConversationalOptions(options.evaluationParams, options.turnWindow, report)
      return conversationalView(checked.params, checked.turnWindow)
    })
  }

  /**
   * Adds an outcome top-down and returns it: `{ score }` ends the walk there, `{ then }` continues at a node or
   * metric. Pass an existing ConversationalVerdictNode instead to share it with another judgement.
   */
  addVerdict(verdict: string, outcome: VerdictOutcome<ConversationalVerdictChild>): ConversationalVerdictNode
  addVerdict(shared: ConversationalVerdictNode): ConversationalVerdictNode
  addVerdict(
    verdict: string | ConversationalVerdictNode,
    outcome?: VerdictOutcome<ConversationalVerdictChild>,
  ): ConversationalVerdictNode {
    return addVerdictTo(this, verdict, outcome, ConversationalVerdictNode, (node) =>
      this.appendChild(node, 'addVerdict'),
    )
  }
}
