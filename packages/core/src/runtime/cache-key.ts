import { createHash } from 'node:crypto'
import { z } from 'zod'
import type { JudgeModel, JudgeRequest } from '../judge/types.js'

/** Bumped when the key material or the entry format changes, so old entries are simply never found again. */
export const CACHE_FORMAT_VERSION = 1

const schemaTexts = new WeakMap<object, string>()

/**
 * The content address of one judge call: a sha256 over everything that decides the answer (judge name and
 * identity, messages, schema, logprobs request, prompt version, trial number and trial temperature) and nothing that
 * does not (signal, timeouts, key).
 */
export function cacheKeyOf(judge: JudgeModel, request: JudgeRequest<unknown>): string {
  const hash = createHash('sha256')
  hash.update(
    canonicalJson({
      format: CACHE_FORMAT_VERSION,
      judge: judge.name,
      schemaName: request.schemaName,
      promptVersion: request.promptVersion,
      ...askedOf(judge, request),
    }),
  )
  hash.update(schemaText(request.schema))
  return hash.digest('hex')
}

/**
 * The part of a call's key that a cache entry keeps beside its answer (the judge's name, prompt version and schema
 * name are kept on their own), so that a replay miss can say how the call differs from the nearest recording.
 */
export interface AskedMaterial {
  readonly identity: unknown
  readonly messages: readonly { readonly role: string; readonly content: string }[]
  readonly topLogprobs: number | null
  readonly trial?: number | undefined
  readonly defaultTemperature?: number | undefined
}

export function askedOf(judge: JudgeModel, request: JudgeRequest<unknown>): AskedMaterial {
  return {
    identity: judge.cacheIdentity ?? null,
    messages: request.messages.map((message) => ({ role: message.role, content: message.content })),
    topLogprobs: request.topLogprobs ?? null,
    // Absent outside trials runs, so those keys are what they always were.
    trial: request.trial,
    defaultTemperature: request.defaultTemperature,
  }
}

/** JSON with object keys sorted at every depth, so equal values always serialise to equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined && typeof item !== 'function')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`
}

/** The schema's JSON schema as canonical text, computed once per schema object. */
function schemaText(schema: z.ZodType): string {
  let text = schemaTexts.get(schema)
  if (text === undefined) {
    // A schema with parts JSON schema cannot express still gets a stable key from the parts it can.
    text = `schema:${canonicalJson(z.toJSONSchema(schema, { unrepresentable: 'any' }))}`
    schemaTexts.set(schema, text)
  }
  return text
}
