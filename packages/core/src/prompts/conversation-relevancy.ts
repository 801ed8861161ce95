import { z } from 'zod'
import { judgeMessages } from './shared.js'

/** Prompt identity, part of every cache key: bump the version whenever the wording changes. */
export const CONVERSATION_RELEVANCY_PROMPT = 'conversation-relevancy@2'

/** What the judge answers about one assistant reply. The reason comes first so the model reasons before deciding. */
export const replyRelevancySchema = z.object({
  reason: z.string().describe('One or two sentences grounded in the conversation.'),
  relevant: z
    .boolean()
    .describe("true if the reply addresses the user's message, false if it does not address it at all."),
})

/** One turn as the judge sees it. */
export interface WindowTurn {
  readonly index: number
  readonly role: 'user' | 'assistant'
  readonly content: string
}

/** Renders the prompt that judges whether one assistant reply is relevant, given the turns before it. */
export function conversationRelevancyPrompt(before: readonly WindowTurn[], reply: WindowTurn) {
  const task = [
    'The data holds the recent turns of a conversation between a user and an AI assistant (each with its 0-based',
    'index and role), then the assistant reply to judge.',
    '',
    "Decide whether the reply is relevant: whether it addresses the user's latest message, read with the earlier",
    'turns as context. A reply that responds to that message is relevant even when it is brief, partial or',
    'imperfect, asks a clarifying question, or is a light answer to small talk or a greeting. Material added to a',
    'reply that does address the user (a greeting, an offer or upsell, a related suggestion) does not make it',
    "irrelevant. It is irrelevant only when it does not address the user's message at all: it ignores it, or talks",
    'about something else instead. If no user turn precedes the reply, judge whether it is a sensible way for the',
    'assistant to open.',
    '',
    'Answer with a short "reason" first, then "relevant": true or false.',
  ].join('\n')
  return judgeMessages(task, { 'Turns before the reply': before, 'Reply to judge': reply })
}
