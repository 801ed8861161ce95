// The arithmetic of DESIGN.md §9 every metric shares: a score's distribution turned into the chance of passing, the
// count of independent verdicts (Poisson-binomial), sums of independent scores, and the Wilson interval of trials.
import type { ResolvedMetricOptions } from './options.js'
import type { PassPivot, PassProbability } from './types.js'

/** A distribution over raw scores (0..1): each score and its probability. */
export type ScoreDistribution = ReadonlyMap<number, number>

/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054

/**
 * The 95% Wilson score interval of `passed` successes in `n` trials: unlike the normal approximation it stays inside
 * 0..1 and is not a single point at 0/n or n/n, which is what a decision from few trials needs.
 */
export function wilsonInterval(passed: number, n: number): { readonly low: number; readonly high: number } {
  if (n === 0) return { low: 0, high: 1 }
  const rate = passed / n
  const z2 = Z95 * Z95
  const centre = (rate + z2 / (2 * n)) / (1 + z2 / n)
  const half = (Z95 * Math.sqrt((rate * (1 - rate)) / n + z2 / (4 * n * n))) / (1 + z2 / n)
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) }
}

/**
 * The distribution of how many of several independent verdicts come true, each with its own probability
 * (Poisson-binomial): entry k is P(exactly k). Exact, by adding one verdict at a time.
 */
export function countDistribution(probabilities: readonly number[]): number[] {
  let counts = [1]
  for (const p of probabilities) {
    const next = new Array<number>(counts.length + 1).fill(0)
    for (const [k, mass] of counts.entries()) {
      next[k] = (next[k] as number) + mass * (1 - p)
      next[k + 1] = (next[k + 1] as number) + mass * p
    }
    counts = next
  }
  return counts
}

/** The share of `n` verdicts that came true, as a distribution over `k / n`. */
export function shareDistribution(probabilities: readonly number[]): ScoreDistribution {
  const n = probabilities.length
  return new Map(countDistribution(probabilities).map((mass, k) => [k / n, mass]))
}

/** The distribution of the mean of independent scores, by convolving theirs exactly (equal sums merged, none kept at 0). */
export function meanDistribution(parts: readonly ScoreDistribution[]): ScoreDistribution {
  let sums: Map<number, number> = new Map([[0, 1]])
  for (const part of parts) {
    const next = new Map<number, number>()
    for (const [sum, mass] of sums) {
      for (const [score, probability] of part) {
        if (probability === 0) continue
        const key = exact(sum + score)
        next.set(key, (next.get(key) ?? 0) + mass * probability)
      }
    }
    sums = next
  }
  return new Map([...sums].map(([sum, mass]) => [exact(sum / parts.length), mass]))
}

/**
 * The chance that a score drawn from `distribution` passes, and its expected score: a score passes at or above the
 * threshold; under strict mode only 1 passes and anything below counts as 0, so the expected score is the chance.
 */
export function passOf(
  distribution: ScoreDistribution,
  threshold: number,
  strictMode: boolean,
): { readonly p: number; readonly expectedScore: number } {
  const line = strictMode ? 1 : threshold
  let p = 0
  let expectedScore = 0
  let total = 0
  for (const [score, probability] of distribution) {
    total += probability
    if (exact(score) >= line) p += probability
    expectedScore += score * probability
  }
  if (!(total > 0)) return { p: 0, expectedScore: 0 }
  p = clamp(p / total)
  return { p, expectedScore: strictMode ? p : clamp(expectedScore / total) }
}

/** A pass probability known exactly from the judge's distributions. */
export function judged(
  outcome: { readonly p: number; readonly expectedScore: number },
  pivot: PassPivot | undefined,
): PassProbability {
  return { p: outcome.p, low: outcome.p, high: outcome.p, expectedScore: outcome.expectedScore, source: 'judge', pivot }
}

/** A pass probability bounded by what was not walked: `p` and the expected score are the midpoints. */
export function bounded(
  low: { readonly p: number; readonly expectedScore: number },
  high: { readonly p: number; readonly expectedScore: number },
  pivot: PassPivot | undefined,
): PassProbability {
  return {
    p: (low.p + high.p) / 2,
    low: low.p,
    high: high.p,
    expectedScore: (low.expectedScore + high.expectedScore) / 2,
    source: 'judge',
    pivot,
  }
}

/** The least probable of several chosen verdicts (the first of equals): the pivot; none when all were certain. */
export function lowestPivot(candidates: readonly (PassPivot | undefined)[]): PassPivot | undefined {
  let lowest: PassPivot | undefined
  for (const candidate of candidates) {
    if (candidate === undefined || candidate.probability >= 1) continue
    if (lowest === undefined || candidate.probability < lowest.probability) {
      lowest = candidate
    }
  }
  return lowest
}

/** A score rounded to 9 decimals, so that 0.1 + 0.2 compares as 0.3 against a threshold (and merges as one atom). */
function exact(score: number): number {
  return Math.round(score * 1e9) / 1e9
}

function clamp(value: number): number {
  return Math.min(1, Math.max(0, exact(value)))
}

/** One yes/no verdict of a counting metric (a relevant reply, a relevant statement), with its probability of yes. */
export interface CountedVerdict {
  /** The trace entry it is shown in. */
  readonly node: string
  readonly label: string
  /** What the judge chose, as the trace words it, and whether that is yes. */
  readonly verdict: string
  readonly yes: boolean
  /** The probability of yes; undefined when the judge answered with a point. */
  readonly probability: number | undefined
}

/**
 * The chance that a score which is the mean, over groups, of the share of yes verdicts in each group passes (one
 * group: conversation relevancy's relevant replies; a group per turn: turn contextual relevancy's statements). The
 * verdicts are independent, so each group's count is Poisson-binomial and the mean's distribution their exact
 * convolution. Undefined when any verdict came as a point.
 */
export function countedPassProbability(
  groups: readonly (readonly CountedVerdict[])[],
  threshold: number,
  strictMode: boolean,
): PassProbability | undefined {
  const shares: ScoreDistribution[] = []
  for (const group of groups) {
    const probabilities = group.map((verdict) => verdict.probability)
    if (probabilities.some((probability) => probability === undefined)) return undefined
    shares.push(shareDistribution(probabilities as number[]))
  }
  const pivot = lowestPivot(
    groups.flat().map(({ node, label, verdict, yes, probability = 0 }) => ({
      node,
      label,
      verdict,
      probability: yes ? probability : 1 - probability,
    })),
  )
  return judged(passOf(meanDistribution(shares), threshold, strictMode), pivot)
}

/**
 * Why a decision came as a point: the reason its trace entry gives (logprobs refused or unreadable), else that the
 * metric did not ask for logprobs.
 */
export function pointAnswerWhy(options: ResolvedMetricOptions, unavailable: string | undefined): string {
  if (unavailable !== undefined) return unavailable
  return options.decisionLogprobs === 0 ? 'logprobs were not requested' : 'the judge gave none'
}
