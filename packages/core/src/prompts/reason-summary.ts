import { z } from 'zod'
import { judgeMessages } from './shared.js'

/** Prompt identity, part of every cache key: bump the version whenever the wording changes. */
export const REASON_SUMMARY_PROMPT = 'reason-summary@1'

/** What the summarising judge answers. */
export const reasonSummarySchema = z.object({
  reason: z.string().describe('Two or three sentences explaining the score from the evaluation steps.'),
})

/** Renders the prompt that turns a walked decision path into a short explanation of the score. */
export function reasonSummaryPrompt(metric: string, score: number, steps: readonly unknown[]) {
  const task = [
    `An evaluation named "${metric}" walked a decision tree and scored ${score} on a scale from 0 to 1.`,
    'The data lists the steps it took, in order, with each verdict and the reason given for it.',
    'Explain in two or three sentences why the score is what it is. Do not invent steps; do not restate the score as',
    'a number more than once.',
  ].join('\n')
  return judgeMessages(task, { Steps: steps })
}
