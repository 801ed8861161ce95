// aiSdkJudge's options and their schema, parsed by core's one option parser: every problem at once, `did you mean`.
import type { ModelPrice } from '@judgetree/core'
import {
  cacheNamespaceSchema,
  expecting,
  flagSchema,
  maxRetriesSchema,
  parseOptions,
  pricingSchema,
  temperatureSchema,
  timerMsSchema,
  warnSchema,
} from '@judgetree/core/runtime'
import { z } from 'zod'

/** Options of {@link aiSdkJudge}. */
export interface AiSdkJudgeOptions {
  /** @default 0 */
  temperature?: number | undefined
  /** Milliseconds one judge call (the SDK's retries included) may take before it is abandoned. @default 60_000 */
  timeoutMs?: number | undefined
  /**
   * Retries for 429, 5xx, connection errors and truncated bodies, with the AI SDK's backoff (2 s, then doubled, or the
   * server's Retry-After). A retry that would start after `timeoutMs` is not made, and the error says so.
   * @default 2 (the SDK's default)
   */
  maxRetries?: number | undefined
  /**
   * Secrets to take out of every answer, error, report and cache entry, besides the key the provider sends (which
   * aiSdkJudge reads from the provider's request headers): for example a token your own `fetch` adds, or the key of
   * a model wrapped in middleware, whose headers are not visible. Each must be 8 characters or more. @default []
   */
  secrets?: readonly string[] | undefined
  /** Prices added to (or overriding) DEFAULT_MODEL_PRICES and registerModelPrices, keyed by model id. @default {} */
  pricing?: Readonly<Record<string, ModelPrice>> | undefined
  /**
   * Provider options passed to every call, e.g. `{ anthropic: { thinking: { type: 'disabled' } } }`; part of the cache
   * key, so never put secrets here. @default {}
   */
  providerOptions?: Readonly<Record<string, Readonly<Record<string, unknown>>>> | undefined
  /**
   * Also writes the answer's JSON schema into the prompt, for providers that get JSON mode but not the schema (the
   * SDK then warns that `responseFormat` is unsupported, e.g. `@ai-sdk/openai-compatible` without
   * `supportsStructuredOutputs`). Part of the cache key. @default false
   */
  schemaInPrompt?: boolean | undefined
  /**
   * What to do when the provider cannot hold answers to the JSON schema: `'auto'` writes the schema into the prompt
   * instead (for the whole model when the provider does not take schemas, for one schema when the server refuses it),
   * warns once and marks every result made that way; `'required'` makes it an error instead. @default 'auto'
   */
  structuredOutputs?: 'auto' | 'required' | undefined
  /** Where the one warning per fallback goes (never stdout). @default console.warn */
  warn?: ((message: string) => void) | undefined
  /**
   * Keeps this judge's cached answers apart from those of judges with another namespace. The cache key does not
   * hold the provider's base URL (a recording replays through any), so name a namespace when two servers answer one
   * model id differently. @default none
   */
  cacheNamespace?: string | undefined
}

const SECRETS = 'a list of strings of 8 characters or more (shorter ones cannot be told from ordinary words)'

/** `secrets`, worded at the list, never at an item: the value shown would be the secret, or part of one. */
export const secretsSchema = expecting(z.array(z.string().min(8)), (given) => {
  const wrong = Array.isArray(given) ? given.findIndex((item) => !(typeof item === 'string' && item.length >= 8)) : -1
  const item: unknown = Array.isArray(given) ? given[wrong] : undefined
  const what = typeof item === 'string' ? `a string of ${item.length} characters` : `a ${typeof item}`
  return wrong === -1 ? SECRETS : `${SECRETS}; item ${wrong} is ${what}`
})

const optionsSchema = expecting(
  z.strictObject({
    temperature: temperatureSchema.optional(),
    timeoutMs: timerMsSchema.optional(),
    maxRetries: maxRetriesSchema.optional(),
    secrets: secretsSchema.optional(),
    pricing: pricingSchema.optional(),
    providerOptions: expecting(z.record(z.string(), z.looseObject({})), 'an object keyed by provider name').optional(),
    schemaInPrompt: flagSchema.optional(),
    structuredOutputs: expecting(z.enum(['auto', 'required']), "'auto' or 'required'").optional(),
    warn: warnSchema.optional(),
    cacheNamespace: cacheNamespaceSchema.optional(),
  }),
  'an options object (or nothing)',
)

/** Checks every option of aiSdkJudge, naming every wrong one and what it should be. */
export function checkAiSdkJudgeOptions(options: AiSdkJudgeOptions): void {
  parseOptions(optionsSchema, options, 'aiSdkJudge')
}
