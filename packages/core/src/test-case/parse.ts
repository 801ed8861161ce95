import type { z } from 'zod'
import { TestCaseError } from '../errors.js'
import { messageOf } from '../internal/text.js'
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
  let parsed: ReturnType<typeof schema.safeParse>
  try {
    parsed = schema.safeParse(value)
  } catch (error) {
    // A getter or Proxy of the caller's threw while the schema read it: find which one, for the message.
    const where = jsonProblem(value, '') ?? `it could not be read (${messageOf(error)})`
    throw new TestCaseError(`The metric "${metric}" could not read the test case:\n  - ${where}`)
  }
  if (parsed.success) {
    const problems = freeFormProblems(parsed.data as FreeFormFields)
    if (problems.length === 0) return parsed.data
    throw new TestCaseError(
      `The metric "${metric}" cannot show this test case to the judge, which sees it as JSON:\n` +
        problems.map((problem) => `  - ${problem}`).join('\n'),
    )
  }
  const problems = parsed.error.issues
    .map((issue) => `  - ${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('\n')
  throw new TestCaseError(`The metric "${metric}" needs ${expected}, but the test case is invalid:\n${problems}`)
}

/** Values deeper than this cannot be meant for a judge to read, and would overflow JSON.stringify's stack. */
const MAX_DEPTH = 200

interface FreeFormFields {
  readonly turns?: readonly { readonly toolsCalled?: readonly object[]; readonly metadata?: unknown }[]
  readonly toolsCalled?: readonly object[]
  readonly expectedTools?: readonly object[]
  readonly metadata?: unknown
}

/**
 * The fields the schema takes as any value (tool parameters and outputs, metadata) checked the way the judge's
 * prompt will read them, JSON: every value that JSON.stringify would throw on is named by its path.
 */
function freeFormProblems(testCase: FreeFormFields): string[] {
  // Runs for every measurement, and these fields are mostly absent: a value JSON shows as it is (undefined, a
  // string, a number) needs no path and no walk, so only objects and BigInts get either.
  const problems: string[] = []
  const check = (value: unknown, path: string) => {
    const problem = jsonProblem(value, path)
    if (problem !== undefined) problems.push(problem)
  }
  const tools = (prefix: string, calls: readonly object[]) => {
    for (let index = 0; index < calls.length; index++) {
      const { inputParameters, output } = calls[index] as { inputParameters?: unknown; output?: unknown }
      if (needsWalk(inputParameters)) check(inputParameters, `${prefix}.${index}.inputParameters`)
      if (needsWalk(output)) check(output, `${prefix}.${index}.output`)
    }
  }
  const turns = testCase.turns ?? []
  for (let index = 0; index < turns.length; index++) {
    const { toolsCalled, metadata } = turns[index] as NonNullable<FreeFormFields['turns']>[number]
    if (toolsCalled) tools(`turns.${index}.toolsCalled`, toolsCalled)
    if (needsWalk(metadata)) check(metadata, `turns.${index}.metadata`)
  }
  if (testCase.toolsCalled) tools('toolsCalled', testCase.toolsCalled)
  if (testCase.expectedTools) tools('expectedTools', testCase.expectedTools)
  if (needsWalk(testCase.metadata)) check(testCase.metadata, 'metadata')
  return problems
}

/** Whether JSON.stringify could throw on `value`: only on objects (and what they hold) and BigInts. */
function needsWalk(value: unknown): boolean {
  return (typeof value === 'object' && value !== null) || typeof value === 'bigint'
}

type Visit = { readonly value: unknown; readonly path: string; readonly key: string; readonly depth: number }

/** The first value under `root` that JSON.stringify cannot show, with its path; iterative, so depth is no risk. */
function jsonProblem(root: unknown, rootPath: string): string | undefined {
  const onPath = new Set<object>()
  const stack: (Visit | { readonly leave: object })[] = [{ value: root, path: rootPath, key: '', depth: 0 }]
  while (stack.length > 0) {
    const item = stack.pop() as Visit | { readonly leave: object }
    if ('leave' in item) {
      onPath.delete(item.leave)
      continue
    }
    let { value } = item
    const { path, depth } = item
    if (typeof value === 'bigint') {
      return `${path} is a BigInt (${value}n), which JSON cannot show: convert it with String() or Number().`
    }
    if (typeof value !== 'object' || value === null) continue
    try {
      const toJSON = (value as { toJSON?: unknown }).toJSON
      if (typeof toJSON === 'function') value = toJSON.call(value, item.key)
    } catch (error) {
      return `${path}.toJSON() threw: ${messageOf(error)}`
    }
    if (typeof value === 'bigint') return `${path}.toJSON() returned a BigInt, which JSON cannot show.`
    if (typeof value !== 'object' || value === null) continue
    if (onPath.has(value)) return `${path} is circular: it contains itself, so it cannot be shown as JSON.`
    if (depth >= MAX_DEPTH) {
      const field = rootPath || path.split('.').slice(0, 3).join('.')
      return `${field} is nested more than ${MAX_DEPTH} levels deep; pass a summary of it instead.`
    }
    const container = value
    let entries: [string, unknown][]
    try {
      entries = Object.keys(container).map((key) => {
        try {
          return [key, (container as Record<string, unknown>)[key]]
        } catch (error) {
          throw new KeyError(key, error)
        }
      })
    } catch (error) {
      if (error instanceof KeyError) {
        const at = path === '' ? error.key : `${path}.${error.key}`
        return `${at} could not be read (${messageOf(error.cause)}); pass plain data instead.`
      }
      return `${path || 'the test case'} could not be read (${messageOf(error)}); pass plain data instead.`
    }
    onPath.add(container)
    stack.push({ leave: container })
    for (let at = entries.length - 1; at >= 0; at--) {
      const [key, child] = entries[at] as [string, unknown]
      stack.push({ value: child, path: path === '' ? key : `${path}.${key}`, key, depth: depth + 1 })
    }
  }
  return undefined
}

/** Which property's getter threw, while listing an object's entries. */
class KeyError extends Error {
  readonly key: string
  constructor(key: string, cause: unknown) {
    super(key, { cause })
    this.key = key
  }
}
