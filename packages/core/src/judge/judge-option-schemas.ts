// The options judges share, one rule and one wording each: OpenAIJudge's and any transport's option bag (such as
// @judgetree/ai-sdk's) is built from these, so `temperature: 3` reads the same whichever judge was given it.
import { z } from 'zod'
import { expecting } from '../internal/options.js'
import { MAX_TIMER_MS } from '../runtime/limits.js'
import type { ModelPrice } from './pricing.js'

/** The options every built-in judge takes, with the same meaning; each judge documents its timeout and retries. */
export interface SharedJudgeOptions {
  /** Prices added to (or overriding) DEFAULT_MODEL_PRICES and registerModelPrices, keyed by model id. @default {} */
  pricing?: Readonly<Record<string, ModelPrice>> | undefined
  /** Where the judge's warnings go (one per fallback: a refused schema, a refused setting); never stdout. @default console.warn */
  warn?: ((message: string) => void) | undefined
  /**
   * Keeps this judge's cached answers apart from those of judges with another namespace. The cache key holds what
   * changes an answer (model, sampling, prompt, schema), not the server's address, so a recording made through
   * one base URL replays through any other, or none; name a namespace when two servers answer one model
   * differently (e.g. `'ollama-q4'` and `'ollama-q8'`). @default none
   */
  cacheNamespace?: string | undefined
}

/** `temperature`: the sampling temperature, in the range the OpenAI API and most providers take. */
export const temperatureSchema = expecting(z.number().min(0).max(2), 'a number from 0 to 2')

/** `maxRetries`: retries of a failed call. */
export const maxRetriesSchema = expecting(z.number().int().min(0), 'a whole number from 0 and up')

/** `timeoutMs`: how long a judge call may take, within what a timer can wait. */
export const timeoutMsSchema = expecting(
  z.number().int().min(1).max(MAX_TIMER_MS),
  `a whole number of milliseconds from 1 to ${MAX_TIMER_MS} (2^31−1, the longest timer Node can set, about 24.8 days)`,
)

/** `cacheNamespace`: a name that keeps a judge's cached answers apart. */
export const cacheNamespaceSchema = expecting(z.string().trim().min(1), "a non-empty name such as 'ollama-q4'")

/** `warn`: where a judge's warnings go. */
export const warnSchema = expecting(
  z.custom<(message: string) => void>((value) => typeof value === 'function'),
  'a function that takes the warning text',
)

/** `pricing`: prices by model id, over the registered and built-in ones (registerModelPrices checks each price). */
export const pricingSchema = expecting(
  z.record(z.string(), z.looseObject({})),
  "prices by model id, such as { 'my-model': { inputPerMillion: 0.5, outputPerMillion: 1.5 } }",
)

const SECRETS = 'a list of strings of 8 characters or more (shorter ones cannot be told from ordinary words)'

/** `secrets`: texts a judge scrubs besides its key (see JudgeSecrets); worded at the list, never quoting an item. */
export const secretsSchema = expecting(z.array(z.string().min(8)), (given) => {
  const wrong = Array.isArray(given) ? given.findIndex((item) => !(typeof item === 'string' && item.length >= 8)) : -1
  const item: unknown = Array.isArray(given) ? given[wrong] : undefined
  const what = typeof item === 'string' ? `a string of ${item.length} characters` : `a ${typeof item}`
  return wrong === -1 ? SECRETS : `${SECRETS}; item ${wrong} is ${what}`
})

/**
 * A judge's option bag: the options every judge shares (temperature, timeoutMs, maxRetries, pricing, warn,
 * cacheNamespace) and its own, no others (an unknown one gets a `did you mean`). Parse it with parseOptions.
 */
export function judgeOptionsSchema<Shape extends z.ZodRawShape>(own: Shape) {
  return expecting(
    z.strictObject({
      temperature: temperatureSchema.optional(),
      timeoutMs: timeoutMsSchema.optional(),
      maxRetries: maxRetriesSchema.optional(),
      pricing: pricingSchema.optional(),
      warn: warnSchema.optional(),
      cacheNamespace: cacheNamespaceSchema.optional(),
      ...own,
    }),
    'an options object (or nothing)',
  )
}
