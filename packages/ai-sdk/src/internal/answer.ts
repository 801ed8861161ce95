import { z } from 'zod'

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string }

const RAW_EXCERPT_CHARS = 500

/**
 * Reads a judge's answer the way OpenAIJudge does, so both judges accept the same answers and fail with the same
 * words: the JSON (inside a Markdown fence, as JSON mode on local servers often writes it), then the zod schema.
 */
export function parseAnswer<T>(content: string, schema: z.ZodType<T>): Parsed<T> {
  let json: unknown
  try {
    json = JSON.parse(stripCodeFence(content))
  } catch (error) {
    return { ok: false, problem: `it is not valid JSON (${error instanceof Error ? error.message : String(error)}).` }
  }
  const result = schema.safeParse(json)
  if (result.success) return { ok: true, value: result.data }
  return { ok: false, problem: `it does not match the schema:\n${z.prettifyError(result.error)}` }
}

function stripCodeFence(content: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/.exec(content)
  return fenced?.[1] ?? content
}

/** The raw answer quoted for an error message, cut at 500 characters. */
export function excerpt(raw: string): string {
  if (raw.length <= RAW_EXCERPT_CHARS) return JSON.stringify(raw)
  return `${JSON.stringify(raw.slice(0, RAW_EXCERPT_CHARS))} … (${raw.length - RAW_EXCERPT_CHARS} more characters)`
}

// Anything shaped like a provider API key (OpenAI and Anthropic `sk-…`, Google `AIza…`). The provider holds the real
// key, so this judge never sees it; it can only remove what looks like one from text that a server echoed.
const KEY_LIKE = /sk-[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}/g

/** Text with anything key-shaped replaced by `sk-***`. */
export function scrubSecrets(text: string): string {
  return text.replace(KEY_LIKE, 'sk-***')
}
