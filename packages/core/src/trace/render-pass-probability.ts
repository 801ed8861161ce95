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

/**
 * Why a result has no pass probability, and how to get one: `[n1] “Polite?” was answered without probabilities
 * (logprobs were not requested); for P(pass), …`. `decision` names the decision, `why` says what happened to it.
 */
export function noPassProbabilityText(decision: string, why: string): string {
  return (
    `${decision} was answered without probabilities (${why}); for P(pass), set topLogprobs with a chat judge that ` +
    'returns logprobs, give a decisionModel, or run trials'
  )
}
