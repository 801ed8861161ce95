import { z } from 'zod'
import { formatScore } from '../trace/render.js'
import { judgeMessages } from './shared.js'

/** Prompt identity, part of every cache key: bump the version whenever the wording changes. */
export const REASON_SUMMARY_PROMPT = 'reason-summary@2'

/** What the summarising judge answers. */
export const reasonSummarySchema = z.object({
  reason: z.string().describe('Two or three sentences explaining the final score from the evaluation steps.'),
})

/** The walk the summary explains. */
export interface WalkSummary {
  readonly metric: string
  /** The metric's final score, 0..1, after strict mode. */
  readonly score: number
  /** The score the walk's verdicts led to, before strict mode. */
  readonly walkScore: number
  /** How many verdict leaves parallel branches reached; the score is the lowest. */
  readonly leaves: number
  /** The judgement and verdict that set the score, e.g. `“Polite?” → false`. */
  readonly decidedBy: string
  readonly steps: readonly unknown[]
}

/** Renders the prompt that turns a walked decision path into a short explanation of the final score. */
export function reasonSummaryPrompt(walk: WalkSummary) {
  const score = formatScore(walk.score)
  const task = [
    `An evaluation named "${walk.metric}" walked a decision tree and scored ${score} on a scale from 0 to 1.`,
    ...(walk.walkScore !== walk.score
      ? [
          `Its verdicts led to ${formatScore(walk.walkScore)}, but it runs in strict mode, which counts any score below 1`,
          `as 0, so its final score is ${score}. Say so.`,
        ]
      : []),
    ...(walk.leaves > 1
      ? [
          `Parallel branches reached ${walk.leaves} verdicts and the score is the lowest of them, the one reached by`,
          `${walk.decidedBy}. Explain the score from that branch.`,
        ]
      : []),
    'The data lists the steps it took, in order, with each verdict and the reason given for it.',
    'Explain in two or three sentences why the final score is what it is. Do not invent steps; do not restate the',
    'score as a number more than once.',
  ].join('\n')
  return judgeMessages(task, { Steps: walk.steps })
}
