import { ConfigurationError } from '../errors.js'

/** A model's list price in USD per million tokens. */
export interface ModelPrice {
  readonly inputPerMillion: number
  readonly outputPerMillion: number
}

/** Public list prices (USD per 1M tokens) of common judge models; see registerModelPrices and a judge's `pricing`. */
export const DEFAULT_MODEL_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  'gpt-4.1': { inputPerMillion: 2, outputPerMillion: 8 },
  'gpt-4.1-mini': { inputPerMillion: 0.4, outputPerMillion: 1.6 },
  'gpt-4.1-nano': { inputPerMillion: 0.1, outputPerMillion: 0.4 },
  'gpt-4o': { inputPerMillion: 2.5, outputPerMillion: 10 },
  'gpt-4o-mini': { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  o3: { inputPerMillion: 2, outputPerMillion: 8 },
  'o4-mini': { inputPerMillion: 1.1, outputPerMillion: 4.4 },
  'gpt-5': { inputPerMillion: 1.25, outputPerMillion: 10 },
  'gpt-5-mini': { inputPerMillion: 0.25, outputPerMillion: 2 },
  'gpt-5-nano': { inputPerMillion: 0.05, outputPerMillion: 0.4 },
})

// Prices registered for this process; consulted after a judge's own `pricing` and before the built-in table.
const registeredPrices = new Map<string, ModelPrice>()

/**
 * Adds or overrides model prices for every judge in this process (a judge's own `pricing` option still wins).
 * Throws a ConfigurationError listing every malformed entry, and registers none of them in that case.
 *
 * @example
 * registerModelPrices({ 'my-azure-deployment': { inputPerMillion: 2, outputPerMillion: 8 } })
 */
export function registerModelPrices(prices: Readonly<Record<string, ModelPrice>>): void {
  const problems: string[] = []
  for (const [model, price] of Object.entries(prices ?? {})) {
    for (const field of ['inputPerMillion', 'outputPerMillion'] as const) {
      const value = (price as Partial<ModelPrice> | undefined)?.[field]
      if (!(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
        problems.push(
          `  - "${model}".${field} must be a number of USD from 0 and up; got \`${String(value)}\` (${typeof value}).`,
        )
      }
    }
  }
  if (problems.length > 0) throw new ConfigurationError(`Invalid model prices:\n${problems.join('\n')}`)
  for (const [model, price] of Object.entries(prices)) {
    registeredPrices.set(model, { inputPerMillion: price.inputPerMillion, outputPerMillion: price.outputPerMillion })
  }
}

const DATED_SNAPSHOT_SUFFIX = /-\d{4}-\d{2}-\d{2}$/

/**
 * The USD cost of one call, or undefined when the model's price is unknown.
 * A dated snapshot such as `gpt-4.1-2025-04-14` costs what its alias costs unless priced itself.
 */
export function costOf(
  model: string,
  promptTokens: number,
  completionTokens: number,
  extra?: Readonly<Record<string, ModelPrice>>,
): number | undefined {
  const price = priceOf(model, extra) ?? priceOf(model.replace(DATED_SNAPSHOT_SUFFIX, ''), extra)
  if (price === undefined) return undefined
  // Dividing once at the end keeps round inputs exact (0.002 + 0.004 would otherwise drift).
  return (promptTokens * price.inputPerMillion + completionTokens * price.outputPerMillion) / 1_000_000
}

function priceOf(model: string, extra: Readonly<Record<string, ModelPrice>> | undefined): ModelPrice | undefined {
  // Object.hasOwn keeps names like `constructor` from resolving to Object.prototype members.
  if (extra !== undefined && Object.hasOwn(extra, model)) return extra[model]
  const registered = registeredPrices.get(model)
  if (registered !== undefined) return registered
  if (Object.hasOwn(DEFAULT_MODEL_PRICES, model)) return DEFAULT_MODEL_PRICES[model]
  return undefined
}
