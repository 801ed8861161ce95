import { AsyncLocalStorage } from 'node:async_hooks'
import { setMaxListeners } from 'node:events'
import { MeasurementAbortedError } from '../errors.js'
import type { JudgeRequest, JudgeResponse } from '../judge/types.js'

/** The temperature trials ask the judge for when its user set none, so that samples can differ. */
export const TRIAL_TEMPERATURE = 1

/** Sends one request for several trials: resolves to one response per trial, in the order given. */
export type TrialSender = (
  request: JudgeRequest<unknown>,
  trials: readonly number[],
) => Promise<readonly JudgeResponse<unknown>[]>

interface Waiting {
  readonly key: string
  readonly trial: number
  readonly request: JudgeRequest<unknown>
  readonly send: TrialSender
  readonly resolve: (response: JudgeResponse<unknown>) => void
  readonly reject: (error: unknown) => void
}

/**
 * The judge calls of one trials measurement. Trials run side by side; a call waits here until every trial still
 * running is waiting too, and then identical calls of different trials (same judge, same prompt) go out as one
 * request for all of them, which a judge with `generateSamples` answers in one call. Calls that differ (trials
 * that took different paths) go out separately, at the same moment. Waiting for the slowest trial costs latency,
 * never a call: nothing is asked that a trial did not ask for.
 */
export class TrialGroup {
  readonly #running: Set<number>
  readonly #waiting: Waiting[] = []
  #checkScheduled = false

  /** `trials`: how many (numbered from 1), or their numbers (a later round of trials goes on from the last). */
  constructor(trials: number | readonly number[]) {
    this.#running = new Set(
      typeof trials === 'number' ? Array.from({ length: trials }, (_, index) => index + 1) : trials,
    )
  }

  /** Queues one trial's call; `key` identifies the call apart from the trial (its cache key without one). */
  ask(trial: number, key: string, request: JudgeRequest<unknown>, send: TrialSender): Promise<JudgeResponse<unknown>> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ key, trial, request, send, resolve, reject })
      this.#scheduleCheck()
    })
  }

  /** Marks a trial as ended, so the others stop waiting for it. */
  finish(trial: number): void {
    this.#running.delete(trial)
    this.#scheduleCheck()
  }

  #scheduleCheck(): void {
    if (this.#checkScheduled) return
    this.#checkScheduled = true
    // A macrotask later: a trial that asks several calls at once (asyncMode) has asked them all by then.
    setImmediate(() => {
      this.#checkScheduled = false
      this.#flushIfAllWaiting()
    })
  }

  #flushIfAllWaiting(): void {
    if (this.#waiting.length === 0) return
    const waitingTrials = new Set(this.#waiting.map((entry) => entry.trial))
    for (const trial of this.#running) if (!waitingTrials.has(trial)) return
    const batches = new Map<string, Waiting[]>()
    for (const entry of this.#waiting.splice(0)) {
      const batch = batches.get(entry.key)
      if (batch === undefined) batches.set(entry.key, [entry])
      else batch.push(entry)
    }
    for (const batch of batches.values()) void this.#send(batch)
  }

  async #send(batch: readonly Waiting[]): Promise<void> {
    const [first] = batch as [Waiting, ...Waiting[]]
    // Each trial may have a signal of its own (a DAG walk stops its own calls when a node fails): a trial whose
    // signal aborts stops waiting alone, and the shared request is cancelled only once every trial has given up.
    const controller = new AbortController()
    let waiting = batch.length
    const settled = new Set<Waiting>()
    const giveUp = (entry: Waiting) => () => {
      if (settled.has(entry)) return
      settled.add(entry)
      entry.reject(new MeasurementAbortedError(entry.request.signal?.reason))
      waiting -= 1
      if (waiting === 0) controller.abort(entry.request.signal?.reason)
    }
    // Every sample of the batch, and each re-ask of a sample the judge could not return in the shared call, listens
    // to this one signal while it waits: their number grows with the trials (at most MAX_TRIALS), not with a leak.
    setMaxListeners(0, controller.signal)
    const listeners = batch.map((entry) => {
      const listener = giveUp(entry)
      if (entry.request.signal?.aborted) listener()
      else entry.request.signal?.addEventListener('abort', listener, { once: true })
      return listener
    })
    try {
      const request = { ...first.request, signal: controller.signal }
      const responses = await first.send(
        request,
        batch.map((entry) => entry.trial),
      )
      for (const [index, entry] of batch.entries()) {
        if (!settled.has(entry)) entry.resolve(responses[index] as JudgeResponse<unknown>)
      }
    } catch (error) {
      for (const entry of batch) if (!settled.has(entry)) entry.reject(error)
    } finally {
      for (const [index, entry] of batch.entries()) {
        entry.request.signal?.removeEventListener('abort', listeners[index] as () => void)
      }
    }
  }
}

interface TrialScope {
  readonly group: TrialGroup
  readonly trial: number
}

const scope = new AsyncLocalStorage<TrialScope>()

/** The trial the current code runs in, if any: judge runtimes route its calls through the group. */
export function currentTrial(): TrialScope | undefined {
  return scope.getStore()
}

/** Runs one trial of a measurement: judge calls made inside carry its trial number. */
export function inTrial<T>(group: TrialGroup, trial: number, run: () => Promise<T>): Promise<T> {
  return scope.run({ group, trial }, run)
}

/**
 * Runs `run` outside any trial: for calls a metric makes once for every trial, such as G-Eval's evaluation steps,
 * which must not become one sample per trial.
 */
export function outsideTrials<T>(run: () => T): T {
  return scope.exit(run)
}

/**
 * Runs `run` once per trial, side by side, each inside its trial of one group: identical judge calls of the trials go
 * out as one request (see TrialGroup). A trial counts as ended when its run settles, so the others stop waiting.
 */
export function runTrials<T>(trials: number | readonly number[], run: (trial: number) => Promise<T>): Promise<T[]> {
  const numbers = typeof trials === 'number' ? Array.from({ length: trials }, (_, index) => index + 1) : trials
  const group = new TrialGroup(numbers)
  return Promise.all(
    numbers.map((trial) =>
      inTrial(group, trial, async () => {
        try {
          return await run(trial)
        } finally {
          group.finish(trial)
        }
      }),
    ),
  )
}
