import type { ReportIssue, ShownInput, TaskInput } from '../dag/node.js'
import { TestCaseError } from '../errors.js'
import { describeValue } from '../internal/describe-value.js'
import {
  isLLMTestCaseParam,
  isTurnParam,
  type LLMTestCaseParam,
  PARAM_LABELS,
  TURN_LEVEL_PARAMS,
  type TurnParam,
} from './params.js'
import type { ConversationalTestCase, LLMTestCase } from './schemas.js'

/**
 * How a node reads a test case: which parameters, which turns. Single-turn and conversational nodes differ only
 * here, so every node kind is written once and given the view that fits its mode.
 */
export interface InputView {
  readonly params: readonly string[]
  readonly turnWindow: readonly [number, number] | undefined
  /** The named parameters absent from the test case. */
  missingParams(testCase: LLMTestCase | ConversationalTestCase): string[]
  /**
   * What the judge is shown: the parent outputs, then the parameters. Throws a `TURN_WINDOW_OUT_OF_RANGE`
   * TestCaseError when the window does not fit the conversation, so only a node that runs checks its window.
   */
  show(testCase: LLMTestCase | ConversationalTestCase, inputs: readonly TaskInput[]): ShownInput
}

const STEP_OUTPUTS_KEY = 'Outputs of earlier steps'

function withStepOutputs(inputs: readonly TaskInput[], data: Record<string, unknown>): Record<string, unknown> {
  if (inputs.length === 0) return data
  return { [STEP_OUTPUTS_KEY]: Object.fromEntries(inputs.map((input) => [input.label, input.output])), ...data }
}

/** Reads the named fields of an LLMTestCase. */
export function singleTurnView(params: readonly LLMTestCaseParam[]): InputView {
  return {
    params,
    turnWindow: undefined,
    missingParams: (testCase) => params.filter((param) => (testCase as LLMTestCase)[param] === undefined),
    show: (testCase, inputs) => ({
      data: withStepOutputs(
        inputs,
        Object.fromEntries(params.map((param) => [PARAM_LABELS[param], (testCase as LLMTestCase)[param]])),
      ),
    }),
  }
}

/** Reads the turns in a window (turn-level params) and conversation-level params of a ConversationalTestCase. */
export function conversationalView(params: readonly TurnParam[], turnWindow: readonly [number, number] | undefined) {
  const turnFields = params.filter((param) => TURN_LEVEL_PARAMS.has(param))
  const caseFields = params.filter((param) => !TURN_LEVEL_PARAMS.has(param))
  const view: InputView = {
    params,
    turnWindow,
    // Turn-level fields are optional per turn (user turns have no retrieval context), so only the
    // conversation-level ones can be missing.
    missingParams: (testCase) =>
      caseFields.filter((param) => (testCase as ConversationalTestCase)[param as keyof ConversationalTestCase] == null),
    show: (testCase, inputs) => {
      const conversation = testCase as ConversationalTestCase
      const count = conversation.turns.length
      const turns = turnWindow ? resolveTurnWindow(turnWindow, count) : undefined
      const data: Record<string, unknown> = {}
      if (turnFields.length > 0) {
        const [start, end] = turns ?? [0, count - 1]
        data.Conversation = {
          window: `turns ${start} to ${end} of a conversation of ${count} turns (0-based)`,
          turns: conversation.turns.slice(start, end + 1).map((turn, offset) => {
            const shown: Record<string, unknown> = { index: start + offset, role: turn.role }
            for (const field of turnFields)
              if (field !== 'role')
                shown[PARAM_LABELS[field]] = turn[field as 'content' | 'retrievalContext' | 'toolsCalled'] ?? null
            return shown
          }),
        }
      }
      for (const field of caseFields) {
        data[PARAM_LABELS[field]] = conversation[field as keyof ConversationalTestCase]
      }
      return { data: withStepOutputs(inputs, data), ...(turns ? { turns } : {}) }
    },
  }
  return view
}

/**
 * The 0-based turns `[first, last]` a window covers in a conversation of `count` turns: an index >= 0 counts from
 * the first turn, one < 0 from the end (`-1` is the last turn). Throws, naming the window and the length, when the
 * window does not fit.
 */
export function resolveTurnWindow(window: readonly [number, number], count: number): readonly [number, number] {
  const [start, end] = window.map((index) => (index < 0 ? count + index : index)) as [number, number]
  if (start >= 0 && end < count && start <= end) return [start, end]
  const outside = window.flatMap((index, position) => {
    const resolved = position === 0 ? start : end
    if (resolved >= 0 && resolved < count) return []
    return [index < 0 ? `${index} counts back past the first turn` : `there is no turn ${index}`]
  })
  const why = outside.length > 0 ? outside.join(' and ') : `here it means turns ${start} to ${end}, which is empty`
  const turns = `${count} turn${count === 1 ? '' : 's'}`
  throw new TestCaseError(
    `its turnWindow [${window[0]}, ${window[1]}] does not fit this conversation of ${turns} (${why}). ` +
      `The turns are 0 to ${count - 1}, or -${count} to -1 counting from the end: use a window inside them, or drop ` +
      'turnWindow to read every turn.',
    'TURN_WINDOW_OUT_OF_RANGE',
  )
}

/** Checks a single-turn node's or metric's `evaluationParams` option; `subject` names it in messages. */
export function checkSingleTurnParams(value: unknown, report: ReportIssue, subject = 'this node'): LLMTestCaseParam[] {
  return checkParams(value, report, subject, isLLMTestCaseParam, 'LLMTestCaseParams', 'TurnParams', isTurnParam)
}

/** Checks a conversational node's or metric's `evaluationParams` and `turnWindow`; `subject` names it in messages. */
export function checkConversationalOptions(
  params: unknown,
  turnWindow: unknown,
  report: ReportIssue,
  subject = 'this node',
): { params: TurnParam[]; turnWindow: readonly [number, number] | undefined } {
  const checked = checkParams(
    params,
    report,
    subject,
    isTurnParam,
    'TurnParams',
    'LLMTestCaseParams',
    isLLMTestCaseParam,
  )
  if (turnWindow === undefined) return { params: checked, turnWindow: undefined }
  const valid =
    Array.isArray(turnWindow) &&
    turnWindow.length === 2 &&
    turnWindow.every((index) => Number.isInteger(index)) &&
    // Indices counting from different ends can only be compared against a conversation, when the node runs.
    (turnWindow[0] < 0 !== turnWindow[1] < 0 || turnWindow[0] <= turnWindow[1])
  if (!valid) {
    report(
      'turn-window',
      'turnWindow must be [start, end], inclusive: two integers, each >= 0 to count from the first turn or < 0 to ' +
        'count from the end ([-2, -1] is the last two turns), with start <= end when both count from the same end; ' +
        `got ${describeValue(turnWindow)}. For a single turn write [i, i].`,
    )
    return { params: checked, turnWindow: undefined }
  }
  if (!checked.some((param) => TURN_LEVEL_PARAMS.has(param))) {
    report(
      'turn-window-without-turns',
      'turnWindow is set but evaluationParams names no turn-level parameter, so no turn would be shown. ' +
        'Add TurnParams.ROLE and TurnParams.CONTENT (or another turn-level parameter) to evaluationParams.',
    )
  }
  return { params: checked, turnWindow: [turnWindow[0], turnWindow[1]] as const }
}

function checkParams<P extends string>(
  value: unknown,
  report: ReportIssue,
  subject: string,
  isParam: (value: unknown) => value is P,
  enumName: string,
  otherEnum: string,
  isOther: (value: unknown) => boolean,
): P[] {
  if (value === undefined) return []
  if (!Array.isArray(value)) {
    report('evaluation-params', `evaluationParams must be an array of ${enumName} values; got ${describeValue(value)}.`)
    return []
  }
  const params: P[] = []
  for (const param of value) {
    if (isParam(param)) {
      if (!params.includes(param)) params.push(param)
    } else if (isOther(param)) {
      report(
        'evaluation-params',
        `evaluationParams contains ${describeValue(param)}, which is one of ${otherEnum}; ${subject} needs ${enumName}.`,
      )
    } else {
      // Users coming from the Python library write snake_case; point them at the camelCase name.
      const camel =
        typeof param === 'string' ? param.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()) : ''
      const hint = camel !== param && isParam(camel) ? ` Did you mean "${camel}"?` : ''
      report(
        'evaluation-params',
        `evaluationParams contains ${describeValue(param)}, which is not one of ${enumName}.${hint}`,
      )
    }
  }
  return params
}
