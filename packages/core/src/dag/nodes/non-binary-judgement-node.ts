import {
  NON_BINARY_JUDGEMENT_PROMPT,
  nonBinaryJudgementPrompt,
  nonBinaryVerdictSchema,
} from '../../prompts/non-binary-judgement.js'
import type { NodeMode, NodeRunContext, ReportIssue } from '../node.js'
import {
  type ConversationalJudgementOptions,
  JudgementNodeBase,
  type JudgementNodeBaseOptions,
  type SingleTurnJudgementOptions,
} from './judgement-base.js'
import type { VerdictNodeBase } from './verdict-node.js'

/** Options for {@link NonBinaryJudgementNode}. */
export interface NonBinaryJudgementNodeOptions extends SingleTurnJudgementOptions {}

/** Options for {@link ConversationalNonBinaryJudgementNode}. */
export interface ConversationalNonBinaryJudgementNodeOptions extends ConversationalJudgementOptions {}

abstract class NonBinaryJudgementBase<
  Mode extends NodeMode,
  Options extends JudgementNodeBaseOptions<unknown>,
> extends JudgementNodeBase<string, Mode, Options> {
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

  protected judge(context: NodeRunContext) {
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
export class NonBinaryJudgementNode extends NonBinaryJudgementBase<'single-turn', NonBinaryJudgementNodeOptions> {
  static readonly kind = 'NonBinaryJudgementNode'
  static readonly mode = 'single-turn'
}

/** Asks the judge to pick one of several answers about a conversation; the walk follows that verdict. */
export class ConversationalNonBinaryJudgementNode extends NonBinaryJudgementBase<
  'conversational',
  ConversationalNonBinaryJudgementNodeOptions
> {
  static readonly kind = 'ConversationalNonBinaryJudgementNode'
  static readonly mode = 'conversational'
}
