import { addDetail, tokenDetails } from '../judge/tokens.js'
import type { JudgeResponse } from '../judge/types.js'
import { addJuryUsage, juryUsageOf } from './jury-usage.js'
import type { MetricUsage } from './types.js'

/** Usage of no judge call at all. */
export const NO_USAGE: MetricUsage = Object.freeze({
  judgeCalls: 0,
  cachedCalls: 0,
  promptTokens: 0,
  completionTokens: 0,
  costUsd: 0,
})

/**
 * Adds usages; the cost becomes undefined as soon as one part's cost is unknown. A token detail (cached prompt,
 * reasoning) is there when either part has it.
 */
export function addUsage(a: MetricUsage, b: MetricUsage): MetricUsage {
  const sum = {
    judgeCalls: a.judgeCalls + b.judgeCalls,
    cachedCalls: a.cachedCalls + b.cachedCalls,
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    ...tokenDetails(
      addDetail(a.cachedPromptTokens, b.cachedPromptTokens),
      addDetail(a.reasoningTokens, b.reasoningTokens),
    ),
    costUsd: a.costUsd === undefined || b.costUsd === undefined ? undefined : a.costUsd + b.costUsd,
  }
  return a.jurors === undefined && b.jurors === undefined ? sum : { ...sum, ...addJuryUsage(a, b) }
}

/**
 * The usage of one judge answer. A call is one request the judge was (or, from the cache, would have been) asked: a
 * second sample of one request (OpenAI's `n`, a decision model's batch) is no call of its own, live or replayed, so
 * a replay counts the calls its recording made, all cached. A cached answer bills no tokens and costs nothing.
 */
export function usageOf(response: JudgeResponse<unknown>): MetricUsage {
  if (response.jurors !== undefined) return juryUsageOf(response.jurors)
  if (response.extraSample && response.cached) return NO_USAGE
  if (response.cached) return { ...NO_USAGE, judgeCalls: 1, cachedCalls: 1 }
  return {
    judgeCalls: response.extraSample ? 0 : 1,
    cachedCalls: 0,
    promptTokens: response.usage.promptTokens,
    completionTokens: response.usage.completionTokens,
    ...tokenDetails(response.usage.cachedPromptTokens, response.usage.reasoningTokens),
    costUsd: response.usage.costUsd,
  }
}
