import { TestCaseError } from '../errors.js'
import { batchError, runJobs } from '../internal/jobs.js'
import { shortText } from '../internal/text.js'
import type { MetricScore } from '../metric/base-metric.js'
import { whyNoProbabilities } from '../metric/judge-call.js'
import type { Measurement, TraceSlot } from '../metric/measurement.js'
import { countedPassProbability, pointAnswerWhy } from '../metric/pass-probability.js'
import {
  CONVERSATION_RELEVANCY_PROMPT,
  conversationRelevancyPrompt,
  replyRelevancySchema,
  type WindowTurn,
} from '../prompts/conversation-relevancy.js'
import type { ConversationalTestCase } from '../test-case/schemas.js'
import { formatProbability, formatScore } from '../trace/render.js'
import {
  type ReplyWindow,
  replyWindows,
  WindowedMetric,
  type WindowedMetricOptions,
  windowTurns,
} from './conversation-windows.js'

/** Options for {@link ConversationRelevancyMetric}. */
export interface ConversationRelevancyMetricOptions extends WindowedMetricOptions {
  /** Identifies the metric in reports. @default 'Conversation Relevancy' */
  name?: string | undefined
  /**
   * Exchanges (a user turn and the replies to it) each judgement reads, ending at the judged reply.
   * @default 3 (10 for TurnRelevancyMetric, as in the reference library)
   */
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
  /** The window when none is given. */
  static readonly defaultWindowSize: number = 3

  constructor(options: ConversationRelevancyMetricOptions = {}) {
    const windowSize = (new.target as typeof ConversationRelevancyMetric).defaultWindowSize
    super('ConversationRelevancyMetric', options, { name: 'Conversation Relevancy', windowSize })
  }

  protected override async score(parsed: ConversationalTestCase, ctx: Measurement): Promise<MetricScore> {
    const turns = windowTurns(parsed)
    if (!turns.some((turn) => turn.role === 'assistant')) {
      throw new TestCaseError(
        `The metric "${this.name}" judges assistant replies, but the conversation has none (${turns.length} user ` +
          `turn${turns.length === 1 ? '' : 's'}). Add the assistant's replies to the turns.`,
      )
    }
    const windows = replyWindows(turns, this.windowSize)
    const slots = windows.map(({ start, reply }) => {
      const { index, content } = turns[reply] as WindowTurn
      return ctx.slot({ kind: 'ReplyRelevancy', label: `turn ${index}`, text: content, turnWindow: [start, index] })
    })
    const settled = await runJobs(windows, this.options.asyncMode, ctx.signal, (window, signal) =>
      judgeReply(slots[windows.indexOf(window)] as TraceSlot, turns, window, signal),
    )
    const window = `each reply was judged on a window of up to ${this.windowSize} exchanges ending at it`
    if (settled.some((entry) => !entry.ok)) {
      for (const [position, entry] of settled.entries()) {
        if (!entry.ok) slots[position]?.fail(entry.error, 'the measurement stopped before this reply was judged')
      }
      ctx.note(window)
      throw batchError(settled, (index) => `Judging the reply at turn ${windows[index]?.reply}`)
    }
    const judged = settled.map((entry) => (entry as { value: ReplyJudgement }).value)
    const irrelevant = judged.filter((judgement) => !judgement.value.relevant)
    const relevantCount = judged.length - irrelevant.length
    const raw = relevantCount / judged.length
    ctx.note(`${relevantCount} of ${judged.length} replies were relevant: ${formatScore(raw)}`)
    ctx.note(window)
    for (const judgement of judged) ctx.checkedLocally(judgement.response)
    const verdicts = judged.map((judgement, position) => ({
      node: (slots[position] as TraceSlot).id,
      label: `turn ${judgement.reply}`,
      verdict: judgement.value.relevant ? 'relevant' : 'irrelevant',
      yes: judgement.value.relevant,
      probability: judgement.response.distribution?.true,
    }))
    const { threshold, strictMode } = this.options
    const passProbability = countedPassProbability([verdicts], threshold, strictMode)
    const point = judged.findIndex((judgement) => judgement.response.distribution === undefined)
    if (passProbability === undefined && point !== -1) {
      const { response } = judged[point] as ReplyJudgement
      const unavailable = this.options.decisionLogprobs > 0 ? whyNoProbabilities(response) : undefined
      const verdict = verdicts[point] as (typeof verdicts)[number]
      ctx.noPassProbability(`[${verdict.node}] ${verdict.label}`, pointAnswerWhy(this.options, unavailable))
    }
    return { score: raw, reason: relevancyReason(judged.length, irrelevant), passProbability }
  }
}

/**
 * The reference library's newer name for {@link ConversationRelevancyMetric}, with its default window: 10 exchanges
 * (ConversationRelevancyMetric's is 3). Otherwise the same metric.
 */
export class TurnRelevancyMetric extends ConversationRelevancyMetric {
  static override readonly defaultWindowSize: number = 10
}
/** Options for {@link TurnRelevancyMetric}. */
export type TurnRelevancyMetricOptions = ConversationRelevancyMetricOptions

/** The decision each window asks, as its typed question (the prompt words it for a chat judge). */
function relevantIn(turns: readonly WindowTurn[], window: ReplyWindow): string {
  const at = (position: number) => (turns[position] as WindowTurn).index
  const earlier =
    window.start === window.reply
      ? 'with no earlier turns'
      : `read with turns ${at(window.start)} to ${at(window.reply - 1)}`
  return `Does the assistant's reply at turn ${at(window.reply)} address the user's latest message before it, ${earlier}?`
}

async function judgeReply(slot: TraceSlot, turns: readonly WindowTurn[], window: ReplyWindow, signal: AbortSignal) {
  const call = await slot.judge(
    {
      messages: conversationRelevancyPrompt(turns.slice(window.start, window.reply), turns[window.reply] as WindowTurn),
      schema: replyRelevancySchema,
      schemaName: 'reply_relevancy',
      promptVersion: CONVERSATION_RELEVANCY_PROMPT,
      // Every window of the conversation asks about the same state, the whole conversation, so that a decision judge
      // answers them all in one request; the question says which turns the window holds.
      question: {
        kind: 'predicate',
        instructions: relevantIn(turns, window),
        state: turns,
        field: 'relevant',
      },
      show: (answer) => ({ verdict: answer.relevant ? 'relevant' : 'irrelevant', reason: answer.reason }),
      where: false,
      noteCheck: false,
    },
    signal,
  )
  return { ...call, reply: window.reply }
}

function relevancyReason(count: number, irrelevant: readonly ReplyJudgement[]): string {
  if (irrelevant.length === 0)
    return count === 1 ? 'The one reply was relevant.' : `All ${count} replies were relevant.`
  const listed = irrelevant.map((judgement) => `turn ${judgement.reply} (${irrelevantBecause(judgement)})`)
  return `${count - irrelevant.length} of ${count} replies were relevant; irrelevant: ${listed.join('; ')}.`
}

/** Why a reply was irrelevant: the judge's reason, or a decision judge's probability that it was relevant. */
function irrelevantBecause(judgement: ReplyJudgement): string {
  const { reason } = judgement.value as { readonly reason?: string }
  if (reason !== undefined) return shortText(reason, 200)
  const relevant = judgement.response.distribution?.true
  return relevant === undefined ? 'no reason given' : `probability relevant ${formatProbability(relevant)}`
}
