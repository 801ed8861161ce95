import { z } from 'zod'
import { judgeMessages } from './shared.js'

/** Prompt identity, part of every cache key: bump the version whenever the wording changes. */
export const GEVAL_STEPS_PROMPT = 'geval-steps@2'

/** What the judge answers when asked to turn a G-Eval criteria into evaluation steps. */
export const gevalStepsSchema = z.object({
  steps: z
    .array(z.string().min(1))
    .min(1)
    .max(8)
    .describe('3 to 5 evaluation steps, in the order a reviewer follows them, each a single instruction.'),
})

/** The fields a G-Eval score judgement will be shown, as the steps prompt describes them. */
export interface GEvalFields {
  /** True when the data is a conversation. */
  readonly conversational: boolean
  /** Labels of the fields shown for every turn (conversational only), e.g. `Role`, `Content`. */
  readonly turnFields: readonly string[]
  /** Labels of the test case's own fields, e.g. `Input`, `Actual Output`, `Scenario`. */
  readonly caseFields: readonly string[]
}

/** Renders the prompt that writes evaluation steps from a G-Eval criteria. */
export function gevalStepsPrompt(criteria: string, fields: GEvalFields) {
  const task = [
    'Write the evaluation steps a careful reviewer should follow to judge a test case against this criteria:',
    criteria,
    '',
    'The data lists the fields the reviewer will see. Write 3 to 5 short, concrete steps, each one instruction that',
    'names the fields it reads. Do not define a score scale or award points: scoring is done separately.',
  ].join('\n')
  const data = fields.conversational
    ? {
        'Fields of every turn of the conversation': ['Index', ...fields.turnFields],
        'Fields of the whole conversation': fields.caseFields,
      }
    : { 'Fields of the test case': fields.caseFields }
  return judgeMessages(task, data)
}
