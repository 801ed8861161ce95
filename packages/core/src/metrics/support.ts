import { describeValue } from '../dag/inputs.js'
import { errorAt, MeasurementAbortedError, TestCaseError } from '../errors.js'
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
  const response = await judge.generate({ ...request, signal })
  return { value: response.value, response, usage: usageOf(response), latencyMs: performance.now() - started }
}

/** Waits for a promise this measurement does not own, giving up (but not cancelling it) when `signal` aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  if (signal.aborted) return Promise.reject(new MeasurementAbortedError(signal.reason))
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new MeasurementAbortedError(signal.reason))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/** How one of several independent jobs ended. */
export type Settled<R> = { readonly ok: true; readonly value: R } | { readonly ok: false; readonly error: unknown }

/**
 * Runs one job per item, concurrently or one at a time. The first failure cancels the jobs still running, so a
 * broken judge costs one call, not one per item. Results keep the items' order.
 */
export async function runJobs<I, R>(
  items: readonly I[],
  concurrently: boolean,
  signal: AbortSignal | undefined,
  job: (item: I, signal: AbortSignal) => Promise<R>,
): Promise<Settled<R>[]> {
  const stop = new AbortController()
  const onAbort = () => stop.abort(signal?.reason)
  if (signal?.aborted) onAbort()
  else signal?.addEventListener('abort', onAbort, { once: true })
  const run = async (item: I): Promise<Settled<R>> => {
    try {
      if (stop.signal.aborted) throw new MeasurementAbortedError(stop.signal.reason)
      return { ok: true, value: await job(item, stop.signal) }
    } catch (error) {
      if (!stop.signal.aborted) stop.abort(error)
      return { ok: false, error }
    }
  }
  try {
    if (concurrently) return await Promise.all(items.map(run))
    const settled: Settled<R>[] = []
    for (const item of items) settled.push(await run(item))
    return settled
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
}

/**
 * The error that explains a failed batch: the first real failure in item order, not the cancellations it caused,
 * named with the item it happened at (`where(index)`). A cancellation alone is reported as it is.
 */
export function batchError(settled: readonly Settled<unknown>[], where: (index: number) => string): unknown {
  const failures = settled.flatMap((entry, index) => (entry.ok ? [] : [{ error: entry.error, index }]))
  const real = failures.find((failure) => !(failure.error instanceof MeasurementAbortedError))
  if (real) return errorAt(real.error, where(real.index))
  return failures[0]?.error
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

/** The error text a failed step shows in the trace. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** Prints the result when the metric was built with `verboseMode`, then returns it. */
export function finish(result: MetricResult, verboseMode: boolean): MetricResult {
  // verboseMode is an explicit request to print; reports use result.verboseLogs instead.
  if (verboseMode) console.log(`${'─'.repeat(60)}\n${renderResult(result)}\n${'─'.repeat(60)}`)
  return result
}

/** Shortens text for a one-line reason. */
export function shortText(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
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
