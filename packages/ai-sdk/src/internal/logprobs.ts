import type { TokenLogprob } from '@judgetree/core'

/** The largest `top_logprobs` OpenAI accepts. */
export const MAX_TOP_LOGPROBS = 20

/** True for the providers of `@ai-sdk/openai` (`openai.chat`, `openai.responses`), the ones that return logprobs. */
export function returnsLogprobs(provider: string): boolean {
  return provider === 'openai' || provider.startsWith('openai.')
}

interface RawToken {
  readonly token?: unknown
  readonly logprob?: unknown
  readonly top_logprobs?: unknown
}

/**
 * The token logprobs in `providerMetadata.openai.logprobs`: a flat list from Chat Completions, one list per output
 * text from the Responses API. Undefined when there are none, or when anything in them is not a token logprob (a
 * provider's metadata is not typed, so nothing is taken on trust): a logprob that is not a number is never read as
 * one (`Math.exp(null)` is a probability of 1), and one bad alternative makes the list unreadable, as in OpenAIJudge.
 */
export function readLogprobs(providerMetadata: unknown): TokenLogprob[] | undefined {
  const raw = (providerMetadata as { openai?: { logprobs?: unknown } } | undefined)?.openai?.logprobs
  if (!Array.isArray(raw)) return undefined
  const tokens = (raw as unknown[]).flatMap((entry) => (Array.isArray(entry) ? entry : [entry])) as RawToken[]
  const mapped: TokenLogprob[] = []
  for (const entry of tokens) {
    const token = tokenLogprob(entry)
    const top = entry?.top_logprobs ?? []
    if (token === undefined || !Array.isArray(top)) return undefined
    const topLogprobs = (top as unknown[]).map(tokenLogprob)
    if (topLogprobs.includes(undefined)) return undefined
    mapped.push({ ...token, topLogprobs: topLogprobs as { token: string; logprob: number }[] })
  }
  return mapped.length === 0 ? undefined : mapped
}

function tokenLogprob(entry: unknown): { token: string; logprob: number } | undefined {
  const { token, logprob } = (entry ?? {}) as RawToken
  if (typeof token !== 'string' || typeof logprob !== 'number' || Number.isNaN(logprob)) return undefined
  return { token, logprob }
}
