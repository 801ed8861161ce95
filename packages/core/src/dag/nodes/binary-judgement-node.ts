import { BINARY_JUDGEMENT_PROMPT, binaryJudgementPrompt, binaryVerdictSchema } from '../../prompts/binary-judgement.js'
import type { NodeMode, NodeRunContext, ReportIssue } from '../node.js'
import {
  type ConversationalJudgementOptions,
  JudgementNodeBase,
  type JudgementNodeBaseOptions,
  type SingleTurnJudgementOptions,
} from './judgement-base.js'
import type { VerdictNodeBase } from './verdict-node.js'

/** Options for {@link BinaryJudgementNode}. */
export interface BinaryJudgementNodeOptions extends SingleTurnJudgementOptions {}

/** Options for {@link ConversationalBinaryJudgementNode}. */
export interface ConversationalBinaryJudgementNodeOptions extends ConversationalJudgementOptions {}

abstract class BinaryJudgementBase<
  Mode extends NodeMode,
  Options extends JudgementNodeBaseOptions<unknown>,
> extends JudgementNodeBase<boolean, Mode, Options> {
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

  protected judge(context: NodeRunContext) {
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
export class BinaryJudgementNode extends BinaryJudgementBase<'single-turn', BinaryJudgementNodeOptions> {
  static readonly kind = 'BinaryJudgementNode'
  static readonly mode = 'single-turn'
}

/** Asks the judge a yes/no question about a conversation; the walk continues at the matching verdict. */
export class ConversationalBinaryJudgementNode extends BinaryJudgementBase<
  'conversational',
  ConversationalBinaryJudgementNodeOptions
> {
  static readonly kind = 'ConversationalBinaryJudgementNode'
  static readonly mode = 'conversational'
}
