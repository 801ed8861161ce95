import { z } from 'zod'
import { expecting } from '../internal/options.js'
import { BaseMetric, checkedOptions, checkMetricOptions } from '../metric/base-metric.js'
import { decisionLogprobsShape } from '../metric/measure-options.js'
import type { CommonMetricOptions, DecisionLogprobsOptions, ResolvedMetricOptions } from '../metric/options.js'
import type { WindowTurn } from '../prompts/conversation-relevancy.js'
import type { ConversationalTestCase } from '../test-case/schemas.js'

/** The turns a judgement of one assistant reply reads: `start..reply`, both 0-based and inclusive. */
export interface ReplyWindow {
  /** Index of the assistant turn being judged; always the window's last turn. */
  readonly reply: number
  /** Index of the window's first turn. */
  readonly start: number
}

/**
 * One window per assistant turn: the last `windowSize` exchanges, ending at that turn.
 *
 * An exchange is a user turn (or several in a row) followed by the assistant turns that answer it. Assistant
 * turns before the first user turn form an exchange of their own, so an opening greeting is judged too (its
 * window is just the opening turns). A trailing user turn has no reply and so no window. When an exchange holds
 * several assistant turns, each is judged with a window that ends at it, never at a later turn.
 */
export function replyWindows(turns: readonly { readonly role: 'user' | 'assistant' }[], windowSize: number) {
  const exchangeOf: number[] = []
  const exchangeStarts: number[] = []
  let exchange = -1
  let answered = true
  for (const [index, turn] of turns.entries()) {
    if (exchange === -1 || (turn.role === 'user' && answered)) {
      exchange += 1
      exchangeStarts.push(index)
      answered = false
    }
    if (turn.role === 'assistant') answered = true
    exchangeOf.push(exchange)
  }
  const windows: ReplyWindow[] = []
  for (const [index, turn] of turns.entries()) {
    if (turn.role !== 'assistant') continue
    const first = Math.max(0, (exchangeOf[index] ?? 0) - windowSize + 1)
    windows.push({ reply: index, start: exchangeStarts[first] ?? 0 })
  }
  return windows
}

/** Options of the metrics that judge a conversation window by window. */
export interface WindowedMetricOptions extends CommonMetricOptions, DecisionLogprobsOptions {
  /** Identifies the metric in reports. */
  name?: string | undefined
  /** How many exchanges (a user turn and the replies to it) each judgement reads, ending at the judged turn. */
  windowSize?: number | undefined
}

/** Checks the options of a windowed metric, throwing a ConfigurationError that lists every problem. */
function resolveWindowedOptions(
  type: string,
  options: WindowedMetricOptions,
  defaults: { readonly name: string; readonly windowSize: number },
): { readonly options: ResolvedMetricOptions; readonly windowSize: number } {
  const spec = { shape: windowedShape, expected: 'an options object or nothing', defaultName: defaults.name }
  return checkMetricOptions(type, options, spec, (checked) => ({
    windowSize: checked.windowSize ?? defaults.windowSize,
  }))
}

const windowedShape = {
  windowSize: expecting(
    z.number().int().min(1),
    'a whole number from 1 and up (how many exchanges each judgement reads)',
  ).optional(),
  ...decisionLogprobsShape,
}

/** A conversational metric that judges each assistant reply on a window of the exchanges ending at it. */
export abstract class WindowedMetric extends BaseMetric<ConversationalTestCase> {
  readonly kind = 'conversational' as const
  readonly windowSize: number

  protected constructor(
    type: string,
    options: WindowedMetricOptions,
    defaults: { readonly name: string; readonly windowSize: number },
  ) {
    const resolved = resolveWindowedOptions(type, options, defaults)
    super({}, checkedOptions(type, resolved.options))
    this.windowSize = resolved.windowSize
  }
}

/** The turns as the windowed prompts show them: index, role and content. */
export function windowTurns(testCase: ConversationalTestCase): WindowTurn[] {
  return testCase.turns.map((turn, index) => ({ index, role: turn.role, content: turn.content }))
}
