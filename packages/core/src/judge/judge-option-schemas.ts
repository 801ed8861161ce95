// The options judges share, one rule and one wording each: OpenAIJudge's and any transport's option bag (such as
// @judgetree/ai-sdk's) is built from these, so `temperature: 3` reads the same whichever judge was given it.
import { z } from 'zod'
import { expecting } from '../internal/options.js'

/** `temperature`: the sampling temperature, in the range the OpenAI API and most providers take. */
export const temperatureSchema = expecting(z.number().min(0).max(2), 'a number from 0 to 2')

/** `maxRetries`: retries of a failed call. */
export const maxRetriesSchema = expecting(z.number().int().min(0), 'a whole number from 0 and up')

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
