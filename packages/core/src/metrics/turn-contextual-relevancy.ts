import { MissingTestCaseParamError } from '../errors.js'
import { batchError, runJobs, type Settled } from '../internal/jobs.js'
import { messageOf, shortText } from '../internal/text.js'
import { addNote, callJudge, type JudgeCall, localCheckNote, stepNode } from '../metric/judge-call.js'
import type { ResolvedMetricOptions } from '../metric/options.js'
import { buildResult, errorResult, type MeasurementContext } from '../metric/result.js'
import { applyStrictMode } from '../metric/score.js'
import type { MetricResult, MetricUsage } from '../metric/types.js'
import { addUsage, NO_USAGE } from '../metric/usage.js'
import type { WindowTurn } from '../prompts/conversation-relevancy.js'
import {
  TURN_CONTEXTUAL_RELEVANCY_PROMPT,
  turnContextualRelevancyPrompt,
  turnContextualRelevancySchema,
} from '../prompts/turn-contextual-relevancy.js'
import type { ConversationalTestCase } from '../test-case/schemas.js'
import { formatScore } from '../trace/render.js'
import type { TraceNode } from '../trace/types.js'
import {
  type ReplyWindow,
  replyWindows,
  WindowedMetric,
  type WindowedMetricOptions,
  windowTurns,
} from './conversation-windows.js'

/** Options for {@link TurnContextualRelevancyMetric}. */
export interface TurnContextualRelevancyMetricOptions extends WindowedMetricOptions {
  /** Identifies the metric in reports. @default 'Turn Contextual Relevancy' */
  name?: string | undefined
  /** Exchanges (a user turn and the replies to it) whose user input the context is judged against. @default 10 */
  windowSize?: number | undefined
}

interface Statement {
  readonly chunk: number
  readonly statement: string
  readonly relevant: boolean
  readonly reason: string
}

interface TurnJudgement {
  readonly statements: readonly Statement[]
  readonly call: JudgeCall<unknown> | undefined
}

interface Target {
  readonly window: ReplyWindow
  readonly chunks: readonly string[]
}

/**
 * Judges whether the context retrieved for each assistant turn is relevant to the user's input: every chunk is split
 * into statements, each judged relevant or not; turn score = relevant statements / statements; score = mean over the
 * assistant turns that have `retrievalContext` (others do not count). One judge call per such turn, run concurrently.
 *
 * @example
 * const result = await new TurnContextualRelevancyMetric().measure({ turns })
 */
export class TurnContextualRelevancyMetric extends WindowedMetric {
  constructor(options: TurnContextualRelevancyMetricOptions = {}) {
    super('TurnContextualRelevancyMetric', options, { name: 'Turn Contextual Relevancy', windowSize: 10 })
  }

  protected override async run(
    parsed: ConversationalTestCase,
    context: MeasurementContext,
    signal: AbortSignal | undefined,
  ): Promise<MetricResult> {
    const turns = windowTurns(parsed)
    const targets: Target[] = replyWindows(turns, this.windowSize).flatMap((window) => {
      const chunks = parsed.turns[window.reply]?.retrievalContext ?? []
      return chunks.length > 0 ? [{ window, chunks }] : []
    })
    if (targets.length === 0) {
      throw new MissingTestCaseParamError(
        this.name,
        ['retrievalContext'],
        'at least one assistant turn',
        "Give each assistant turn to judge the chunks it was answered from: { role: 'assistant', content: '…', " +
          "retrievalContext: ['…'] }. The metric has no evaluationParams: it always reads that field.",
      )
    }
    const settled = await runJobs(targets, this.options.asyncMode, signal, (target, signal) =>
      judgeTurn(this.options, turns, target, signal),
    )
    const nodes = targets.map((target, position) => traceEntry(position, target, turns, settled[position]))
    const usage = settled.reduce<MetricUsage>(
      (sum, entry) => (entry.ok && entry.value.call ? addUsage(sum, entry.value.call.usage) : sum),
      NO_USAGE,
    )
    const judged = new Set(targets.map((target) => target.window.reply))
    const unjudged = turns.filter((turn) => turn.role === 'assistant' && !judged.has(turn.index))
    const notes = [
      `each turn's context was judged against the user input in a window of up to ${this.windowSize} exchanges`,
      ...(unjudged.length > 0
        ? [`not counted (no retrieval context): ${unjudged.map((turn) => `turn ${turn.index}`).join(', ')}`]
        : []),
    ]
    const trace = () => ({ metric: this.name, nodes, roots: nodes.map((node) => node.id), notes })
    if (settled.some((entry) => !entry.ok)) {
      const error = batchError(settled, (index) => {
        const target = targets[index] as Target
        const chunks = target.chunks.length === 1 ? 'its 1 chunk' : `its chunks 1 to ${target.chunks.length}`
        return `Judging the retrieval context of turn ${target.window.reply} (${chunks})`
      })
      return errorResult(context, error, trace(), usage)
    }
    const perTurn = settled.map((entry, position) => {
      const { statements } = (entry as { value: TurnJudgement }).value
      const relevant = statements.filter((statement) => statement.relevant).length
      return { reply: targets[position]?.window.reply ?? 0, statements, relevant, score: relevant / statements.length }
    })
    const raw = perTurn.reduce((sum, turn) => sum + turn.score, 0) / perTurn.length
    const { score, threshold } = applyStrictMode(raw, this.options.threshold, this.options.strictMode)
    const turnScores = perTurn.map((turn) => `turn ${turn.reply} ${turn.relevant}/${turn.statements.length}`)
    notes.unshift(
      `mean over ${perTurn.length} turn(s) with retrieval context (${turnScores.join(', ')}): ${formatScore(raw)}`,
    )
    for (const entry of settled) {
      const call = (entry as { value: TurnJudgement }).value.call
      if (call) addNote(notes, localCheckNote(call.response))
    }
    if (score !== raw) notes.push(`strict mode: the score ${formatScore(raw)} is below 1, so it counts as 0`)
    const irrelevant = perTurn.flatMap((turn) =>
      turn.statements
        .filter((statement) => !statement.relevant)
        .map(
          (statement) =>
            `turn ${turn.reply} chunk ${statement.chunk} “${shortText(statement.statement, 80)}” (${shortText(statement.reason, 120)})`,
        ),
    )
    const reason = this.options.includeReason
      ? `Mean statement relevancy over ${perTurn.length} assistant turn(s) with retrieval context: ${turnScores.join(', ')}.` +
        (irrelevant.length === 0 ? ' Every statement was relevant.' : ` Irrelevant: ${listSome(irrelevant, 5)}.`)
      : undefined
    return buildResult(context, { score, threshold, reason, trace: trace(), usage })
  }
}

async function judgeTurn(
  options: ResolvedMetricOptions,
  turns: readonly WindowTurn[],
  target: Target,
  signal: AbortSignal,
): Promise<TurnJudgement> {
  const numbered = target.chunks.map((text, index) => ({ chunk: index + 1, text }))
  const asked = numbered.filter((chunk) => chunk.text.trim().length > 0)
  // An empty chunk says nothing the user needs; it counts as one irrelevant statement without asking the judge.
  const empty = (chunk: number): Statement => ({
    chunk,
    statement: '(empty chunk)',
    relevant: false,
    reason: 'the chunk is empty',
  })
  if (asked.length === 0) return { statements: numbered.map(({ chunk }) => empty(chunk)), call: undefined }
  const call = await callJudge(
    options.judge,
    {
      messages: turnContextualRelevancyPrompt(turns.slice(target.window.start, target.window.reply), asked),
      schema: turnContextualRelevancySchema(asked.map((chunk) => chunk.chunk)),
      schemaName: 'context_statements',
      promptVersion: TURN_CONTEXTUAL_RELEVANCY_PROMPT,
    },
    signal,
  )
  const answered = new Map(call.value.chunks.map((entry) => [entry.chunk, entry.statements]))
  const statements = numbered.flatMap(({ chunk }) =>
    (answered.get(chunk) ?? [empty(chunk)]).map((statement) => ({ ...statement, chunk })),
  )
  return { statements, call }
}

function traceEntry(
  position: number,
  target: Target,
  turns: readonly WindowTurn[],
  settled: Settled<TurnJudgement> | undefined,
): TraceNode {
  const { start, reply } = target.window
  const input = turns.slice(start, reply).findLast((turn) => turn.role === 'user')
  const base = {
    id: `n${position + 1}`,
    kind: 'TurnContextualRelevancy',
    label: `turn ${reply}`,
    text: input ? `user: ${input.content}` : '(no user input in the window)',
    turnWindow: [start, reply] as const,
  }
  if (!settled?.ok) {
    const error = settled?.error
    return (error as { code?: unknown } | undefined)?.code === 'MEASUREMENT_ABORTED'
      ? stepNode({
          ...base,
          status: 'skipped',
          skipCause: 'stopped',
          skippedBecause: 'the measurement stopped before this turn was judged',
        })
      : stepNode({ ...base, status: 'failed', error: messageOf(error) })
  }
  const { statements, call } = settled.value
  const relevant = statements.filter((statement) => statement.relevant).length
  return stepNode({
    ...base,
    verdict: `${relevant} of ${statements.length} statements relevant`,
    output: statements
      .map((s) => `${s.relevant ? '✓' : '✗'} [chunk ${s.chunk}] ${s.statement}${s.relevant ? '' : ` (${s.reason})`}`)
      .join('\n'),
    outputLabel: 'statements',
    step: position + 1,
    usage: call?.usage ?? NO_USAGE,
    ...(call ? { latencyMs: Math.round(call.latencyMs), cached: call.response.cached } : {}),
  })
}

function listSome(items: readonly string[], max: number): string {
  if (items.length <= max) return items.join('; ')
  return `${items.slice(0, max).join('; ')}; and ${items.length - max} more (see the trace)`
}
