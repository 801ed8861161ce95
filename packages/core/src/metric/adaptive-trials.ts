// `trials: { max, until: 'decided' }`: trials in rounds, stopping as soon as the pass rate's 95% Wilson interval lies
// wholly above or below the line. Each round is the fewest more trials whose outcome could decide, so no earlier stop
// was possible, and identical calls of a round still share one request. The trials are numbered 1, 2, … across
// rounds, as a fixed `trials` numbers them, so replaying the cache gives the same answers and stops at the same trial.
import { runTrials } from '../runtime/trial-batch.js'
import { wilsonInterval } from './pass-probability.js'

/** Whether `passed` of `n` trials decide against `line`: their 95% interval lies wholly above or below it. */
export function decidedAgainst(passed: number, n: number, line: number): boolean {
  const { low, high } = wilsonInterval(passed, n)
  return low > line || high < line
}

/**
 * Runs trials until their pass rate is decided against `line`, at most `max`; a trial that ends in an error stops
 * them too (the result fails with it).
 */
export async function runTrialsUntilDecided<T extends { readonly success: boolean; readonly error?: unknown }>(
  max: number,
  line: number,
  run: (trial: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = []
  let passed = 0
  while (results.length < max) {
    const round = fewestThatCouldDecide(passed, results.length, max, line)
    const numbers = Array.from({ length: round }, (_, index) => results.length + index + 1)
    for (const result of await runTrials(numbers, run)) {
      results.push(result)
      if (result.error === undefined && result.success) passed += 1
    }
    if (results.some((result) => result.error !== undefined) || decidedAgainst(passed, results.length, line)) break
  }
  return results
}

/** The fewest more trials after which all passing or all failing would decide (the rest of `max` if none would). */
function fewestThatCouldDecide(passed: number, n: number, max: number, line: number): number {
  for (let more = 1; n + more < max; more++) {
    if (decidedAgainst(passed + more, n + more, line) || decidedAgainst(passed, n + more, line)) return more
  }
  return max - n
}
