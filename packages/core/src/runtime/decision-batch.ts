import { MeasurementAbortedError } from '../errors.js'
import type { JudgeModel, JudgeRequest, JudgeResponse } from '../judge/types.js'

/** The most questions one decision request carries: OpenAI's Decisions API takes 1 to 400. */
export const MAX_QUESTIONS_PER_REQUEST = 400

/** Answers the requests of one batch, one entry each: a response, or the Error that request alone ended in. */
export type SendBatch = (
  judge: JudgeModel,
  requests: readonly JudgeRequest<unknown>[],
  signal: AbortSignal,
) => Promise<readonly (JudgeResponse<unknown> | Error)[]>

interface Waiter {
  readonly request: JudgeRequest<unknown>
  readonly resolve: (response: JudgeResponse<unknown>) => void
  readonly reject: (error: unknown) => void
}

/**
 * Gathers the decisions asked of one decision judge about the same state into one call (`generateMany`): the
 * requests with a `question` asked in one turn of the event loop, which is when a DAG starts sibling judgements,
 * a turn's statements are judged, or several windows read the same turns. Each request still waits alone: its own
 * signal stops its wait, and the call is cancelled only when every request in it has stopped waiting.
 */
export class DecisionBatches {
  readonly #send: SendBatch
  readonly #open = new Map<string, Waiter[]>()

  constructor(send: SendBatch) {
    this.#send = send
  }

  ask<T>(judge: JudgeModel, judgeId: number, request: JudgeRequest<T>): Promise<JudgeResponse<T>> {
    const signal = request.signal
    if (signal?.aborted) return Promise.reject(new MeasurementAbortedError(signal.reason))
    const key = batchKeyOf(judgeId, request as JudgeRequest<unknown>)
    let waiters = this.#open.get(key)
    if (waiters === undefined) {
      const gathering: Waiter[] = []
      waiters = gathering
      this.#open.set(key, gathering)
      setImmediate(() => {
        this.#open.delete(key)
        for (let start = 0; start < gathering.length; start += MAX_QUESTIONS_PER_REQUEST) {
          this.#flush(judge, gathering.slice(start, start + MAX_QUESTIONS_PER_REQUEST))
        }
      })
    }
    const open = waiters
    return new Promise<JudgeResponse<T>>((resolve, reject) => {
      open.push({ request: request as JudgeRequest<unknown>, resolve: resolve as Waiter['resolve'], reject })
    })
  }

  #flush(judge: JudgeModel, gathered: readonly Waiter[]): void {
    // A request whose measurement stopped while the batch gathered is not asked.
    const waiters = gathered.filter((waiter) => {
      const signal = waiter.request.signal
      if (!signal?.aborted) return true
      waiter.reject(new MeasurementAbortedError(signal.reason))
      return false
    })
    if (waiters.length === 0) return
    const controller = new AbortController()
    let waiting = waiters.length
    const settled = waiters.map(() => false)
    const forget: (() => void)[] = []
    const settle = (index: number, outcome: () => void) => {
      if (settled[index]) return
      settled[index] = true
      forget[index]?.()
      outcome()
    }
    for (const [index, waiter] of waiters.entries()) {
      const signal = waiter.request.signal
      if (signal === undefined) continue
      const onAbort = () => {
        settle(index, () => waiter.reject(new MeasurementAbortedError(signal.reason)))
        waiting -= 1
        if (waiting === 0) controller.abort(signal.reason)
      }
      signal.addEventListener('abort', onAbort, { once: true })
      forget[index] = () => signal.removeEventListener('abort', onAbort)
    }
    const requests = waiters.map((waiter) => waiter.request)
    this.#send(judge, requests, controller.signal).then(
      (answers) => {
        for (const [index, waiter] of waiters.entries()) {
          const answer = answers[index]
          settle(index, () =>
            answer instanceof Error || answer === undefined
              ? waiter.reject(answer ?? new Error(`The judge "${judge.name}" gave no answer for this decision.`))
              : waiter.resolve(answer),
          )
        }
      },
      (error: unknown) => {
        for (const [index, waiter] of waiters.entries()) settle(index, () => waiter.reject(error))
      },
    )
  }
}

/**
 * Requests share a batch when they go to the same judge about the same state, in the same trial and at the same
 * temperature: what one decision request holds once.
 */
function batchKeyOf(judgeId: number, request: JudgeRequest<unknown>): string {
  const state = request.question?.state
  return JSON.stringify([judgeId, request.trial ?? null, request.defaultTemperature ?? null, state ?? null])
}
