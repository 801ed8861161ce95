import { z } from 'zod'
import { gevalSteps, type RubricLine } from './geval-score.js'
import { judgeMessages } from './shared.js'

/** Prompt identity, part of every cache key: bump the version whenever the wording changes. */
export const GEVAL_STRICT_PROMPT = 'geval-strict@1'

/**
 * What strict G-Eval's judge answers: whether the data earns the top score, yes or no, in `score` (the field a
 * decision judge answers the same question in). The reason comes first so the model reasons before deciding, and so
 * the answer is the last value, where its logprobs are read.
 */
export const gevalStrictSchema = z.object({
  reason: z.string().describe('Two or three sentences citing specifics from the data.'),
  score: z.boolean().describe('true only if the data fully meets every step (the top score); false otherwise.'),
})

/**
 * Renders the prompt of strict G-Eval: strict mode passes only the top score, so the judge is asked that alone, as a
 * yes/no question, rather than for a score of which only one value counts.
 */
export function gevalStrictPrompt(
  steps: readonly string[],
  range: readonly [number, number],
  rubric: readonly RubricLine[] | undefined,
  conversational: boolean,
  data: unknown,
) {
  const [low, high] = range
  const top = rubric?.find(({ scoreRange: [, end] }) => end === high)
  const topMeans = top === undefined ? '' : ` (the rubric's top range means: ${top.expectedOutcome})`
  const task = [
    ...gevalSteps(steps, conversational),
    '',
    `Decide whether it earns the top score, ${high} on a scale from ${low} to ${high}${topMeans}: does it fully meet`,
    'every step, with nothing missing or wrong?',
    '',
    'Answer with "reason" first, citing specifics from the data, then "score": true if it earns the top score and',
    'false if it does not.',
  ].join('\n')
  return judgeMessages(task, data)
}
