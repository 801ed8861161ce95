// Reading a judge's answer, shared by every judge that asks for JSON (OpenAIJudge, @judgetree/ai-sdk, yours): the
// same answers are accepted and the same words explain a rejection, whichever judge asked.
import { z } from 'zod'
import type { JudgeMessage } from './types.js'

/** A judge answer read against its schema: the value, or what was wrong with it (for the re-ask and the error). */
export type ParsedAnswer<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly problem: string }

const EXCERPT_CHARS = 500

/**
 * Reads a judge's answer: the JSON (also inside a Markdown fence, as JSON mode on local servers often writes it),
 * then the zod schema.
 */
export function parseJudgeAnswer<T>(content: string, schema: z.ZodType<T>): ParsedAnswer<T> {
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

/** The raw answer quoted for an error message, cut at 500 characters. */
export function answerExcerpt(raw: string): string {
  if (raw.length <= EXCERPT_CHARS) return JSON.stringify(raw)
  return `${JSON.stringify(raw.slice(0, EXCERPT_CHARS))} … (${raw.length - EXCERPT_CHARS} more characters)`
}

/** The messages with the answer's JSON schema added to the last user message: for servers in JSON mode. */
export function withSchemaInstruction(
  messages: readonly JudgeMessage[],
  schema: Record<string, unknown>,
): JudgeMessage[] {
  const instruction = `Answer with only a JSON object, and no other text, matching this JSON schema:\n${JSON.stringify(schema)}`
  const index = messages.findLastIndex((message) => message.role === 'user')
  if (index === -1) return [...messages, { role: 'user', content: instruction }]
  return messages.map((message, at) =>
    at === index ? { role: message.role, content: `${message.content}\n\n${instruction}` } : message,
  )
}

function stripCodeFence(content: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/.exec(content)
  return fenced?.[1] ?? content
}
