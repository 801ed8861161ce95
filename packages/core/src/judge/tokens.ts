// A call's tokens as the judge protocol bills them: summed over a re-ask, shared between the samples of one call.
import type { TransportCompletion } from './structured-judge.js'
import type { JudgeUsage } from './types.js'

/** A call's tokens as billed: the cached and reasoning counts only where the server reported them. */
export type Tokens = Omit<JudgeUsage, 'costUsd'>

export function tokensOf(completion: TransportCompletion): Tokens {
  return withDetails(
    { promptTokens: completion.promptTokens, completionTokens: completion.completionTokens },
    tokenCount(completion.cachedPromptTokens),
    tokenCount(completion.reasoningTokens),
  )
}

/** Two calls' tokens (a re-ask, a sample asked for again); a detail either call reported counts 0 in the other. */
export function addTokens(a: Tokens, b: Tokens): Tokens {
  const detail = (x: number | undefined, y: number | undefined) =>
    x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0)
  return withDetails(
    { promptTokens: a.promptTokens + b.promptTokens, completionTokens: a.completionTokens + b.completionTokens },
    detail(a.cachedPromptTokens, b.cachedPromptTokens),
    detail(a.reasoningTokens, b.reasoningTokens),
  )
}

/** The share of one of `count` samples of one call: the first carries the prompt, the completion is split evenly. */
export function shareOf(tokens: Tokens, position: number, count: number): Tokens {
  const share = (total: number) => Math.floor(total / count) + (position < total % count ? 1 : 0)
  const cached = tokens.cachedPromptTokens
  return withDetails(
    { promptTokens: position === 0 ? tokens.promptTokens : 0, completionTokens: share(tokens.completionTokens) },
    cached === undefined ? undefined : position === 0 ? cached : 0,
    tokens.reasoningTokens === undefined ? undefined : share(tokens.reasoningTokens),
  )
}

function withDetails(
  counts: { readonly promptTokens: number; readonly completionTokens: number },
  cachedPromptTokens: number | undefined,
  reasoningTokens: number | undefined,
): Tokens {
  return {
    ...counts,
    ...(cachedPromptTokens === undefined ? {} : { cachedPromptTokens }),
    ...(reasoningTokens === undefined ? {} : { reasoningTokens }),
  }
}

/** A detail count as a server sent it: a count from 0 up, or nothing (a compatible server may send null or junk). */
function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined
}
