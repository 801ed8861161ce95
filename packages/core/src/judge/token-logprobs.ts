import { describeValue } from '../internal/describe-value.js'
import type { TokenLogprob } from './types.js'

/** The token logprobs of one answer, or why they cannot be read. */
export type ReadLogprobs =
  | { readonly logprobs: TokenLogprob[] | undefined; readonly problem?: undefined }
  | { readonly logprobs: undefined; readonly problem: string }

/**
 * Reads Chat Completions' `choice.logprobs.content`. Compatible servers do not always follow the typed shape, and a
 * logprob read wrongly is worse than none: `Math.exp(null)` is a probability of 1. So anything not shaped like
 * token logprobs (a logprob that is not a number, a `top_logprobs` or `content` that is not a list) makes the whole
 * list unreadable, with the first problem named; a list with a hole in it would shift the tokens a score is found by.
 */
export function readTokenLogprobs(content: unknown): ReadLogprobs {
  if (content === undefined || content === null) return { logprobs: undefined }
  if (!Array.isArray(content)) return malformed(`logprobs.content is ${describeValue(content)}, not a list`)
  const tokens: TokenLogprob[] = []
  for (const [index, entry] of (content as unknown[]).entries()) {
    const where = `logprobs.content[${index}]`
    const token = readToken(entry, where)
    if (typeof token === 'string') return malformed(token)
    const top = (entry as { top_logprobs?: unknown }).top_logprobs
    if (top !== undefined && top !== null && !Array.isArray(top)) {
      return malformed(`${where}.top_logprobs is ${describeValue(top)}, not a list`)
    }
    const topLogprobs: { token: string; logprob: number }[] = []
    for (const [position, alternative] of ((top ?? []) as unknown[]).entries()) {
      const read = readToken(alternative, `${where}.top_logprobs[${position}]`)
      if (typeof read === 'string') return malformed(read)
      topLogprobs.push(read)
    }
    tokens.push({ ...token, topLogprobs })
  }
  return { logprobs: tokens }
}

/** One `{ token, logprob }`, or what is wrong with it. */
function readToken(entry: unknown, where: string): { token: string; logprob: number } | string {
  if (typeof entry !== 'object' || entry === null) return `${where} is ${describeValue(entry)}, not a token logprob`
  const { token, logprob } = entry as { token?: unknown; logprob?: unknown }
  if (typeof token !== 'string') return `${where}.token is ${describeValue(token)}, not text`
  if (typeof logprob !== 'number' || Number.isNaN(logprob)) {
    return `${where}.logprob is ${describeValue(logprob)}, not a number`
  }
  return { token, logprob }
}

function malformed(problem: string): ReadLogprobs {
  return { logprobs: undefined, problem }
}
