/**
 * Anything shaped like a provider API key: OpenAI and Anthropic `sk-…`, Google `AIza…`. The one copy of this
 * pattern (judges outside core use it through @judgetree/core/runtime): a fix here reaches every scrubbed text.
 */
const KEY_LIKE = /sk-[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}/g

/**
 * Replaces `secret` (when it is long enough to be a real key) and anything key-shaped with `sk-***`: for any text a
 * judge got from a server (answers, error messages) before it reaches a result, a trace, an error or the cache.
 */
export function scrubSecrets(text: string, secret?: string | null | undefined): string {
  // Very short "keys" (placeholders for local servers) would mangle ordinary words if replaced.
  const exact = secret !== null && secret !== undefined && secret.length >= 8 ? text.split(secret).join('sk-***') : text
  return exact.replace(KEY_LIKE, 'sk-***')
}
