import type { JudgeRequest } from '../judge/types.js'
import type { Metric, MetricResult } from '../metric/types.js'
import type { ConversationalTestCase, LLMTestCase } from '../test-case/schemas.js'
import type { TraceNodeDetails, TraceRole } from '../trace/types.js'

/** Which kind of test case a node reads. */
export type NodeMode = 'single-turn' | 'conversational'

/**
 * How a node's children depend on it:
 * - `data`: the child waits for this node's output and runs only if this node ran (TaskNode);
 * - `choice`: the child is one of this node's verdicts, reached only if chosen (judgement nodes);
 * - `control`: the child runs only if this node was reached (VerdictNode).
 */
export type EdgeKind = 'data' | 'choice' | 'control'

/** The output of a TaskNode parent, as a child sees it. */
export interface TaskInput {
  readonly label: string
  readonly output: string
}

/** What a node's judge is shown about the test case. */
export interface ShownInput {
  /** The JSON document in the prompt's data block. */
  readonly data: Record<string, unknown>
  /** The 0-based turns shown, when a turnWindow chose them (negative indices resolved against the conversation). */
  readonly turns?: readonly [number, number] | undefined
}

/** What the executor gives a node when it runs. */
export interface NodeRunContext {
  readonly testCase: LLMTestCase | ConversationalTestCase
  /**
   * What the node's judge is shown: the outputs of its direct TaskNode parents (in declaration order) and the
   * parameters it names; or, for a judgement that inherits its input, what the judgement above its verdict was
   * shown. Throws when the node's turnWindow does not fit the conversation.
   */
  input(): Record<string, unknown>
  /** Asks the metric's judge; usage, latency and caching are recorded on this node's trace entry. */
  judge<T>(request: Omit<JudgeRequest<T>, 'signal'>): Promise<T>
  /** Measures a child metric on the same test case; its result nests under this node in the trace. */
  measureChild(metric: Metric<never>): Promise<MetricResult>
  /**
   * Aborts when the measurement stops (the caller's signal, a test's timeout, another node's failure): work the node
   * does outside `judge` and `measureChild`, such as a CodeNode's check, must end with it.
   */
  readonly signal: AbortSignal
}

/** What running a node produced. */
export interface NodeRunResult {
  /** The output this node hands the children that wait for it (`data` edges), labelled as they read it. */
  readonly input?: TaskInput
  /** The verdict this node chose and why, for the metric's reason (judgements, code and tool-call nodes). */
  readonly judgement?: { readonly verdict: string | boolean; readonly reason: string | undefined }
  /** The children reached through this node (the chosen verdict, or a verdict's child node). */
  readonly activates?: readonly DagNode[]
  /** A verdict leaf's score, 0..1. */
  readonly leafScore?: number
  /** What the trace shows for this node. */
  readonly details: TraceNodeDetails
}

/** How a picture of the graph draws a node: the shape says what it does, the text what it is. */
export interface NodePicture {
  /** box: produces data; diamond: asks a judge to choose; hexagon: chooses without a judge; pill: an outcome. */
  readonly shape: 'box' | 'diamond' | 'hexagon' | 'pill'
  /** Put before the text, e.g. `Task`. */
  readonly title?: string | undefined
  readonly text: string
  /** A verdict's score, drawn after its value. */
  readonly score?: number | undefined
  /** The metric a verdict continues with, drawn as its own box. */
  readonly metric?: string | undefined
}

/** Reports one broken rule: `rule` is a stable identifier, `message` says what is wrong and how to fix it. */
export type ReportIssue = (rule: string, message: string) => void

/**
 * The contract between a node kind and the graph, executor, serialiser and pictures: none of them asks what kind
 * a node is, they ask the node. Adding a kind means its file (implementing this on `NodeBase`, or a base of its
 * family in `nodes/`), its prompt if it asks a judge, its entry in `nodes/registry.ts` (the class in `NODE_KINDS`,
 * its type in `RegisteredNodes`) and its exports in `index.ts`.
 */
export interface DagNode {
  /** The class name, e.g. `BinaryJudgementNode`. */
  readonly kind: string
  readonly mode: NodeMode
  readonly label: string | undefined
  /** The criteria, instructions or verdict value, as the trace shows it. */
  readonly text: string
  /** How the trace lays this node out. */
  readonly traceRole: TraceRole
  /** True when the node is numbered as a step of the walk when it runs (every node but verdicts). */
  readonly step: boolean
  /** The name the children that wait for this node read its output under; undefined when it hands none on. */
  readonly outputLabel?: string | undefined
  /** The nodes this node points to, in declaration order. */
  readonly children: readonly DagNode[]
  /** How the children depend on this node. */
  readonly childEdge: EdgeKind
  /** False for nodes that only make sense below another (verdicts). */
  readonly canBeRoot: boolean
  /** True when the node sends test-case data or parent outputs to the judge (so it must be given some). */
  readonly readsInput: boolean
  /**
   * True when, with no evaluationParams and no TaskNode parent, the node is shown what the judgement above its
   * verdict was shown (judgements). A node without input that cannot inherit is rejected when the graph is built.
   */
  readonly inheritsInput: boolean
  /** Test-case parameters the node reads; checked before any judge call. */
  readonly evaluationParams: readonly string[]
  /** Inclusive turn range for conversational nodes. */
  readonly turnWindow: readonly [number, number] | undefined
  /** A short human name for messages and traces, e.g. `BinaryJudgementNode "Satisfied?"`. */
  describe(): string
  /** The parameters this node names that the test case lacks; checked before any judge call. */
  missingParams(testCase: LLMTestCase | ConversationalTestCase): readonly string[]
  /**
   * What this node's own input shows a judge: `inputs` (its TaskNode parents' outputs), then its parameters. Throws
   * when its turnWindow does not fit the conversation.
   */
  show(testCase: LLMTestCase | ConversationalTestCase, inputs: readonly TaskInput[]): ShownInput
  /**
   * Why the node cannot be written by `toJSON` (e.g. it holds a function); undefined when `fields()` is all of it.
   * @default undefined
   */
  readonly unserializable?: string | undefined
  /** The node's own options, not its children, as JSON-ready data (a verdict's child metric is `metric`). */
  fields(): Readonly<Record<string, unknown>>
  /** What the trace shows for this node whether or not it ran, such as a verdict's score. */
  staticDetails(): TraceNodeDetails
  /** How a picture of the graph (Mermaid) draws this node. */
  picture(): NodePicture
  /** Checks the rules about this node's children; called when the graph is built. */
  validateChildren(report: ReportIssue): void
  /** Runs the node for one measurement. */
  run(context: NodeRunContext): Promise<NodeRunResult>
}

/** Whether a value is a DAG node (of any kind). */
export function isDagNode(value: unknown): value is DagNode {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as DagNode).run === 'function' &&
    typeof (value as DagNode).validateChildren === 'function' &&
    Array.isArray((value as DagNode).children)
  )
}

/** Shortens user text for a one-line description. */
export function excerpt(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}
