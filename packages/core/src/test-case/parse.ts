import type { z } from 'zod'
import { TestCaseError } from '../errors.js'
import {
  type ConversationalTestCase,
  conversationalTestCaseSchema,
  type LLMTestCase,
  llmTestCaseSchema,
} from './schemas.js'

/** Validates a conversational test case, throwing a {@link TestCaseError} that lists every problem. */
export function parseConversationalTestCase(value: unknown, metric: string): ConversationalTestCase {
  return parseWith(conversationalTestCaseSchema, value, metric, 'a conversational test case ({ turns: [...] })')
}

/** Validates a single-turn test case, throwing a {@link TestCaseError} that lists every problem. */
export function parseLLMTestCase(value: unknown, metric: string): LLMTestCase {
  return parseWith(llmTestCaseSchema, value, metric, 'a single-turn test case ({ input, actualOutput, ... })')
}

function parseWith<T>(schema: z.ZodType<T>, value: unknown, metric: string, expected: string): T {
  const parsed = schema.safeParse(value)
  if (parsed.success) return parsed.data
  const problems = parsed.error.issues
    .map((issue) => `  - ${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('\n')
  throw new TestCaseError(`The metric "${metric}" needs ${expected}, but the test case is invalid:\n${problems}`)
}
