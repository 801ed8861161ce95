import { z } from 'zod'
import { judgeMessages } from './shared.js'

/** Prompt identity, part of every cache key: bump the version whenever the wording changes. */
export const NON_BINARY_JUDGEMENT_PROMPT = 'non-binary-judgement@1'

/** What a NonBinaryJudgementNode's judge answers, with the verdict restricted to the node's options. */
export function nonBinaryVerdictSchema(options: readonly [string, ...string[]]) {
  return z.object({
    reason: z.string().describe('One or two sentences that justify the verdict from the data.'),
    verdict: z.enum(options).describe('Exactly one of the options, written as given.'),
  })
}

/** Renders the prompt for a NonBinaryJudgementNode; the options keep their declaration order. */
export function nonBinaryJudgementPrompt(criteria: string, options: readonly string[], data: unknown) {
  const task = [
    'Answer this question about the data:',
    criteria,
    '',
    'Choose the one option that fits best, and write it exactly as given:',
    ...options.map((option, index) => `${index + 1}. ${JSON.stringify(option)}`),
    '',
    'Answer with "verdict" set to that option and a short "reason" grounded in the data.',
  ].join('\n')
  return judgeMessages(task, data)
}
