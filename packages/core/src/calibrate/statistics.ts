// The numbers calibrate() reports, as pure functions of (judge, human) pairs: no metric, no judge, no I/O.

/** Counts of judge verdicts against human verdicts; a judge pass on a human pass is a true positive. */
export interface Confusion {
  readonly truePositive: number
  readonly falsePositive: number
  readonly trueNegative: number
  readonly falseNegative: number
}

/** One measured case as the statistics see it. */
export interface Verdicts {
  readonly judgePass: boolean
  readonly humanPass: boolean
}

/** Tallies judge against human verdicts. */
export function confusionOf(pairs: readonly Verdicts[]): Confusion {
  let truePositive = 0
  let falsePositive = 0
  let trueNegative = 0
  let falseNegative = 0
  for (const { judgePass, humanPass } of pairs) {
    if (judgePass && humanPass) truePositive += 1
    else if (judgePass) falsePositive += 1
    else if (humanPass) falseNegative += 1
    else trueNegative += 1
  }
  return { truePositive, falsePositive, trueNegative, falseNegative }
}

/** The share of cases where judge and human gave the same verdict; undefined for no cases. */
export function agreementOf(confusion: Confusion): number | undefined {
  const total = totalOf(confusion)
  return total === 0 ? undefined : (confusion.truePositive + confusion.trueNegative) / total
}

/**
 * Cohen's kappa: agreement corrected for the agreement two raters would reach by chance with the same pass rates,
 * (observed − chance) / (1 − chance). Undefined when chance agreement is 1 (judge and humans each gave one verdict
 * to every case), where it is not defined, and for no cases.
 */
export function cohensKappa(confusion: Confusion): number | undefined {
  const total = totalOf(confusion)
  if (total === 0) return undefined
  const { truePositive, falsePositive, trueNegative, falseNegative } = confusion
  const observed = (truePositive + trueNegative) / total
  const judgePass = (truePositive + falsePositive) / total
  const humanPass = (truePositive + falseNegative) / total
  const chance = judgePass * humanPass + (1 - judgePass) * (1 - humanPass)
  if (chance >= 1) return undefined
  return (observed - chance) / (1 - chance)
}

/** The mean of |a − b| over paired values; undefined for none. */
export function meanAbsoluteError(pairs: readonly (readonly [number, number])[]): number | undefined {
  if (pairs.length === 0) return undefined
  return pairs.reduce((sum, [a, b]) => sum + Math.abs(a - b), 0) / pairs.length
}

/**
 * Spearman's rank correlation: Pearson's correlation of the ranks, tied values sharing the mean of the ranks they
 * span. Undefined for fewer than two pairs, or when either side has one value for every case (no order to compare).
 */
export function spearman(pairs: readonly (readonly [number, number])[]): number | undefined {
  if (pairs.length < 2) return undefined
  return pearson(averageRanks(pairs.map(([a]) => a)), averageRanks(pairs.map(([, b]) => b)))
}

/** Ranks from 1, ties given the mean of the ranks they occupy: [0.2, 0.5, 0.5, 0.9] → [1, 2.5, 2.5, 4]. */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((value, index) => ({ value, index })).sort((a, b) => a.value - b.value)
  const ranks = new Array<number>(values.length)
  let start = 0
  while (start < order.length) {
    let end = start
    while (end + 1 < order.length && order[end + 1]?.value === order[start]?.value) end += 1
    // Positions start..end (from 0) hold ranks start+1..end+1, whose mean is this.
    const rank = (start + end) / 2 + 1
    for (let at = start; at <= end; at += 1) ranks[(order[at] as { index: number }).index] = rank
    start = end + 1
  }
  return ranks
}

function pearson(xs: readonly number[], ys: readonly number[]): number | undefined {
  const meanX = mean(xs)
  const meanY = mean(ys)
  let covariance = 0
  let varianceX = 0
  let varianceY = 0
  for (const [index, x] of xs.entries()) {
    const dx = x - meanX
    const dy = (ys[index] as number) - meanY
    covariance += dx * dy
    varianceX += dx * dx
    varianceY += dy * dy
  }
  if (varianceX === 0 || varianceY === 0) return undefined
  return covariance / Math.sqrt(varianceX * varianceY)
}

/** The threshold that would agree best with the humans, and the agreement it reaches. */
export interface FittedThreshold {
  readonly value: number
  readonly agreement: number
}

/**
 * The threshold t for which "score ≥ t passes" agrees with the most human verdicts. Candidates are the current
 * threshold, the scores seen (t = a score lets that case pass) and 1. Ties go to the candidate nearest the current
 * threshold (so the current one when no other does better), then to the lower one. Undefined for no cases.
 */
export function fitThreshold(
  cases: readonly { readonly score: number; readonly humanPass: boolean }[],
  current: number,
): FittedThreshold | undefined {
  if (cases.length === 0) return undefined
  const candidates = [...new Set([current, ...cases.map((entry) => entry.score), 1])].sort((a, b) => a - b)
  let best: FittedThreshold | undefined
  for (const value of candidates) {
    const agreeing = cases.filter((entry) => entry.score >= value === entry.humanPass).length
    const candidate = { value, agreement: agreeing / cases.length }
    if (
      best === undefined ||
      candidate.agreement > best.agreement ||
      (candidate.agreement === best.agreement && Math.abs(value - current) < Math.abs(best.value - current))
    ) {
      best = candidate
    }
  }
  return best
}

function totalOf(confusion: Confusion): number {
  return confusion.truePositive + confusion.falsePositive + confusion.trueNegative + confusion.falseNegative
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length
}
