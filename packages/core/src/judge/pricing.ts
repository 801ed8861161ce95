import { ConfigurationError } from '../errors.js'

/** A model's list price in USD per million tokens. */
export interface ModelPrice {
  readonly inputPerMillion: number
  readonly outputPerMillion: number
  /**
   * Prompt tokens the server read from its prompt cache (`prompt_tokens_details.cached_tokens`).
   * @default inputPerMillion (no discount)
   */
  readonly cachedInputPerMillion?: number | undefined
}

/** The day DEFAULT_MODEL_PRICES was last checked against its sources (YYYY-MM-DD); prices change after it. */
export const PRICES_CHECKED = '2026-11-26'

// Sources, read on PRICES_CHECKED; a model only gets the prices one of them states:
// - gpt-6-luna, gpt-6-sol, gpt-6.2-sol, gpt-5.6-luna, gpt-5.1: OpenAI's model pages
//   (developers.openai.com/api/docs/models/<id>).
// - gpt-6.1-sol: LiteLLM's "Day 0 Support: GPT-6.1 Sol" (docs.litellm.ai/blog/gpt_6_1_sol) and Apidog's GPT-6.1 Sol
//   guide, both quoting the model page. gpt-6-astra: LiteLLM discussion #39633 and AI Token Meter 0.2.22 (quoting
//   developers.openai.com/api/docs/models/gpt-6-astra). gpt-5.6-terra: Vercel AI Gateway ($2/$12) and PromptFuel
//   1.0.19 (the 2026-07-30 price, cached $0.20).
// - gpt-5.2 and the cached prices of gpt-4.1 and gpt-5-mini: GitHub Docs' Copilot models-and-pricing table;
//   gpt-5.4 and gpt-5.4-mini: adk-model's OpenAI price table (March 2026).
// Left out until a source states all three prices: gpt-5.6-sol (quoted at $5/$30 at launch and $4/$20 since) and
// gpt-6.2-astra (no cached price found).
// - DEFAULT_DECISION_PRICES: gpt-6-luna on the Decisions API, $0.10 per million input tokens and nothing for output,
//   from OpenAI's Decisions API announcement as judgetree's issue 27 and notes/judges-2027.md quote it; no source
//   states a cached-input price, so cached input is billed as input.

/**
 * Public list prices (USD per 1M tokens, Standard processing, prompts up to 272K input tokens) of common judge
 * models, as of PRICES_CHECKED; see registerModelPrices and a judge's `pricing`. A model not here is unpriced.
 */
export const DEFAULT_MODEL_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  'gpt-4.1': { inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8 },
  'gpt-4.1-mini': { inputPerMillion: 0.4, outputPerMillion: 1.6 },
  'gpt-4.1-nano': { inputPerMillion: 0.1, outputPerMillion: 0.4 },
  'gpt-4o': { inputPerMillion: 2.5, outputPerMillion: 10 },
  'gpt-4o-mini': { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  o3: { inputPerMillion: 2, outputPerMillion: 8 },
  'o4-mini': { inputPerMillion: 1.1, outputPerMillion: 4.4 },
  'gpt-5': { inputPerMillion: 1.25, outputPerMillion: 10 },
  'gpt-5-mini': { inputPerMillion: 0.25, cachedInputPerMillion: 0.025, outputPerMillion: 2 },
  'gpt-5-nano': { inputPerMillion: 0.05, outputPerMillion: 0.4 },
  'gpt-5.1': { inputPerMillion: 1.25, cachedInputPerMillion: 0.125, outputPerMillion: 10 },
  'gpt-5.2': { inputPerMillion: 1.75, cachedInputPerMillion: 0.175, outputPerMillion: 14 },
  'gpt-5.4': { inputPerMillion: 2.5, cachedInputPerMillion: 0.25, outputPerMillion: 15 },
  'gpt-5.4-mini': { inputPerMillion: 0.75, cachedInputPerMillion: 0.075, outputPerMillion: 4.5 },
  'gpt-5.6-terra': { inputPerMillion: 2, cachedInputPerMillion: 0.2, outputPerMillion: 12 },
  'gpt-5.6-luna': { inputPerMillion: 0.2, cachedInputPerMillion: 0.02, outputPerMillion: 1.2 },
  'gpt-6-astra': { inputPerMillion: 10, cachedInputPerMillion: 1, outputPerMillion: 50 },
  'gpt-6-sol': { inputPerMillion: 2, cachedInputPerMillion: 0.2, outputPerMillion: 10 },
  'gpt-6.1-sol': { inputPerMillion: 2, cachedInputPerMillion: 0.1, outputPerMillion: 10 },
  'gpt-6.2-sol': { inputPerMillion: 2, cachedInputPerMillion: 0.1, outputPerMillion: 10 },
  'gpt-6-luna': { inputPerMillion: 0.1, cachedInputPerMillion: 0.01, outputPerMillion: 0.5 },
})

/**
 * Decisions API prices (USD per 1M tokens), apart from the chat prices: the same model name costs differently when it
 * answers decisions. Used by decision judges (OpenAIDecisionJudge), after a judge's own `pricing`; never for chat.
 */
export const DEFAULT_DECISION_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  'gpt-6-luna': { inputPerMillion: 0.1, outputPerMillion: 0 },
})

// Prices registered for this process; consulted after a judge's own `pricing` and before the built-in table.
const registeredPrices = new Map<string, ModelPrice>()

/**
 * Adds or overrides model prices for every judge in this process (a judge's own `pricing` option still wins).
 * Throws a ConfigurationError listing every malformed entry, and registers none of them in that case.
 *
 * @example
 * registerModelPrices({ 'my-azure-deployment': { inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8 } })
 */
export function registerModelPrices(prices: Readonly<Record<string, ModelPrice>>): void {
  const problems: string[] = []
  for (const [model, price] of Object.entries(prices ?? {})) {
    for (const field of ['inputPerMillion', 'outputPerMillion', 'cachedInputPerMillion'] as const) {
      const value = (price as Partial<ModelPrice> | undefined)?.[field]
      if (field === 'cachedInputPerMillion' && value === undefined) continue
      if (!(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
        const optional = field === 'cachedInputPerMillion' ? ' (or left out to bill cached tokens as input)' : ''
        problems.push(
          `  - "${model}".${field} must be a number of USD from 0 and up${optional}; got \`${String(value)}\` (${typeof value}).`,
        )
      }
    }
  }
  if (problems.length > 0) throw new ConfigurationError(`Invalid model prices:\n${problems.join('\n')}`)
  for (const [model, price] of Object.entries(prices)) {
    const { inputPerMillion, outputPerMillion, cachedInputPerMillion } = price
    registeredPrices.set(model, {
      inputPerMillion,
      outputPerMillion,
      ...(cachedInputPerMillion === undefined ? {} : { cachedInputPerMillion }),
    })
  }
}

const DATED_SNAPSHOT_SUFFIX = /-\d{4}-\d{2}-\d{2}$/

/** The cost of one call by a price list: `extra` (the judge's own `pricing`) over `prices`. */
type CostFunction = (
  model: string,
  promptTokens: number,
  completionTokens: number,
  extra?: Readonly<Record<string, ModelPrice>>,
  cachedPromptTokens?: number,
) => number | undefined

/**
 * The USD cost of one call, or undefined when the model's price is unknown. `cachedPromptTokens`, a part of
 * `promptTokens`, cost the model's cached-input price (its input price when it has none).
 * A dated snapshot such as `gpt-4.1-2025-04-14` costs what its alias costs unless priced itself.
 */
export const costOf: CostFunction = (model, promptTokens, completionTokens, extra, cachedPromptTokens = 0) =>
  costBy((name) => priceOf(name, extra), model, promptTokens, completionTokens, cachedPromptTokens)

/**
 * The USD cost of one Decisions API call: by the judge's own `pricing`, else DEFAULT_DECISION_PRICES (never a chat
 * price, registered or built in); undefined when neither prices the model.
 */
export const decisionCostOf: CostFunction = (model, promptTokens, completionTokens, extra, cachedPromptTokens = 0) =>
  costBy(
    (name) =>
      extra !== undefined && Object.hasOwn(extra, name)
        ? extra[name]
        : Object.hasOwn(DEFAULT_DECISION_PRICES, name)
          ? DEFAULT_DECISION_PRICES[name]
          : undefined,
    model,
    promptTokens,
    completionTokens,
    cachedPromptTokens,
  )

/** The cost at the model's price, or at its alias's for a dated snapshot, as `priceOf` gives them. */
function costBy(
  priceOf: (model: string) => ModelPrice | undefined,
  model: string,
  promptTokens: number,
  completionTokens: number,
  cachedPromptTokens: number,
): number | undefined {
  const price = priceOf(model) ?? priceOf(model.replace(DATED_SNAPSHOT_SUFFIX, ''))
  if (price === undefined) return undefined
  // A server never reports more cached tokens than prompt tokens; a malformed count must not make a cost negative.
  const cached = Math.min(Math.max(cachedPromptTokens, 0), promptTokens)
  const cachedPrice = price.cachedInputPerMillion ?? price.inputPerMillion
  // Dividing once at the end keeps round inputs exact (0.002 + 0.004 would otherwise drift).
  return (
    ((promptTokens - cached) * price.inputPerMillion +
      cached * cachedPrice +
      completionTokens * price.outputPerMillion) /
    1_000_000
  )
}

function priceOf(model: string, extra: Readonly<Record<string, ModelPrice>> | undefined): ModelPrice | undefined {
  // Object.hasOwn keeps names like `constructor` from resolving to Object.prototype members.
  if (extra !== undefined && Object.hasOwn(extra, model)) return extra[model]
  const registered = registeredPrices.get(model)
  if (registered !== undefined) return registered
  if (Object.hasOwn(DEFAULT_MODEL_PRICES, model)) return DEFAULT_MODEL_PRICES[model]
  return undefined
}
