import { MeasurementAbortedError, TestCaseError, toJudgeCallError } from '../errors.js'
import { describeValue } from '../internal/describe-value.js'
import type { JudgeModel, JudgeRequest, JudgeResponse } from '../judge/types.js'
import {
  type CommonMetricOptions,
  checkKnownOptions,
  OptionProblems,
  type ResolvedMetricOptions,
  resolveCommonOptions,
} from '../metric/options.js'
import type { MetricResult, MetricUsage } from '../metric/types.js'
import { usageOf } from '../metric/usage.js'
import { parseConversationalTestCase, parseLLMTestCase } from '../test-case/parse.js'
import type { ConversationalTestCase, LLMTestCase } from '../test-case/schemas.js'
import { renderResult } from '../trace/render.js'
import type { TraceNode } from '../trace/types.js'

/** One judge answer with what it cost. */
export interface JudgeCall<T> {
  readonly value: T
  readonly response: JudgeResponse<T>
  readonly usage: MetricUsage
  readonly latencyMs: number
}

/** Asks the judge once, timing the call and counting its usage. */
export async function callJudge<T>(
  judge: JudgeModel,
  request: Omit<JudgeRequest<T>, 'signal'>,
  signal: AbortSignal | undefined,
): Promise<JudgeCall<T>> {
  if (signal?.aborted) throw new MeasurementAbortedError(signal.reason)
  const started = performance.now()
  let response: JudgeResponse<T>
  try {
    response = await judge.generate({ ...request, signal })
  } catch (error) {
    throw toJudgeCallError(error)
  }
  return { value: response.value, response, usage: usageOf(response), latencyMs: performance.now() - started }
}

/** Validates a single-turn test case, with a hint when a conversation was passed instead. */
export function parseSingleTurn(testCase: unknown, metric: string, type: string): LLMTestCase {
  if (typeof testCase === 'object' && testCase !== null && 'turns' in testCase && !('input' in testCase)) {
    throw new TestCaseError(
      `The metric "${metric}" is a ${type}, which judges single-turn test cases ({ input, actualOutput }), but it ` +
        'was given a conversation ({ turns }). Use a conversational metric such as ConversationalGEval instead.',
    )
  }
  return parseLLMTestCase(testCase, metric)
}

/** Validates a conversational test case, with a hint when a single-turn case was passed instead. */
export function parseConversation(testCase: unknown, metric: string, type: string): ConversationalTestCase {
  if (typeof testCase === 'object' && testCase !== null && 'input' in testCase && !('turns' in testCase)) {
    throw new TestCaseError(
      `The metric "${metric}" is a ${type}, which judges conversations ({ turns: [...] }), but it was given a ` +
        'single-turn test case ({ input, ... }). Use a single-turn metric such as GEval instead.',
    )
  }
  return parseConversationalTestCase(testCase, metric)
}

/** Checks an optional whole-number option, returning the default when it is absent or invalid. */
export function wholeNumberOption(
  value: unknown,
  name: string,
  range: { readonly min: number; readonly max?: number },
  fallback: number,
  problems: OptionProblems,
  hint: string,
): number {
  if (value === undefined) return fallback
  const { min, max } = range
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && (max === undefined || value <= max)) {
    return value
  }
  const bounds = max === undefined ? `from ${min} and up` : `from ${min} to ${max}`
  problems.add(`${name} must be a whole number ${bounds} (${hint}); got ${describeValue(value)}.`)
  return fallback
}

/** A trace entry for one step of a non-DAG metric; `ran` unless told otherwise. */
export function stepNode(
  entry: Omit<TraceNode, 'role' | 'inputs' | 'children' | 'status'> & Partial<Pick<TraceNode, 'status' | 'children'>>,
): TraceNode {
  return { role: 'step', status: 'ran', inputs: [], children: [], ...entry }
}

/** Prints the result when the metric was built with `verboseMode`, then returns it. */
export function finish(result: MetricResult, verboseMode: boolean): MetricResult {
  // verboseMode is an explicit request to print; reports use result.verboseLogs instead.
  if (verboseMode) console.log(`${'─'.repeat(60)}\n${renderResult(result)}\n${'─'.repeat(60)}`)
  return result
}

/** Options of the metrics that judge a conversation window by window. */
export interface WindowedMetricOptions extends CommonMetricOptions {
  /** Identifies the metric in reports. */
  name?: string | undefined
  /** How many exchanges (a user turn and the replies to it) each judgement reads, ending at the judged turn. */
  windowSize?: number | undefined
}

/** Checks the options of a windowed metric, throwing a ConfigurationError that lists every problem. */
export function resolveWindowedOptions(
  type: string,
  options: WindowedMetricOptions,
  defaults: { readonly name: string; readonly windowSize: number },
): { readonly options: ResolvedMetricOptions; readonly windowSize: number } {
  const problems = new OptionProblems(`${type} "${String(options?.name ?? defaults.name)}"`)
  if (typeof options !== 'object' || options === null) {
    problems.add(`new ${type}(options) takes an options object (or nothing); got ${describeValue(options)}.`)
    problems.throwIfAny()
  }
  checkKnownOptions(options, WINDOWED_OPTION_KEYS, problems)
  const resolved = resolveCommonOptions(options, problems, defaults.name)
  const windowSize = wholeNumberOption(
    options.windowSize,
    'windowSize',
    { min: 1 },
    defaults.windowSize,
    problems,
    'how many exchanges each judgement reads',
  )
  problems.throwIfAny()
  return { options: resolved, windowSize }
}

const WINDOWED_OPTION_KEYS = [
  'name',
  'threshold',
  'model',
  'includeReason',
  'strictMode',
  'asyncMode',
  'verboseMode',
  'windowSize',
]
