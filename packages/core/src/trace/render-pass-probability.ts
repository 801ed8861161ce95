import type { PassPivot, PassProbability } from '../metric/types.js'
import { formatProbability, formatScore, passChance } from './render.js'

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
  const doubt = chance.pivot === undefined ? '' : ` · ${renderPivot(chance.pivot)}`
  return `${passChance(chance)}${spread} · ${expected}${doubt}`
}

/** Where the doubt sits: `most uncertain: [n3] How warm? → warm (0.60)`. */
export function renderPivot(pivot: PassPivot): string {
  return `most uncertain: [${pivot.node}] ${pivot.label} → ${String(pivot.verdict)} (${formatProbability(pivot.probability)})`
}

/**
 * Why a result with `minPassProbability` failed that gate, or undefined when it cleared it (or failed for its score
 * or an error, which its summary already says). E.g. `P(pass) 0.72 is below minPassProbability 0.9`.
 */
export function renderPassGate(result: {
  readonly success: boolean
  readonly score: number
  readonly threshold: number
  readonly error: unknown
  readonly minPassProbability?: number | undefined
  readonly passProbability?: { readonly p: number } | null | undefined
  readonly passProbabilityUnavailable?: string | undefined
}): string | undefined {
  const minimum = result.minPassProbability
  if (minimum === undefined || result.success || (result.error !== undefined && result.error !== null)) return undefined
  if (result.score < result.threshold) return undefined
  const chance = result.passProbability
  if (chance === undefined || chance === null) return noPassProbability(minimum, result.passProbabilityUnavailable)
  if (chance.p >= minimum) return undefined
  return `${passChance(chance)} is below minPassProbability ${minimum}`
}

/**
 * What a gate says of a result without a pass probability: which decision came as a point and why, when the metric
 * said (`passProbabilityUnavailable`), and which judges give one.
 */
function noPassProbability(minimum: number, unavailable: string | undefined): string {
  const which =
    unavailable === undefined
      ? 'a verdict that matters came as a single answer, without probabilities'
      : unavailable.split('; for P(pass)')[0]
  return (
    `minPassProbability ${minimum} needs a pass probability, and this measurement has none: ${which}. Get one ` +
    "with a decision judge (the metric's decisionModel), a chat judge whose logprobs judgetree reads (the metric's " +
    "topLogprobs, on a model that returns logprobs), or trials ({ trials: { max: 10, until: 'decided' } }). " +
    'See docs/trust.md.'
  )
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
