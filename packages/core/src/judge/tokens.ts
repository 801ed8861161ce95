// A call's tokens as the judge protocol bills them: summed over a re-ask, shared between the samples of one call.
import type { TransportCompletion } from './structured-judge.js'
import type { JudgeUsage } from './types.js'

/** A call's tokens as billed: the cached and reasoning counts only where the server reported them. */
export type Tokens = Omit<JudgeUsage, 'costUsd'>

export function tokensOf(completion: TransportCompletion): Tokens {
  return {
    promptTokens: completion.promptTokens,
    completionTokens: completion.completionTokens,
    ...tokenDetails(tokenCount(completion.cachedPromptTokens), tokenCount(completion.reasoningTokens)),
  }
}

/** Two calls' tokens (a re-ask, a sample asked for again); a detail either call reported counts 0 in the other. */
export function addTokens(a: Tokens, b: Tokens): Tokens {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    ...tokenDetails(
      addDetail(a.cachedPromptTokens, b.cachedPromptTokens),
      addDetail(a.reasoningTokens, b.reasoningTokens),
    ),
  }
}

/** The share of one of `count` samples of one call: the first carries the prompt, the completion is split evenly. */
export function shareOf(tokens: Tokens, position: number, count: number): Tokens {
  const share = (total: number) => Math.floor(total / count) + (position < total % count ? 1 : 0)
  const cached = tokens.cachedPromptTokens
  return {
    promptTokens: position === 0 ? tokens.promptTokens : 0,
    completionTokens: share(tokens.completionTokens),
    ...tokenDetails(
      cached === undefined ? undefined : position === 0 ? cached : 0,
      tokens.reasoningTokens === undefined ? undefined : share(tokens.reasoningTokens),
    ),
  }
}

/**
 * The token details as fields, each left out when no call reported it, so usage from a server that reports none
 * reads (and serialises) as before. Every judge call's usage passes here several times: no object is built for none.
 */
export function tokenDetails(
  cachedPromptTokens: number | undefined,
  reasoningTokens: number | undefined,
): { readonly cachedPromptTokens?: number; readonly reasoningTokens?: number } {
  if (cachedPromptTokens === undefined) return reasoningTokens === undefined ? NO_DETAILS : { reasoningTokens }
  return reasoningTokens === undefined ? { cachedPromptTokens } : { cachedPromptTokens, reasoningTokens }
}

const NO_DETAILS = Object.freeze({})

/** A detail over two calls: there when either reported it, the other counting 0. */
export function addDetail(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0)
}

/** A detail count as a server sent it: a count from 0 up, or nothing (a compatible server may send null or junk). */
function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined
}
