import { formatProbability } from './render.js'
import type { JurorVerdict } from './types.js'

/**
 * A decision's jurors on one line, in declaration order, each with its verdict and, when it gave one, its
 * probability: `jury: gpt-a true (0.90) · gpt-b false · gpt-c true`.
 */
export function juryLine(jury: readonly JurorVerdict[]): string {
  const verdicts = jury.map(({ juror, verdict, probability }) => {
    const chance = probability === undefined ? '' : ` (${formatProbability(probability)})`
    return `${juror.replace(/\s+/g, ' ').trim()} ${String(verdict)}${chance}`
  })
  return `jury: ${verdicts.join(' · ')}`
}
