import { TASK_NODE_PROMPT, taskNodePrompt, taskOutputSchema } from '../../prompts/task-node.js'
import type { LLMTestCaseParam, TurnParam } from '../../test-case/params.js'
import type { DagNode, NodeMode, NodeRunContext, NodeRunResult, ReportIssue } from '../node.js'
import { byText, childrenOption, compact, nodeOptionIssues, optionalLabel, requireText } from './construction.js'
import { NodeBase, type ReadingOptions, readingKeys, readingView, staticsOf } from './node-base.js'
import type { ConversationalNode, SingleTurnNode } from './types.js'

/** Options shared by both TaskNode kinds. */
interface TaskNodeBaseOptions<Child> extends ReadingOptions {
  /** What the judge should do with the data, e.g. "Extract all headings in the actual output". */
  instructions: string
  /** The name children see the output under, e.g. "Summary headings". */
  outputLabel: string
  /**
   * Nodes that read this node's output (never a verdict). Leave it out (or empty) to add them top-down with
   * `addNode`; the DAG rejects a TaskNode that still has none when it is built.
   */
  children?: readonly Child[] | undefined
  /** Shown in traces instead of the instructions. */
  label?: string | undefined
}

/** A node that can read a single-turn TaskNode's output: any single-turn node but a verdict. */
export type TaskNodeChild = Exclude<SingleTurnNode, { traceRole: 'verdict' }>

/** A node that can read a conversational TaskNode's output: any conversational node but a verdict. */
export type ConversationalTaskNodeChild = Exclude<ConversationalNode, { traceRole: 'verdict' }>

/** Options for {@link TaskNode}. */
export interface TaskNodeOptions extends TaskNodeBaseOptions<TaskNodeChild> {
  /** Test-case fields the judge is shown. @default [] (only the outputs of parent TaskNodes) */
  evaluationParams?: readonly LLMTestCaseParam[] | undefined
}

/** Options for {@link ConversationalTaskNode}. */
export interface ConversationalTaskNodeOptions extends TaskNodeBaseOptions<ConversationalTaskNodeChild> {
  /** Turn-level and conversation-level fields the judge is shown. @default [] */
  evaluationParams?: readonly TurnParam[] | undefined
  /**
   * Inclusive range of turns to show: an index >= 0 counts from the first turn (0), one < 0 from the end (-1 is the
   * last turn), so `[-2, -1]` is the last two turns of any conversation. @default every turn
   */
  turnWindow?: readonly [number, number] | undefined
}

/** What a TaskNode of each mode takes as a child (in `addNode`). */
interface TaskChildren {
  'single-turn': TaskNodeChild
  conversational: ConversationalTaskNodeChild
}

const byInstructions = byText('instructions')

abstract class TaskNodeBase<Mode extends NodeMode, Options extends TaskNodeBaseOptions<unknown>>
  extends NodeBase<DagNode, Mode>
  implements DagNode
{
  readonly childEdge = 'data' as const
  readonly readsInput = true
  // A task transforms data it is given; it never borrows what a judgement above it was shown.
  readonly inheritsInput = false
  readonly traceRole = 'task' as const
  readonly instructions: string
  readonly outputLabel: string

  constructor(options: Options) {
    const { kind, mode } = staticsOf(new.target)
    const keys = ['instructions', 'outputLabel', 'children', 'label', ...readingKeys(mode)]
    const { report, done } = nodeOptionIssues(kind, options, keys, byInstructions)
    const instructions = requireText(options, 'instructions', report, 'what the judge should do with the data')
    const outputLabel = requireText(options, 'outputLabel', report, 'the name children see the output under')
    const label = optionalLabel(options, report)
    const children = childrenOption<DagNode>(options, report)
    super({ label, children, view: readingView(mode, options, report), identify: byInstructions })
    this.instructions = instructions
    this.outputLabel = outputLabel
    done()
  }

  get text(): string {
    return this.instructions
  }

  staticDetails() {
    return { outputLabel: this.outputLabel }
  }

  picture() {
    return { shape: 'box' as const, title: 'Task', text: this.label ?? this.instructions }
  }

  fields() {
    return compact({ instructions: this.instructions, outputLabel: this.outputLabel, ...this.readingFields() })
  }

  validateChildren(report: ReportIssue): void {
    if (this.children.length === 0) {
      report(
        'task-children',
        'a TaskNode needs at least one child that reads its output (a judgement or another TaskNode).',
      )
    }
    for (const child of this.children) {
      if (child.traceRole === 'verdict') {
        report(
          'task-verdict-child',
          'a TaskNode cannot have a VerdictNode child: its output is data, not a decision. ' +
            (this.mode === 'conversational'
              ? 'Put a ConversationalBinaryJudgementNode or ConversationalNonBinaryJudgementNode between them.'
              : 'Put a BinaryJudgementNode or NonBinaryJudgementNode between them.'),
        )
      }
    }
  }

  /**
   * Adds a node that reads this task's output (top-down building) and returns it, to continue from there.
   * @example const present = extract.addNode(new BinaryJudgementNode({ criteria: 'Are all headings there?' }))
   */
  addNode<Child extends TaskChildren[Mode]>(child: Child): Child {
    return this.appendChild(child, 'addNode')
  }

  async run(context: NodeRunContext): Promise<NodeRunResult> {
    const answer = await context.judge({
      messages: taskNodePrompt(this.instructions, this.outputLabel, context.input()),
      schema: taskOutputSchema,
      schemaName: 'task_output',
      promptVersion: TASK_NODE_PROMPT,
    })
    return {
      input: { label: this.outputLabel, output: answer.output },
      details: { output: answer.output, outputLabel: this.outputLabel },
    }
  }
}

/** Has the judge transform single-turn test-case fields (or parent outputs) into text its children judge. */
export class TaskNode extends TaskNodeBase<'single-turn', TaskNodeOptions> {
  static readonly kind = 'TaskNode'
  static readonly mode = 'single-turn'
}

/** Has the judge transform turns of a conversation (or parent outputs) into text its children judge. */
export class ConversationalTaskNode extends TaskNodeBase<'conversational', ConversationalTaskNodeOptions> {
  static readonly kind = 'ConversationalTaskNode'
  static readonly mode = 'conversational'
}
