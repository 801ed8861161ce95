import { z } from 'zod'
import type { WindowTurn } from './conversation-relevancy.js'
import { judgeMessages } from './shared.js'

/** Prompt identity, part of every cache key: bump the version whenever the wording changes. */
export const TURN_CONTEXTUAL_RELEVANCY_PROMPT = 'turn-contextual-relevancy@1'

/** What the judge answers for one retrieved chunk. */
/** A chunk's number in an answer: one of those shown. */
const chunkNumberSchema = (numbers: readonly number[]) =>
  z
    .int()
    .min(Math.min(...numbers))
    .max(Math.max(...numbers))
    .describe('The chunk number, as given.')

const chunkVerdictsSchema = (numbers: readonly number[]) =>
  z.object({
    chunk: chunkNumberSchema(numbers),
    statements: z
      .array(
        z.object({
          statement: z.string().describe('One statement the chunk makes, close to its wording.'),
          reason: z.string().describe('A short reason for the verdict.'),
          relevant: z.boolean().describe('true if the statement helps address the user input.'),
        }),
      )
      .min(1),
  })

/**
 * What the judge answers for one assistant turn: every chunk it was given, in order, split into judged statements.
 * `numbers` are the chunk numbers shown; an answer that skips or reorders chunks fails validation and is re-asked.
 */
export function turnContextualRelevancySchema(numbers: readonly number[]) {
  return z
    .object({ chunks: z.array(chunkVerdictsSchema(numbers)).length(numbers.length) })
    .superRefine((answer, context) => {
      for (const [position, chunk] of answer.chunks.entries()) {
        if (chunk.chunk === numbers[position]) continue
        context.addIssue({
          code: 'custom',
          path: ['chunks', position, 'chunk'],
          message: `entry ${position + 1} must be chunk ${numbers[position]}: answer for every chunk, in the order given`,
        })
      }
    })
}

/** Renders the prompt that judges the statements of a turn's retrieved chunks against the user's input. */
export function turnContextualRelevancyPrompt(
  before: readonly WindowTurn[],
  chunks: readonly { readonly chunk: number; readonly text: string }[],
) {
  const task = [
    'The data holds the recent turns of a conversation between a user and an AI assistant (each with its 0-based',
    'index and role), and the numbered context chunks a retrieval system fetched for the assistant to answer the',
    'latest user input.',
    '',
    'For every chunk, in the order given, split it into the distinct statements it makes (a short chunk may be a',
    'single statement; keep each close to the chunk’s wording) and decide for each whether it is relevant: whether',
    'it helps address what the user asks, above all in the latest user input, read with the earlier turns as',
    'context. Background that the answer needs is relevant; facts about other topics are not.',
    '',
    'Answer with "chunks": one entry per chunk, in order, each with its "chunk" number and its "statements", each',
    'statement with a short "reason" and "relevant": true or false.',
  ].join('\n')
  return judgeMessages(task, { Conversation: before, 'Retrieved context': chunks })
}

/** Prompt identity of the statements-only extraction a metric with a decision judge asks its chat model for. */
export const TURN_CONTEXT_STATEMENTS_PROMPT = 'turn-context-statements@1'

/** Prompt identity of one statement's relevance, asked of a decision judge. */
export const STATEMENT_RELEVANCY_PROMPT = 'statement-relevancy@1'

/**
 * What the chat model answers when a decision judge judges the statements: every chunk it was given, in order,
 * split into statements, without verdicts.
 */
export function turnContextStatementsSchema(numbers: readonly number[]) {
  return z.object({
    chunks: z
      .array(
        z.object({
          chunk: chunkNumberSchema(numbers),
          statements: z.array(z.string().describe('One statement the chunk makes, close to its wording.')).min(1),
        }),
      )
      .length(numbers.length),
  })
}

/** Renders the prompt that splits a turn's retrieved chunks into statements, for a decision judge to judge. */
export function turnContextStatementsPrompt(chunks: readonly { readonly chunk: number; readonly text: string }[]) {
  const task = [
    'The data holds numbered context chunks a retrieval system fetched for an AI assistant.',
    '',
    'For every chunk, in the order given, split it into the distinct statements it makes (a short chunk may be a',
    'single statement; keep each close to the chunk’s wording).',
    '',
    'Answer with "chunks": one entry per chunk, in order, each with its "chunk" number and its "statements".',
  ].join('\n')
  return judgeMessages(task, { 'Retrieved context': chunks })
}

/** What one statement's relevance decision answers. */
export const statementRelevancySchema = z.object({
  relevant: z.boolean().describe('true if the statement helps address the user input.'),
})

/** The instructions of one statement's relevance decision; the state is the conversation before the reply. */
export function statementRelevantInstructions(statement: string): string {
  return (
    'Does this statement, retrieved for the assistant, help address what the user asks in the latest user input ' +
    `(read with the earlier turns as context)? Statement: ${JSON.stringify(statement)}`
  )
}

/** Renders one statement's relevance decision as messages (its cache identity, and its wording for a chat judge). */
export function statementRelevancyPrompt(before: readonly WindowTurn[], statement: string) {
  return judgeMessages(statementRelevantInstructions(statement), { Conversation: before })
}
