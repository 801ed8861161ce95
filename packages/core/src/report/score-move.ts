// How one score moved between two runs, in the words the baseline check and `judgetree compare` share.
import { formatProbability, passChance } from '../trace/render.js'

/** `0.9 → 0.6 (−0.3)`, then `, now fails` or `, now passes` for a flip; a score of null (an error) reads `error`. */
export function scoreMove(
  before: number | null,
  after: number | null,
  change: number | null,
  flip: 'to-fail' | 'to-pass' | null,
): string {
  const delta = change === null ? '' : ` (${signed(change)})`
  const moved = `${scoreText(before)} → ${scoreText(after)}${delta}`
  return flip === 'to-fail' ? `${moved}, now fails` : flip === 'to-pass' ? `${moved}, now passes` : moved
}

/** A score to three decimals, or `error` where there is none. */
export function scoreText(score: number | null): string {
  return score === null ? 'error' : String(Math.round(score * 1000) / 1000)
}

/** `+0.2`, `−0.3`, `±0`, to three decimals. */
function signed(change: number): string {
  const rounded = Math.round(change * 1000) / 1000
  return rounded > 0 ? `+${rounded}` : rounded < 0 ? `−${-rounded}` : '±0'
}

/**
 * How the chance of passing moved, `P(pass) 0.93 → 0.72`; undefined unless both runs had one and it moved enough to
 * show in two decimals.
 */
export function chanceMove(before: number | undefined, after: number | undefined): string | undefined {
  if (before === undefined || after === undefined) return undefined
  const [from, to] = [formatProbability(before), formatProbability(after)]
  return from === to ? undefined : `${passChance({ p: before })} → ${to}`
}
