/** The fields of an {@link LLMTestCase} a single-turn node or metric can be asked to judge. */
export const LLMTestCaseParams = {
  INPUT: 'input',
  ACTUAL_OUTPUT: 'actualOutput',
  EXPECTED_OUTPUT: 'expectedOutput',
  CONTEXT: 'context',
  RETRIEVAL_CONTEXT: 'retrievalContext',
  TOOLS_CALLED: 'toolsCalled',
  EXPECTED_TOOLS: 'expectedTools',
} as const

/**
 * The reference library's newer name for {@link LLMTestCaseParams}: the same values plus `METADATA` and `TAGS`
 * (the test case's `metadata` and `tags`, shown to the judge as data like every other field).
 */
export const SingleTurnParams = {
  ...LLMTestCaseParams,
  METADATA: 'metadata',
  TAGS: 'tags',
} as const

/** A single-turn test case field name, e.g. `'actualOutput'`. */
export type SingleTurnParam = (typeof SingleTurnParams)[keyof typeof SingleTurnParams]

/** A single-turn test case field name (any of {@link SingleTurnParams}, which includes every LLMTestCaseParams value). */
export type LLMTestCaseParam = SingleTurnParam

/**
 * The fields a conversational node or metric can be asked to judge: turn-level ones (read from every turn in
 * the window) and conversation-level ones (read once from the test case).
 */
export const TurnParams = {
  ROLE: 'role',
  CONTENT: 'content',
  RETRIEVAL_CONTEXT: 'retrievalContext',
  TOOLS_CALLED: 'toolsCalled',
  SCENARIO: 'scenario',
  EXPECTED_OUTCOME: 'expectedOutcome',
  CHATBOT_ROLE: 'chatbotRole',
  USER_DESCRIPTION: 'userDescription',
  CONTEXT: 'context',
} as const

/**
 * The reference library's newer name for {@link TurnParams}: the same values plus `METADATA` and `TAGS`, the
 * conversation's own `metadata` and `tags` (conversation-level: read once from the test case, not from each turn).
 */
export const MultiTurnParams = {
  ...TurnParams,
  METADATA: 'metadata',
  TAGS: 'tags',
} as const

/** A conversational test case field name, e.g. `'content'`. */
export type MultiTurnParam = (typeof MultiTurnParams)[keyof typeof MultiTurnParams]

/**
 * A conversational test case field name, turn-level (`'content'`) or conversation-level (`'scenario'`); any of
 * {@link MultiTurnParams}, which includes every TurnParams value.
 */
export type TurnParam = MultiTurnParam

/** The turn-level fields, read from each turn in a node's window. */
export const TURN_LEVEL_PARAMS: ReadonlySet<TurnParam> = new Set<TurnParam>([
  'role',
  'content',
  'retrievalContext',
  'toolsCalled',
])

/** Human labels used when a parameter is shown to the judge or in an error. */
export const PARAM_LABELS: Readonly<Record<LLMTestCaseParam | TurnParam, string>> = {
  input: 'Input',
  actualOutput: 'Actual Output',
  expectedOutput: 'Expected Output',
  context: 'Context',
  retrievalContext: 'Retrieval Context',
  toolsCalled: 'Tools Called',
  expectedTools: 'Expected Tools',
  role: 'Role',
  content: 'Content',
  scenario: 'Scenario',
  expectedOutcome: 'Expected Outcome',
  chatbotRole: 'Chatbot Role',
  userDescription: 'User Description',
  metadata: 'Metadata',
  tags: 'Tags',
}

const LLM_PARAM_VALUES = new Set<string>(Object.values(SingleTurnParams))
const TURN_PARAM_VALUES = new Set<string>(Object.values(MultiTurnParams))

/** Whether `value` names a single-turn test case field. */
export function isLLMTestCaseParam(value: unknown): value is LLMTestCaseParam {
  return typeof value === 'string' && LLM_PARAM_VALUES.has(value)
}

/** Whether `value` names a conversational test case field. */
export function isTurnParam(value: unknown): value is TurnParam {
  return typeof value === 'string' && TURN_PARAM_VALUES.has(value)
}
