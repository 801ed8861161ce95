import { z } from 'zod'
import { judgeMessages } from './shared.js'

/** Prompt identity, part of every cache key: bump the version whenever the wording changes. */
export const TASK_NODE_PROMPT = 'task-node@1'

/** What a TaskNode's judge answers. */
export const taskOutputSchema = z.object({
  output: z.string().describe('The result of following the instructions, as plain text.'),
})

/** Renders the prompt for a TaskNode. */
export function taskNodePrompt(instructions: string, outputLabel: string, data: unknown) {
  const task = [
    'Carry out the instructions below on the data.',
    '',
    'Instructions:',
    instructions,
    '',
    `Put the result in "output" as plain text; later steps will read it as "${outputLabel}".`,
  ].join('\n')
  return judgeMessages(task, data)
}
