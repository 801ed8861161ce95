import { z } from 'zod'
import { judgeMessages } from './shared.js'

/** Prompt identity, part of every cache key: bump the version whenever the wording changes. */
export const BINARY_JUDGEMENT_PROMPT = 'binary-judgement@1'

/** What a BinaryJudgementNode's judge answers. The reason comes first so the model reasons before deciding. */
export const binaryVerdictSchema = z.object({
  reason: z.string().describe('One or two sentences that justify the verdict from the data.'),
  verdict: z.boolean().describe('true if the criteria is met, false if it is not.'),
})

/** Renders the prompt for a BinaryJudgementNode. */
export function binaryJudgementPrompt(criteria: string, data: unknown) {
  const task = [
    'Decide whether the data meets this criteria:',
    criteria,
    '',
    'Answer "verdict": true if it does and false if it does not, with a short "reason" grounded in the data.',
  ].join('\n')
  return judgeMessages(task, data)
}
