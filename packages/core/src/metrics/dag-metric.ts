import { z } from 'zod'
import { type WalkOutcome, walkDag } from '../dag/executor.js'
import { exploreBranches } from '../dag/explore.js'
import { type DeepAcyclicGraph, type GraphPlan, graphPlan, isDeepAcyclicGraph } from '../dag/graph.js'
import type { ConversationalNode, SingleTurnNode } from '../dag/nodes/types.js'
import { dagPassProbability } from '../dag/pass-probability.js'
import { MissingTestCaseParamError } from '../errors.js'
import { expecting, flagSchema } from '../internal/options.js'
import { BaseMetric, checkedOptions, checkMetricOptions } from '../metric/base-metric.js'
import { decisionLogprobsShape, exploreSchema } from '../metric/measure-options.js'
import type { Measurement } from '../metric/measurement.js'
import type { CommonMetricOptions, DecisionLogprobsOptions } from '../metric/options.js'
import { pointAnswerWhy } from '../metric/pass-probability.js'
import { clampScore } from '../metric/score.js'
import type { MetricResult } from '../metric/types.js'
import { REASON_SUMMARY_PROMPT, reasonSummaryPrompt, reasonSummarySchema } from '../prompts/reason-summary.js'
import type { ConversationalTestCase, LLMTestCase } from '../test-case/schemas.js'
import { formatProbability, formatScore, oneLine } from '../trace/render.js'

/** Options both DAG metrics take beyond the common ones. */
interface DagOptions extends CommonMetricOptions, DecisionLogprobsOptions {
  /**
   * Ask the judge for a prose summary of the walked path as the reason: one more judge call per measurement.
   * Without it the reason is assembled from the path's own verdicts and reasons. @default false
   */
  summarizeReason?: boolean | undefined
  /**
   * Walk a verdict the judge did not choose too, when its probability is at least this (and its subtree needs judge
   * calls), so that passProbability's bounds narrow: its value replaces the 0/1 it would count for. Those calls are
   * paid and cached like any, and never change the score, the reason or the path; the trace shows them apart. Only
   * verdicts that came with a distribution are explored. See docs/trust.md. @default 0 (never)
   */
  explore?: number | undefined
}

/** Options for {@link DAGMetric}. */
export interface DAGMetricOptions extends DagOptions {
  /** Identifies the metric in reports. */
  name: string
  /** The decision tree, built from single-turn nodes. */
  dag: DeepAcyclicGraph<SingleTurnNode>
}

/** Options for {@link ConversationalDAGMetric}. */
export interface ConversationalDAGMetricOptions extends DagOptions {
  /** Identifies the metric in reports. */
  name: string
  /** The decision tree, built from Conversational* nodes. */
  dag: DeepAcyclicGraph<ConversationalNode>
}

/** The options a DAG metric of `mode` takes beyond the common ones. */
function dagShape(mode: GraphPlan['mode']) {
  return {
    dag: expecting(
      z.custom<DeepAcyclicGraph>((value) => isDeepAcyclicGraph(value) && value.mode === mode),
      (given) =>
        !isDeepAcyclicGraph(given)
          ? 'a graph built with `new DeepAcyclicGraph({ rootNodes: [...] })`'
          : mode === 'single-turn'
            ? 'a graph of single-turn nodes (TaskNode, BinaryJudgementNode, …); for a graph of Conversational* nodes use ConversationalDAGMetric'
            : 'a graph of Conversational* nodes; for a graph of single-turn nodes use DAGMetric',
    ),
    summarizeReason: flagSchema.optional(),
    explore: exploreSchema.optional(),
    ...decisionLogprobsShape,
  }
}

abstract class DagMetricBase<TestCase extends LLMTestCase | ConversationalTestCase> extends BaseMetric<TestCase> {
  readonly dag: DeepAcyclicGraph
  readonly #plan: GraphPlan
  readonly #summarizeReason: boolean
  readonly #explore: number

  protected constructor(
    type: string,
    mode: GraphPlan['mode'],
    options: DAGMetricOptions | ConversationalDAGMetricOptions,
  ) {
    const spec = { shape: dagShape(mode), expected: 'an options object with at least { name, dag }' }
    const checked = checkMetricOptions(type, options, spec)
    super({}, checkedOptions(type, checked.options))
    this.#summarizeReason = options.summarizeReason ?? false
    this.#explore = options.explore ?? 0
    this.dag = options.dag
    this.#plan = graphPlan(options.dag)
  }

  protected override otherKindHint(): string {
    return this.kind === 'single-turn'
      ? 'Use ConversationalDAGMetric with Conversational* nodes for conversations.'
      : 'Use DAGMetric with single-turn nodes for those.'
  }

  /** Never called: a DAG metric finishes its own result (`run`), as its trace is the walk's. */
  protected override score(): never {
    throw new Error('judgetree bug: a DAG metric scores through run()')
  }

  /** Walks the DAG for one test case and records the walk: its entries, usage and notes, then the score. */
  protected override async run(testCase: TestCase, ctx: Measurement): Promise<MetricResult> {
    checkTestCase(this.#plan, testCase, this.name)
    const walk = { plan: this.#plan, testCase, recorder: ctx, asyncMode: this.options.asyncMode }
    const outcome = await walkDag(walk)
    ctx.adopt(outcome.nodes)
    if (outcome.leaves.length > 1) {
      const scores = outcome.leaves.map((leaf) => formatScore(leaf.score)).join(', ')
      ctx.note(`${outcome.leaves.length} verdicts were reached (${scores}); the score is the lowest.`)
    }
    for (const step of outcome.steps) step.keepNotes()
    if (outcome.error) return ctx.fail(outcome.error, outcome.roots)
    const deciding = decidingLeaf(outcome, this.#plan)
    const raw = clampScore(deciding.score)
    const { score, threshold } = ctx.strict(
      raw,
      (walked) => `strict mode: the walk scored ${formatScore(walked)}, which counts as 0.`,
    )
    let reason = pathReason(outcome, deciding, raw, score)
    if (this.#summarizeReason && this.options.includeReason) {
      try {
        reason = await summarised(ctx, outcome, deciding, score)
      } catch (error) {
        return ctx.fail(error, outcome.roots)
      }
    }
    const explored = await exploreBranches(walk, outcome, this.#explore)
    ctx.adoptExplored(explored)
    const chance = dagPassProbability({
      plan: this.#plan,
      nodes: outcome.nodes,
      explored,
      threshold: this.options.threshold,
      strictMode: this.options.strictMode,
    })
    if ('pointAt' in chance) {
      const { pointAt } = chance
      const why =
        pointAt.metric === undefined
          ? pointAnswerWhy(this.options, pointAt.probabilitiesUnavailable)
          : `its metric ${pointAt.metric.name} has no P(pass)`
      ctx.noPassProbability(`[${pointAt.id}] “${pointAt.label ?? pointAt.text}”`, why)
      return ctx.result(score, threshold, reason, outcome.roots)
    }
    return ctx.result(score, threshold, reason, outcome.roots, chance)
  }
}

/**
 * Scores a single-turn test case by walking a decision tree judged by an LLM.
 *
 * @example
 * const metric = new DAGMetric({ name: 'Format Correctness', dag })
 * const result = await metric.measure({ input, actualOutput })
 */
export class DAGMetric extends DagMetricBase<LLMTestCase> {
  readonly kind = 'single-turn' as const

  constructor(options: DAGMetricOptions) {
    super('DAGMetric', 'single-turn', options)
  }
}

/**
 * Scores a conversation by walking a decision tree judged by an LLM.
 *
 * @example
 * const metric = new ConversationalDAGMetric({ name: 'Playful Chatbot', dag })
 * const result = await metric.measure({ turns })
 */
export class ConversationalDAGMetric extends DagMetricBase<ConversationalTestCase> {
  readonly kind = 'conversational' as const

  constructor(options: ConversationalDAGMetricOptions) {
    super('ConversationalDAGMetric', 'conversational', options)
  }
}

/**
 * Fails fast, before any judge call, when a node would lack its parameters. Turn windows depend on the
 * conversation's length and are checked by each node that runs: a branch that is not taken fails nothing.
 */
function checkTestCase(plan: GraphPlan, testCase: LLMTestCase | ConversationalTestCase, metric: string): void {
  // Made at the first missing parameter: this runs for every measurement, and almost every test case has them all.
  let missing: Map<string, string[]> | undefined
  for (const node of plan.order) {
    for (const param of node.missingParams(testCase)) {
      missing ??= new Map()
      missing.set(param, [...(missing.get(param) ?? []), plan.names.get(node) ?? ''])
    }
  }
  if (missing !== undefined) {
    const where = [...new Set([...missing.values()].flat())].join('; ')
    throw new MissingTestCaseParamError(metric, [...missing.keys()], where)
  }
}

/** The leaf that set the score (the lowest; the first reached of equals), and how the reason names it. */
interface DecidingLeaf {
  readonly score: number
  /** The judgement and verdict that led to it, e.g. `“Polite?” → false`, and the child metric if it has one. */
  readonly quote: string
  /** The child metric whose score it is, if the verdict continued with one. */
  readonly metric: MetricResult | undefined
  /** The judgement whose verdict it is, as the walk recorded it; none when the leaf is a root. */
  readonly judgement: WalkOutcome['judgements'][number] | undefined
}

function decidingLeaf(outcome: WalkOutcome, plan: GraphPlan): DecidingLeaf {
  const lowest = outcome.leaves.reduce((min, leaf) => (leaf.score < min.score ? leaf : min))
  const judgement = (plan.parents.get(lowest.node) ?? []).find((edge) => edge.edge === 'choice')?.node
  const verdict = lowest.node.text
  const quote = judgement ? `“${judgement.label ?? judgement.text}” → ${verdict}` : verdict
  const entry = outcome.nodes.find((node) => node.id === plan.ids.get(lowest.node))
  const metric = entry?.status === 'ran' ? entry.metric : undefined
  const judged = outcome.judgements.find((step) => step.node === judgement)
  return {
    score: lowest.score,
    quote: metric ? `the metric ${metric.name} under ${quote}` : quote,
    metric,
    judgement: judged,
  }
}

/**
 * The reason, built from the walked path's own judgements: no extra judge call. It states the final score (after
 * strict mode) and the decisive step only, the judgement whose verdict set the score, with its reason; the trace
 * tree shows every step.
 */
function pathReason(outcome: WalkOutcome, deciding: DecidingLeaf, walked: number, score: number): string {
  const { metric, judgement } = deciding
  const tail = metric
    ? ` Then ${metric.name} scored ${formatScore(metric.score)}${metric.reason ? `: ${oneLine(metric.reason)}` : '.'}`
    : ''
  const leaf = outcome.leaves.length > 1 ? ` (the lowest of ${outcome.leaves.length} verdicts reached)` : ''
  const strict =
    score === walked
      ? ''
      : `: its verdicts lead to ${formatScore(walked)}, and strict mode counts anything below 1 as 0`
  const step = judgement
    ? ` “${judgement.node.label ?? judgement.node.text}” → ${String(judgement.verdict)}${judgedBecause(judgement)}`
    : ''
  return `The walk scored ${formatScore(score)}${leaf}${strict}.${step}${tail}`
}

/**
 * What follows a judgement's verdict in the reason: the judge's reason, or a decision judge's probability of the
 * verdict it chose (it gives no reason).
 */
function judgedBecause(judgement: WalkOutcome['judgements'][number]): string {
  if (judgement.reason !== undefined) return `: ${oneLine(judgement.reason)}`
  const probability = judgement.probabilities?.[String(judgement.verdict)]
  return probability === undefined ? '.' : ` (probability ${formatProbability(probability)}).`
}

/** The judge's prose summary of the walked path, in place of the path-built reason: one more judge call. */
async function summarised(
  ctx: Measurement,
  outcome: WalkOutcome,
  deciding: DecidingLeaf,
  score: number,
): Promise<string> {
  const steps = outcome.nodes
    .filter((node) => node.status === 'ran' && node.role !== 'verdict')
    .map((node) => ({
      step: node.label ?? node.text,
      ...(node.output !== undefined ? { output: node.output } : {}),
      ...(node.verdict !== undefined ? { verdict: node.verdict, reason: node.reason } : {}),
    }))
  // The summary has no trace entry of its own: a child recorder bills its usage and keeps its remarks.
  const summary = ctx.child()
  const answer = await summary.judge({
    messages: reasonSummaryPrompt({
      metric: ctx.options.name,
      score,
      walkScore: clampScore(deciding.score),
      leaves: outcome.leaves.length,
      decidedBy: deciding.quote,
      steps,
    }),
    schema: reasonSummarySchema,
    schemaName: 'reason_summary',
    promptVersion: REASON_SUMMARY_PROMPT,
  })
  summary.keepNotes()
  return answer.reason
}
