/** Anything shaped like an OpenAI API key. The one copy of this pattern: a fix here reaches every scrubbed text. */
const KEY_LIKE = /sk-[A-Za-z0-9_-]{16,}/g

/** Replaces `secret` (when it is long enough to be a real key) and anything key-shaped with `sk-***`. */
export function scrubSecrets(text: string, secret: string | null | undefined): string {
  // Very short "keys" (placeholders for local servers) would mangle ordinary words if replaced.
  const exact = secret !== null && secret !== undefined && secret.length >= 8 ? text.split(secret).join('sk-***') : text
  return exact.replace(KEY_LIKE, 'sk-***')
}
