import { MeasurementAbortedError, toJudgeCallError } from '../errors.js'
import type { JudgeModel, JudgeRequest, JudgeResponse } from '../judge/types.js'
import type { TraceNode } from '../trace/types.js'
import { juryVerdicts } from './jury-usage.js'
import type { MetricUsage } from './types.js'
import { usageOf } from './usage.js'

/** One judge answer with what it cost. */
export interface JudgeCall<T> {
  readonly value: T
  readonly response: JudgeResponse<T>
  readonly usage: MetricUsage
  readonly latencyMs: number
}

/**
 * Asks the judge once, timing the call and counting its usage. Whatever the judge throws is a judge failure, except
 * a stop: a call asked after `signal` aborted, or an AbortError once it has, is MeasurementAbortedError.
 */
export async function callJudge<T>(
  judge: JudgeModel,
  request: Omit<JudgeRequest<T>, 'signal'>,
  signal: AbortSignal | undefined,
): Promise<JudgeCall<T>> {
  if (signal?.aborted) throw new MeasurementAbortedError(signal.reason)
  const started = performance.now()
  let response: JudgeResponse<T>
  try {
    // Object.assign, not `{ ...request, signal }`: once optimised, Node 20's V8 gives every object built by a spread
    // followed by more keys a hidden class of its own, and this runs for every judge call.
    response = await judge.generate(Object.assign({}, request, { signal }))
  } catch (error) {
    // A judge of the user's that rejects with the platform's AbortError was stopped, not broken.
    if (signal?.aborted && error instanceof Error && error.name === 'AbortError') {
      throw new MeasurementAbortedError(signal.reason)
    }
    throw toJudgeCallError(error)
  }
  return { value: response.value, response, usage: usageOf(response), latencyMs: performance.now() - started }
}

/** What a decision's trace entry shows besides its verdict. */
export type DecisionFields = Pick<TraceNode, 'probabilities' | 'decidedBy' | 'jury' | 'probabilitiesUnavailable'>

/**
 * The probabilities the judge gave for a decision and, when a decision judge answered it, that judge's name; for a
 * decision asked with the metric's logprobs (`logprobsAsked`) that came without probabilities, why. Undefined for an
 * answer with none of these.
 */
export function decisionFields(
  judge: JudgeModel,
  response: JudgeResponse<unknown>,
  logprobsAsked: boolean,
): DecisionFields | undefined {
  const probabilities = response.distribution
  const jury = juryVerdicts(response)
  if (probabilities === undefined && judge.decides !== true && jury === undefined) {
    return logprobsAsked ? { probabilitiesUnavailable: whyNoProbabilities(response) } : undefined
  }
  return {
    ...(probabilities === undefined ? {} : { probabilities }),
    ...(judge.decides === true ? { decidedBy: judge.name } : {}),
    ...(jury === undefined ? {} : { jury }),
  }
}

/** Why a chat judge asked for logprobs gave a decision no distribution. */
export function whyNoProbabilities(response: JudgeResponse<unknown>): string {
  if (response.logprobs !== undefined && response.logprobs.length > 0) {
    return 'its logprobs do not tell the options apart at the answer token (options that begin with the same token)'
  }
  return response.logprobsUnavailable ?? 'the judge returned no logprobs'
}

/** A trace entry for one step of a non-DAG metric; `ran` unless told otherwise. */
export function stepNode(
  entry: Omit<TraceNode, 'role' | 'inputs' | 'children' | 'status'> & Partial<Pick<TraceNode, 'status' | 'children'>>,
): TraceNode {
  return { role: 'step', status: 'ran', inputs: [], children: [], ...entry }
}

/** The trace note for an answer the server did not hold to its JSON schema, so that only local validation checked. */
export function localCheckNote(response: JudgeResponse<unknown>): string | undefined {
  const why = response.structuredOutputsUnavailable
  return why === undefined ? undefined : `answer checked locally only: ${why}`
}

/** The trace note for an answer made without a sampling setting the model refused or ignored (e.g. `temperature`). */
export function samplingNote(response: JudgeResponse<unknown>): string | undefined {
  return response.samplingNotApplied
}

/** Adds the note unless it is there already: every call of one refused schema gives the same one. */
export function addNote(notes: string[], note: string | undefined): void {
  if (note !== undefined && !notes.includes(note)) notes.push(note)
}
