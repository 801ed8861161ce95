import { z } from 'zod'

/** A tool the application called (or was expected to call). */
export const toolCallSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  reasoning: z.string().optional(),
  inputParameters: z.record(z.string(), z.unknown()).optional(),
  output: z.unknown().optional(),
})

/** One message of a conversation. */
export const turnSchema = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  retrievalContext: z.array(z.string()).optional(),
  toolsCalled: z.array(toolCallSchema).optional(),
  userId: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
})

/** A whole conversation, judged by conversational metrics. */
export const conversationalTestCaseSchema = z.object({
  turns: z.array(turnSchema).min(1, 'a conversation needs at least one turn'),
  scenario: z.string().optional(),
  expectedOutcome: z.string().optional(),
  chatbotRole: z.string().optional(),
  userDescription: z.string().optional(),
  context: z.array(z.string()).optional(),
  name: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  /** Free-form labels for the case; a judge is shown them only when a metric names the TAGS param. */
  tags: z.array(z.string()).optional(),
})

/** One input and the application's output, judged by single-turn metrics. */
export const llmTestCaseSchema = z.object({
  input: z.string(),
  actualOutput: z.string().optional(),
  expectedOutput: z.string().optional(),
  context: z.array(z.string()).optional(),
  retrievalContext: z.array(z.string()).optional(),
  toolsCalled: z.array(toolCallSchema).optional(),
  expectedTools: z.array(toolCallSchema).optional(),
  name: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  /** Free-form labels for the case; a judge is shown them only when a metric names the TAGS param. */
  tags: z.array(z.string()).optional(),
})

/** A tool call as recorded on a turn or a test case. */
export type ToolCall = z.input<typeof toolCallSchema>
/** One message of a conversation. */
export type Turn = z.input<typeof turnSchema>
/** A conversation to judge with conversational metrics. */
export type ConversationalTestCase = z.input<typeof conversationalTestCaseSchema>
/** A single input/output pair to judge with single-turn metrics. */
export type LLMTestCase = z.input<typeof llmTestCaseSchema>
