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
  readonly top_logprobs?: readonly { readonly token?: unknown; readonly logprob?: unknown }[] | null
}

/**
 * The token logprobs in `providerMetadata.openai.logprobs`: a flat list from Chat Completions, one list per output
 * text from the Responses API. Undefined when there are none, or when anything in them is not a token logprob (a
 * provider's metadata is not typed, so nothing is taken on trust).
 */
export function readLogprobs(providerMetadata: unknown): TokenLogprob[] | undefined {
  const raw = (providerMetadata as { openai?: { logprobs?: unknown } } | undefined)?.openai?.logprobs
  if (!Array.isArray(raw)) return undefined
  const tokens = (raw as unknown[]).flatMap((entry) => (Array.isArray(entry) ? entry : [entry])) as RawToken[]
  const mapped: TokenLogprob[] = []
  for (const entry of tokens) {
    if (typeof entry?.token !== 'string' || typeof entry.logprob !== 'number') return undefined
    const topLogprobs = (entry.top_logprobs ?? []).flatMap((top) =>
      typeof top.token === 'string' && typeof top.logprob === 'number'
        ? [{ token: top.token, logprob: top.logprob }]
        : [],
    )
    mapped.push({ token: entry.token, logprob: entry.logprob, topLogprobs })
  }
  return mapped.length === 0 ? undefined : mapped
}
