/**
 * Anything shaped like a provider API key: OpenAI and Anthropic `sk-…`, Google `AIza…`. The one copy of this
 * pattern (judges outside core use it through @judgetree/core/runtime): a fix here reaches every scrubbed text.
 */
const KEY_LIKE = /sk-[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}/g

/**
 * The user and password of a URL (`http://user:pass@host`): fetch quotes such a URL when it refuses it. Anchored on
 * `://` and stopped at the first `/`, so matching stays linear in the text.
 */
const URL_CREDENTIALS = /:\/\/[^\s/?#@]+@/g

/** Shorter "keys" (placeholders for local servers) would mangle ordinary words if replaced. */
const MIN_SECRET_LENGTH = 8
const REPLACEMENT = 'sk-***'

/** One compiled pattern per secret: a process has one or two keys, so this stays tiny. */
const secretPatterns = new Map<string, RegExp>()

/**
 * The secret, or several (a judge may know its provider's key and others its user named); `null` and `undefined`
 * stand for none.
 */
export type Secrets = string | readonly string[] | null | undefined

/**
 * Replaces `secret` (when it is long enough to be a real key) and anything key-shaped with `sk-***`, and the
 * credentials of any URL with `***`: for any text a judge got from a server (answers, error messages) before it
 * reaches a result, a trace, an error or the cache.
 * The secret is found in every form a server or a serialiser can give it, mixed freely within one occurrence: raw,
 * JSON-escaped (`\n`, `\"`), `\u`-escaped (either case of hex), URL-encoded (`%2D`, `+` for a space).
 */
export function scrubSecrets(text: string, secret?: Secrets): string {
  let exact = text
  for (const pattern of patternsOf(secret)) exact = exact.replace(pattern, REPLACEMENT)
  return exact.replace(KEY_LIKE, REPLACEMENT).replace(URL_CREDENTIALS, '://***@')
}

/** `value` with every string in it (keys of objects too) scrubbed, for answers parsed from a server's text. */
export function scrubValue<T>(value: T, secret?: Secrets): T {
  // Iterative, so a deep answer cannot overflow the stack; answers are plain JSON (no cycles).
  const scrubString = (text: string) => scrubSecrets(text, secret)
  if (typeof value === 'string') return scrubString(value) as T
  if (typeof value !== 'object' || value === null) return value
  const root = Array.isArray(value) ? [] : {}
  const stack: [source: object, target: Record<string, unknown>][] = [[value, root as Record<string, unknown>]]
  while (stack.length > 0) {
    const [source, target] = stack.pop() as [object, Record<string, unknown>]
    for (const [key, item] of Object.entries(source)) {
      const name = Array.isArray(source) ? key : scrubString(key)
      if (typeof item === 'string') target[name] = scrubString(item)
      else if (typeof item === 'object' && item !== null) {
        const copy = Array.isArray(item) ? [] : {}
        target[name] = copy
        stack.push([item, copy as Record<string, unknown>])
      } else target[name] = item
    }
  }
  return root as T
}

/** A logprob token as judges return them. */
export interface ScrubbableToken {
  readonly token: string
  readonly topLogprobs: readonly { readonly token: string; readonly logprob: number }[]
}

/**
 * Logprob tokens with the secret taken out even when it is split across several of them: the tokens are scrubbed as
 * one text, and each token that overlaps a secret keeps only its part outside it (the first one also gets `sk-***`).
 * Alternatives in `topLogprobs` are single tokens and are scrubbed one by one.
 */
export function scrubTokens<T extends ScrubbableToken>(tokens: readonly T[], secret?: Secrets): T[] {
  const joined = tokens.map((entry) => entry.token).join('')
  const spans = secretSpans(joined, secret)
  let offset = 0
  // The first span that may still reach into the current token: spans are sorted, so one pass serves every token.
  let first = 0
  return tokens.map((entry) => {
    const start = offset
    const end = start + entry.token.length
    offset = end
    while (first < spans.length && (spans[first] as [number, number])[1] <= start) first++
    let token = ''
    let at = start
    for (let index = first; index < spans.length; index++) {
      const [from, to] = spans[index] as [number, number]
      if (from >= end) break
      if (from > at) token += joined.slice(at, from)
      if (from >= start) token += REPLACEMENT
      at = Math.max(at, Math.min(to, end))
    }
    if (at < end) token += joined.slice(at, end)
    return {
      ...entry,
      token,
      topLogprobs: entry.topLogprobs.map((top) => ({ ...top, token: scrubSecrets(top.token, secret) })),
    }
  })
}

/**
 * Where the secrets (in any form) and key-shaped text sit in `text`, as [start, end) ranges, sorted and with
 * overlapping ranges merged.
 */
function secretSpans(text: string, secret: Secrets): [number, number][] {
  const found: [number, number][] = []
  for (const regex of [...patternsOf(secret), KEY_LIKE]) {
    for (const match of text.matchAll(regex)) found.push([match.index, match.index + match[0].length])
  }
  found.sort((left, right) => left[0] - right[0])
  const spans: [number, number][] = []
  for (const [from, to] of found) {
    const last = spans.at(-1)
    if (last !== undefined && from < last[1]) last[1] = Math.max(last[1], to)
    else spans.push([from, to])
  }
  return spans
}

/** A pattern per secret long enough to scrub, the longest secret first (one secret may hold another). */
function patternsOf(secret: Secrets): RegExp[] {
  const secrets = typeof secret === 'string' ? [secret] : (secret ?? [])
  return [...secrets].sort((left, right) => right.length - left.length).flatMap((one) => patternOf(one) ?? [])
}

function patternOf(secret: string): RegExp | undefined {
  if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) return undefined
  let pattern = secretPatterns.get(secret)
  if (pattern === undefined) {
    pattern = new RegExp(Array.from(secret, charForms).join(''), 'g')
    if (secretPatterns.size > 16) secretPatterns.clear()
    secretPatterns.set(secret, pattern)
  }
  return pattern
}

/**
 * A regex source matching one character of the secret in any of its encodings. An escape's backslash may be
 * doubled: JSON inside JSON (a report of a result) escapes it again, up to 15 backslashes for four levels. The run
 * is bounded (a deeper one is still caught by its last backslashes, and the rest are left): with `\\+`, every
 * position of a long backslash run would scan the rest of the run, which is quadratic in the run's length.
 */
function charForms(char: string): string {
  const forms = new Set<string>()
  const units = Array.from({ length: char.length }, (_, at) => char.charCodeAt(at))
  forms.add(units.map((unit) => `${BACKSLASHES}u${caseless(unit.toString(16).padStart(4, '0'))}`).join(''))
  const json = JSON.stringify(char).slice(1, -1)
  if (json.length === 2 && json.startsWith('\\')) forms.add(`${BACKSLASHES}${escapeRegex(json.slice(1))}`)
  const bytes = new TextEncoder().encode(char)
  forms.add([...bytes].map((byte) => `%${caseless(byte.toString(16).padStart(2, '0'))}`).join(''))
  if (char === ' ') forms.add('\\+')
  // The raw character last: the longest form wins where both could end a match (a key ending in `%`).
  forms.add(escapeRegex(char))
  return `(?:${[...forms].join('|')})`
}

/** One escape's backslashes, as a regex source: 1 to 16, so matching stays linear in the text. */
const BACKSLASHES = '\\\\{1,16}'

function caseless(hex: string): string {
  return Array.from(hex, (digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit)).join('')
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')
}
