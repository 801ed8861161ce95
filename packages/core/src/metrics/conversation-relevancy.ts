import { TestCaseError } from '../errors.js'
import { batchError, runJobs, type Settled } from '../internal/jobs.js'
import { messageOf, shortText } from '../internal/text.js'
import { addNote, callJudge, localCheckNote, stepNode } from '../metric/judge-call.js'
import type { ResolvedMetricOptions } from '../metric/options.js'
import { buildResult, errorResult, type MeasurementContext } from '../metric/result.js'
import { applyStrictMode } from '../metric/score.js'
import type { MetricResult } from '../metric/types.js'
import { addUsage, NO_USAGE } from '../metric/usage.js'
import {
  CONVERSATION_RELEVANCY_PROMPT,
  conversationRelevancyPrompt,
  replyRelevancySchema,
  type WindowTurn,
} from '../prompts/conversation-relevancy.js'
import type { ConversationalTestCase } from '../test-case/schemas.js'
import { formatScore } from '../trace/render.js'
import type { TraceNode } from '../trace/types.js'
import { replyWindows, WindowedMetric, type WindowedMetricOptions, windowTurns } from './conversation-windows.js'

/** Options for {@link ConversationRelevancyMetric}. */
export interface ConversationRelevancyMetricOptions extends WindowedMetricOptions {
  /** Identifies the metric in reports. @default 'Conversation Relevancy' */
  name?: string | undefined
  /** Exchanges (a user turn and the replies to it) each judgement reads, ending at the judged reply. @default 3 */
  windowSize?: number | undefined
}

type ReplyJudgement = Awaited<ReturnType<typeof judgeReply>>

/**
 * Judges every assistant reply for relevance to the conversation so far, reading a sliding window of the last
 * `windowSize` exchanges: score = relevant replies / replies judged. One judge call per assistant turn; a reply
 * the judge cannot answer for fails the measurement rather than leaving the count. Turn indices are 0-based.
 *
 * @example
 * const result = await new ConversationRelevancyMetric({ threshold: 0.75 }).measure({ turns })
 */
export class ConversationRelevancyMetric extends WindowedMetric {
  constructor(options: ConversationRelevancyMetricOptions = {}) {
    super('ConversationRelevancyMetric', options, { name: 'Conversation Relevancy', windowSize: 3 })
  }

  protected override async run(
    parsed: ConversationalTestCase,
    context: MeasurementContext,
    signal: AbortSignal | undefined,
  ): Promise<MetricResult> {
    const turns = windowTurns(parsed)
    if (!turns.some((turn) => turn.role === 'assistant')) {
      throw new TestCaseError(
        `The metric "${this.name}" judges assistant replies, but the conversation has none (${turns.length} user ` +
          `turn${turns.length === 1 ? '' : 's'}). Add the assistant's replies to the turns.`,
      )
    }
    const windows = replyWindows(turns, this.windowSize)
    const settled = await runJobs(windows, this.options.asyncMode, signal, (window, signal) =>
      judgeReply(this.options, turns, window.start, window.reply, signal),
    )
    const nodes = windows.map((window, position) =>
      traceEntry(
        position,
        turns[window.reply] as WindowTurn,
        window.start,
        settled[position] as Settled<ReplyJudgement>,
      ),
    )
    const usage = settled.reduce((sum, entry) => (entry.ok ? addUsage(sum, entry.value.usage) : sum), NO_USAGE)
    const notes = [`each reply was judged on a window of up to ${this.windowSize} exchanges ending at it`]
    const trace = () => ({ metric: this.name, nodes, roots: nodes.map((node) => node.id), notes })
    if (settled.some((entry) => !entry.ok)) {
      const error = batchError(settled, (index) => `Judging the reply at turn ${windows[index]?.reply}`)
      return errorResult(context, error, trace(), usage)
    }
    const judged = settled.map((entry) => (entry as { value: ReplyJudgement }).value)
    const irrelevant = judged.filter((judgement) => !judgement.value.relevant)
    const relevantCount = judged.length - irrelevant.length
    const raw = relevantCount / judged.length
    const { score, threshold } = applyStrictMode(raw, this.options.threshold, this.options.strictMode)
    notes.unshift(`${relevantCount} of ${judged.length} replies were relevant: ${formatScore(raw)}`)
    for (const judgement of judged) addNote(notes, localCheckNote(judgement.response))
    if (score !== raw) notes.push(`strict mode: the score ${formatScore(raw)} is below 1, so it counts as 0`)
    const reason = this.options.includeReason ? relevancyReason(judged.length, irrelevant) : undefined
    return buildResult(context, { score, threshold, reason, trace: trace(), usage })
  }
}

/** The reference library's newer name for {@link ConversationRelevancyMetric}; the same class. */
export const TurnRelevancyMetric = ConversationRelevancyMetric
/** The reference library's newer name for {@link ConversationRelevancyMetric}; the same class. */
export type TurnRelevancyMetric = ConversationRelevancyMetric
/** Options for {@link TurnRelevancyMetric}. */
export type TurnRelevancyMetricOptions = ConversationRelevancyMetricOptions

async function judgeReply(
  options: ResolvedMetricOptions,
  turns: readonly WindowTurn[],
  start: number,
  reply: number,
  signal: AbortSignal,
) {
  const call = await callJudge(
    options.judge,
    {
      messages: conversationRelevancyPrompt(turns.slice(start, reply), turns[reply] as WindowTurn),
      schema: replyRelevancySchema,
      schemaName: 'reply_relevancy',
      promptVersion: CONVERSATION_RELEVANCY_PROMPT,
    },
    signal,
  )
  return { ...call, reply }
}

function traceEntry(position: number, reply: WindowTurn, start: number, settled: Settled<ReplyJudgement>): TraceNode {
  const base = {
    id: `n${position + 1}`,
    kind: 'ReplyRelevancy',
    label: `turn ${reply.index}`,
    text: reply.content,
    turnWindow: [start, reply.index] as const,
  }
  if (!settled.ok) {
    const aborted = (settled.error as { code?: unknown } | undefined)?.code === 'MEASUREMENT_ABORTED'
    return aborted
      ? stepNode({
          ...base,
          status: 'skipped',
          skipCause: 'stopped',
          skippedBecause: 'the measurement stopped before this reply was judged',
        })
      : stepNode({ ...base, status: 'failed', error: messageOf(settled.error) })
  }
  const { value, usage, latencyMs, response } = settled.value
  return stepNode({
    ...base,
    verdict: value.relevant ? 'relevant' : 'irrelevant',
    reason: value.reason,
    step: position + 1,
    usage,
    latencyMs: Math.round(latencyMs),
    cached: response.cached,
  })
}

function relevancyReason(count: number, irrelevant: readonly ReplyJudgement[]): string {
  if (irrelevant.length === 0)
    return count === 1 ? 'The one reply was relevant.' : `All ${count} replies were relevant.`
  const listed = irrelevant.map((judgement) => `turn ${judgement.reply} (${shortText(judgement.value.reason, 200)})`)
  return `${count - irrelevant.length} of ${count} replies were relevant; irrelevant: ${listed.join('; ')}.`
}
