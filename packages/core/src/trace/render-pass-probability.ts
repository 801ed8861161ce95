import type { PassProbability } from '../metric/types.js'
import { formatProbability, formatScore } from './render.js'

/**
 * The line a result's text gives its chance of passing, e.g.
 * `P(pass) 0.72 · expected score 0.6 · most uncertain: [n3] How warm? → warm (0.60)`; with bounds or trials, the
 * interval and where it comes from.
 */
export function renderPassProbability(chance: PassProbability): string {
  const range = `${formatProbability(chance.low)}–${formatProbability(chance.high)}`
  const spread =
    chance.source === 'trials'
      ? ` (95% ${range}${chance.stopped === undefined ? '' : `, ${chance.stopped}`})`
      : chance.low === chance.high
        ? ''
        : ` (${range}: branches not walked)`
  const expected = `expected score ${formatScore(chance.expectedScore)}`
  const { pivot } = chance
  const doubt =
    pivot === undefined
      ? ''
      : ` · most uncertain: [${pivot.node}] ${pivot.label} → ${String(pivot.verdict)} (${formatProbability(pivot.probability)})`
  return `P(pass) ${formatProbability(chance.p)}${spread} · ${expected}${doubt}`
}
