import { z } from 'zod'
import { judgeMessages } from './shared.js'

/** Prompt identity, part of every cache key: bump the version whenever the wording changes. */
export const GEVAL_SCORE_PROMPT = 'geval-score@1'

/**
 * What a G-Eval score judgement answers: an integer in the score range. The reason comes first so the model
 * reasons before it scores, and so the score is the answer's last value, where its logprobs are looked up.
 */
export function gevalScoreSchema(low: number, high: number) {
  return z.object({
    reason: z.string().describe('Two or three sentences citing specifics from the data; do not state the number.'),
    score: z.int().min(low).max(high).describe(`An integer from ${low} (worst) to ${high} (best).`),
  })
}

/** One rubric entry as the prompt shows it. */
export interface RubricLine {
  readonly scoreRange: readonly [number, number]
  readonly expectedOutcome: string
}

/** What both G-Eval prompts open with: what the data is, and the steps to follow. */
export function gevalSteps(steps: readonly string[], conversational: boolean): string[] {
  const subject = conversational
    ? 'The data is a conversation (each turn with its 0-based index and role) and the fields of the conversation as a whole.'
    : 'The data holds the fields of one test case of an AI application.'
  return [
    subject,
    'Evaluate it by following these steps in order:',
    ...steps.map((step, index) => `${index + 1}. ${step}`),
  ]
}

/** Renders the prompt that scores a test case by following G-Eval steps, on a plain range or a rubric. */
export function gevalScorePrompt(
  steps: readonly string[],
  range: readonly [number, number],
  rubric: readonly RubricLine[] | undefined,
  conversational: boolean,
  data: unknown,
) {
  const [low, high] = range
  const scale = rubric
    ? [
        `Score it with an integer from ${low} to ${high} using this rubric: pick the range whose expected outcome`,
        'describes the data best, then a score inside that range.',
        ...rubric.map(({ scoreRange: [start, end], expectedOutcome }) =>
          start === end ? `- ${start}: ${expectedOutcome}` : `- ${start} to ${end}: ${expectedOutcome}`,
        ),
      ]
    : [`Score it with an integer from ${low} (the steps are not met at all) to ${high} (they are fully met).`]
  const task = [
    ...gevalSteps(steps, conversational),
    '',
    ...scale,
    '',
    'Answer with "reason" first, citing specifics from the data without stating the number, then "score".',
  ].join('\n')
  return judgeMessages(task, data)
}
