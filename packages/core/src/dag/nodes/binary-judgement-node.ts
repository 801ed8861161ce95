import { BINARY_JUDGEMENT_PROMPT, binaryJudgementPrompt, binaryVerdictSchema } from '../../prompts/binary-judgement.js'
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

/** Options for {@link BinaryJudgementNode}. */
export interface BinaryJudgementNodeOptions extends JudgementNodeBaseOptions<VerdictNode> {
  /** Test-case fields the judge is shown, after any parent TaskNode outputs. @default [] */
  evaluationParams?: readonly LLMTestCaseParam[] | undefined
}

/** Options for {@link ConversationalBinaryJudgementNode}. */
export interface ConversationalBinaryJudgementNodeOptions extends JudgementNodeBaseOptions<ConversationalVerdictNode> {
  /** Turn-level and conversation-level fields the judge is shown. @default [] */
  evaluationParams?: readonly TurnParam[] | undefined
  /**
   * Inclusive range of turns to show: an index >= 0 counts from the first turn (0), one < 0 from the end (-1 is the
   * last turn), so `[-2, -1]` is the last two turns of any conversation. @default every turn
   */
  turnWindow?: readonly [number, number] | undefined
}

abstract class BinaryJudgementBase extends JudgementNodeBase {
  protected validateVerdicts(verdicts: readonly VerdictNodeBase[], report: ReportIssue): void {
    const values = verdicts.map((verdict) => verdict.verdict)
    const valid = this.children.length === 2 && values.length === 2 && values.includes(true) && values.includes(false)
    if (!valid) {
      // Name the classes of this node's family: a conversational node takes Conversational* children.
      const prefix = this.mode === 'conversational' ? 'Conversational' : ''
      report(
        'binary-verdicts',
        `a binary judgement needs exactly two ${prefix}VerdictNode children, one with verdict true and one with verdict false; got ${
          values.length === 0 ? 'none' : values.map((value) => JSON.stringify(value)).join(', ')
        }${this.children.length !== values.length ? ` and ${this.children.length - values.length} other child(ren)` : ''}. ` +
          `Use a ${prefix}NonBinaryJudgementNode for string verdicts.`,
      )
    }
  }

  protected async judge(context: NodeRunContext) {
    return context.judge({
      messages: binaryJudgementPrompt(this.criteria, context.input()),
      schema: binaryVerdictSchema,
      schemaName: 'binary_verdict',
      promptVersion: BINARY_JUDGEMENT_PROMPT,
      question: { kind: 'predicate', instructions: this.criteria, state: context.input(), field: 'verdict' },
    })
  }
}

/** Asks the judge a yes/no question about a single-turn test case; the walk continues at the matching verdict. */
export class BinaryJudgementNode extends BinaryJudgementBase {
  static readonly kind = 'BinaryJudgementNode'
  // Brands the class so TypeScript keeps single-turn and conversational nodes apart.
  declare readonly mode: 'single-turn'

  constructor(options: BinaryJudgementNodeOptions) {
    super(BinaryJudgementNode.kind, 'single-turn', options, (report) =>
      singleTurnView(checkSingleTurnParams(options.evaluationParams, report)),
    )
  }

  /**
   * Adds an outcome top-down and returns it: `{ score }` ends the walk there, `{ then }` continues at a node or
   * metric. Pass an existing VerdictNode instead to share it with another judgement.
   * @example present.addVerdict(false, { score: 0 })
   */
  addVerdict(verdict: boolean, outcome: VerdictOutcome<VerdictChild>): VerdictNode
  addVerdict(shared: VerdictNode): VerdictNode
  addVerdict(verdict: boolean | VerdictNode, outcome?: VerdictOutcome<VerdictChild>): VerdictNode {
    return addVerdictTo(this, verdict, outcome, VerdictNode, (node) => this.appendChild(node, 'addVerdict'))
  }
}

/** Asks the judge a yes/no question about a conversation; the walk continues at the matching verdict. */
export class ConversationalBinaryJudgementNode extends BinaryJudgementBase {
  static readonly kind = 'ConversationalBinaryJudgementNode'
  // Brands the class so TypeScript keeps single-turn and conversational nodes apart.
  declare readonly mode: 'conversational'

  constructor(options: ConversationalBinaryJudgementNodeOptions) {
    super(ConversationalBinaryJudgementNode.kind, 'conversational', options, (report) => {
      const checked = checkConversationalOptions(options.evaluationParams, options.turnWindow, report)
      return conversationalView(checked.params, checked.turnWindow)
    })
  }

  /**
   * Adds an outcome top-down and returns it: `{ score }` ends the walk there, `{ then }` continues at a node or
   * metric. Pass an existing ConversationalVerdictNode instead to share it with another judgement.
   */
  addVerdict(verdict: boolean, outcome: VerdictOutcome<ConversationalVerdictChild>): ConversationalVerdictNode
  addVerdict(shared: ConversationalVerdictNode): ConversationalVerdictNode
  addVerdict(
    verdict: boolean | ConversationalVerdictNode,
    outcome?: VerdictOutcome<ConversationalVerdictChild>,
  ): ConversationalVerdictNode {
    return addVerdictTo(this, verdict, outcome, ConversationalVerdictNode, (node) =>
      this.appendChild(node, 'addVerdict'),
    )
  }
}
