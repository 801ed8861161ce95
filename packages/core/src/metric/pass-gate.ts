// The gate on the chance of passing (DESIGN.md §9): `minPassProbability` of toPassMetric, evaluate() and calibrate().
// A result passes it when it passed and its pass probability is at least the minimum; one with no probability fails
// it, and says how to get one, since judgetree never makes a number up.
import type { MetricResult } from './types.js'

/**
 * The result judged against `minPassProbability` too: `success` holds only when it held and `passProbability.p` is
 * at least the minimum, which the result then carries (its text says why it failed). Unchanged when none is given.
 */
export function withMinPassProbability(result: MetricResult, minPassProbability: number | undefined): MetricResult {
  if (minPassProbability === undefined) return result
  const chance = result.passProbability
  const success = result.success && chance !== undefined && chance.p >= minPassProbability
  return { ...result, success, minPassProbability }
}
