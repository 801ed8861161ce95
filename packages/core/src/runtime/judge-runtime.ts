import { resolve } from 'node:path'
import { JudgeCallError } from '../errors.js'
import { isJury } from '../judge/jury-mark.js'
import type { JudgeModel, JudgeRequest, JudgeResponse } from '../judge/types.js'
import type { CacheMode } from './cache.js'
import { JudgeCacheStore } from './cache.js'
import { cacheKeyOf } from './cache-key.js'
import { CachePolicy } from './cache-policy.js'
import { DecisionBatches } from './decision-batch.js'
import { CallLimiter } from './limiter.js'
import { SHUTDOWN_WATCH, ShutdownWatch } from './model-lifecycle.js'
import { type JudgeRuntimeOptions, runtimeSettings } from './runtime-options.js'
import { SharedCall } from './shared-call.js'
import { currentTrial, TRIAL_TEMPERATURE } from './trial-batch.js'

export type { JudgeRuntimeOptions } from './runtime-options.js'

/** Counters of one runtime since it was created. */
export interface JudgeRuntimeStats {
  /** Requests received from metrics. */
  readonly requests: number
  /** Requests answered from the cache on disk. */
  readonly cacheHits: number
  /** Requests that waited on an identical request already in flight instead of calling again. */
  readonly sharedCalls: number
  /**
   * Calls that reached the judge itself: requests made, as results' `usage` counts them (samples asked together with
   * `n`, or decisions in one batch, are one; samples a model that takes no `n` answered one request each, one each).
   */
  readonly judgeCalls: number
  readonly inFlight: number
  readonly queued: number
  /** 429s the judge answered in this process; each paused the calls (of every worker, with a coordinator). */
  readonly rateLimited: number
  /** This process's adaptive limit on judge calls now (at most `concurrency`); with a coordinator, the run's is there. */
  readonly currentConcurrency: number
}

/** Caches, limits and shares judge calls for every judge it wraps. */
export interface JudgeRuntime {
  readonly cache: CacheMode
  /** The absolute cache directory. */
  readonly cacheDir: string
  readonly concurrency: number
  readonly requestsPerMinute: number | undefined
  /** A judge that answers through this runtime; a judge that already does (through any runtime) is returned as is. */
  wrap(judge: JudgeModel): JudgeModel
  stats(): JudgeRuntimeStats
}

const RUNTIME = Symbol.for('judgetree.judgeRuntime')

/**
 * Builds a judge runtime: a content-addressed cache of judge answers on disk, a limit on judge calls in flight (and
 * per minute), and one shared call for identical requests in flight. Metrics use the process's default runtime,
 * configured by JUDGETREE_* variables; pass `model: runtime.wrap(judge)` to use another.
 *
 * @example
 * const runtime = createJudgeRuntime({ cache: 'replay', concurrency: 4 })
 * const metric = new DAGMetric({ name: 'Format', dag, model: runtime.wrap(new OpenAIJudge()) })
 */
export function createJudgeRuntime(options: JudgeRuntimeOptions = {}): JudgeRuntime {
  const { mode, cacheDir, concurrency, requestsPerMinute, warn, coordinatorUrl } = runtimeSettings(options)
  const store = new JudgeCacheStore(resolve(cacheDir), warn)
  const shutdowns = new ShutdownWatch({ mode, cacheDir: store.dir, warn, coordinatorUrl })
  const limiter = new CallLimiter({ concurrency, requestsPerMinute, coordinatorUrl, warn })
  const counts = { requests: 0, cacheHits: 0, sharedCalls: 0, judgeCalls: 0 }
  const cache = new CachePolicy(mode, store, () => {
    counts.cacheHits += 1
  })
  const inFlight = new Map<string, SharedCall>()
  const wrappers = new WeakMap<JudgeModel, JudgeModel>()

  const callJudge = <T>(judge: JudgeModel, request: JudgeRequest<T>, signal: AbortSignal | undefined) =>
    limiter.run(
      () => {
        counts.judgeCalls += 1
        return judge.generate(request.signal === signal ? request : { ...request, signal })
      },
      signal,
      judge.rateLimitRetries ?? 0,
    )

  const generate = <T>(judge: JudgeModel, request: JudgeRequest<T>): Promise<JudgeResponse<T>> => {
    shutdowns.notice(judge)
    const scope = currentTrial()
    if (scope !== undefined && request.trial === undefined) {
      // A call of one trial waits for the same call of the other trials, so that all go out as one request.
      const key = `${judgeIdOf(judge)}:${cacheKeyOf(judge, request as JudgeRequest<unknown>)}`
      const send = (shared: JudgeRequest<unknown>, trials: readonly number[]) => generateTrials(judge, shared, trials)
      return scope.group.ask(scope.trial, key, request as JudgeRequest<unknown>, send) as Promise<JudgeResponse<T>>
    }
    counts.requests += 1
    if (request.question !== undefined && typeof judge.generateMany === 'function') {
      return decisions.ask(judge, judgeIdOf(judge), request)
    }
    if (!cache.caches(judge)) return callJudge(judge, request, request.signal)
    const key = cacheKeyOf(judge, request as JudgeRequest<unknown>)
    let shared = inFlight.get(key)
    if (shared === undefined) {
      const asked = request as JudgeRequest<unknown>
      const call = new SharedCall((signal) => cache.answer(judge, asked, key, () => callJudge(judge, asked, signal)))
      inFlight.set(key, call)
      void call.settled.then(() => inFlight.delete(key))
      shared = call
    } else {
      counts.sharedCalls += 1
    }
    return shared.join<T>(request.signal)
  }

  /**
   * One judge call that answers `count` requests (samples of one, or decisions about one state), limited and retried
   * after a 429 like any call; it must give one entry per request.
   */
  const inOneCall = async <Entry extends JudgeResponse<unknown> | Error>(
    judge: JudgeModel,
    signal: AbortSignal | undefined,
    count: number,
    what: string,
    call: () => Promise<readonly Entry[]>,
  ): Promise<readonly Entry[]> => {
    const entries = await limiter.run(
      () => {
        counts.judgeCalls += 1
        return call()
      },
      signal,
      judge.rateLimitRetries ?? 0,
    )
    if (entries.length !== count) {
      throw new JudgeCallError(
        `The judge "${judge.name}" returned ${entries.length} ${what} where ${count} were asked for; it must ` +
          'return one per request.',
      )
    }
    // A judge that had to ask for some answers alone (a model that takes no `n`) made a call for each answer it does
    // not mark as a later sample: the stats count them as the answers' usage does.
    counts.judgeCalls += Math.max(0, entries.filter(ownCall).length - 1)
    return entries
  }

  /**
   * One request for several trials: each trial's answer is its own cache entry (the trial number is in the key);
   * the trials the cache cannot answer are asked in one call when the judge has `generateSamples`, else one call
   * each. In replay mode a trial missing from the cache is an error before anything is asked.
   */
  const generateTrials = async (
    judge: JudgeModel,
    shared: JudgeRequest<unknown>,
    trials: readonly number[],
  ): Promise<readonly JudgeResponse<unknown>[]> => {
    counts.requests += trials.length
    const base = { ...shared, defaultTemperature: shared.defaultTemperature ?? TRIAL_TEMPERATURE }
    const requests = trials.map((trial) => ({ ...base, trial }))
    const caching = cache.caches(judge)
    const keys = requests.map((request) => (caching ? cacheKeyOf(judge, request) : undefined))
    const answers: (JudgeResponse<unknown> | undefined)[] = await Promise.all(
      requests.map((request, index) => {
        const key = keys[index]
        return key === undefined ? undefined : cache.read(judge, request, key)
      }),
    )
    standForTheirCalls(answers)
    const missing = requests.flatMap((_request, index) => (answers[index] === undefined ? [index] : []))
    const signal = shared.signal
    let fresh: readonly JudgeResponse<unknown>[]
    if (missing.length > 1 && typeof judge.generateSamples === 'function') {
      const sampler = judge.generateSamples.bind(judge)
      // A 429 on the shared call is retried like any other call's: trials must not be frailer than one measurement.
      fresh = await inOneCall(judge, signal, missing.length, 'samples from generateSamples', () =>
        sampler(base, missing.length),
      )
    } else {
      fresh = await Promise.all(
        missing.map((index) => callJudge(judge, requests[index] as JudgeRequest<unknown>, signal)),
      )
    }
    for (const [position, index] of missing.entries()) {
      const response = fresh[position] as JudgeResponse<unknown>
      answers[index] = response
      const key = keys[index]
      if (key !== undefined) await cache.write(judge, shared, key, response)
    }
    return answers as JudgeResponse<unknown>[]
  }

  /**
   * One decision request for the decisions about one state: each decision is its own cache entry, and those the
   * cache cannot answer go out in one call (replay mode: a missing one is an error before anything is asked).
   */
  const decisions = new DecisionBatches(async (judge, requests, signal) => {
    const caching = cache.caches(judge)
    const keys = requests.map((request) => (caching ? cacheKeyOf(judge, request) : undefined))
    const answers: (JudgeResponse<unknown> | Error | undefined)[] = await Promise.all(
      requests.map((request, index) => {
        const key = keys[index]
        return key === undefined ? undefined : cache.read(judge, request, key).catch((error: Error) => error)
      }),
    )
    standForTheirCalls(answers)
    // Two identical decisions in one batch (the same test case measured twice at once) are asked once.
    const asked = new Map<string, number>()
    const missing: number[] = []
    const copies: [number, number][] = []
    for (const [index, answer] of answers.entries()) {
      if (answer !== undefined) continue
      const key = keys[index]
      const first = key === undefined ? undefined : asked.get(key)
      if (first !== undefined) copies.push([index, first])
      else {
        if (key !== undefined) asked.set(key, index)
        missing.push(index)
      }
    }
    if (missing.length === 0) return answers as (JudgeResponse<unknown> | Error)[]
    const many = (judge.generateMany as NonNullable<JudgeModel['generateMany']>).bind(judge)
    const fresh = await inOneCall(judge, signal, missing.length, 'answers from generateMany', () =>
      many(missing.map((index) => ({ ...(requests[index] as JudgeRequest<unknown>), signal }))),
    )
    for (const [position, index] of missing.entries()) {
      const answer = fresh[position] as JudgeResponse<unknown> | Error
      answers[index] = answer
      const key = keys[index]
      if (key !== undefined && !(answer instanceof Error)) {
        await cache.write(judge, requests[index] as JudgeRequest<unknown>, key, answer)
      }
    }
    for (const [index, first] of copies) {
      const answer = answers[first] as JudgeResponse<unknown> | Error
      answers[index] = answer instanceof Error ? answer : { ...answer, cached: true }
    }
    return answers as (JudgeResponse<unknown> | Error)[]
  })

  const runtime: JudgeRuntime & { readonly [SHUTDOWN_WATCH]: ShutdownWatch } = {
    [SHUTDOWN_WATCH]: shutdowns,
    cache: mode,
    cacheDir: store.dir,
    concurrency,
    requestsPerMinute,
    wrap(judge) {
      if (isRuntimeJudge(judge)) return judge
      let wrapped = wrappers.get(judge)
      if (wrapped === undefined && isJury(judge)) {
        // A jury is never asked as one judge: each juror answers through the runtime as itself (limits, retries,
        // its own cache entries, its decision batches), and the jury combines them.
        wrapped = Object.defineProperty(
          judge.through((juror) => runtime.wrap(juror)),
          RUNTIME,
          { value: runtime },
        )
        wrappers.set(judge, wrapped)
      }
      if (wrapped === undefined) {
        wrapped = Object.freeze({
          name: judge.name,
          cacheIdentity: judge.cacheIdentity,
          endpoint: judge.endpoint,
          cacheable: judge.cacheable,
          decides: judge.decides,
          // The runtime owns the 429 retries now; a judge wrapped twice must not retry them again.
          rateLimitRetries: 0,
          ...(typeof judge.scrubSecrets === 'function' ? { scrubSecrets: judge.scrubSecrets.bind(judge) } : {}),
          [RUNTIME]: runtime,
          generate: <T>(request: JudgeRequest<T>) => generate(judge, request),
        })
        wrappers.set(judge, wrapped)
      }
      return wrapped
    },
    stats: () => ({
      ...counts,
      inFlight: limiter.inFlight,
      queued: limiter.queued,
      rateLimited: limiter.rateLimits.rateLimited,
      currentConcurrency: limiter.rateLimits.concurrency,
    }),
  }
  return runtime
}

/** An answer that made a call of its own: not an error, and not a later sample of another answer's call. */
function ownCall(entry: JudgeResponse<unknown> | Error): boolean {
  return !(entry instanceof Error) && entry.extraSample !== true
}

/**
 * Cached answers to one group of requests (the trials of a call, a batch of decisions) count the calls that recorded
 * them: a later sample counts none. When the group's cached answers are all later samples (the entry of the one that
 * made their call is gone, or not asked this time), the first stands for their call, so that answers served from
 * the cache always count as at least one cached call.
 */
function standForTheirCalls(answers: (JudgeResponse<unknown> | Error | undefined)[]): void {
  const cached = answers.flatMap((answer, index) =>
    answer === undefined || answer instanceof Error ? [] : [{ answer, index }],
  )
  const first = cached[0]
  if (first === undefined || cached.some(({ answer }) => ownCall(answer))) return
  const { extraSample: _later, ...standing } = first.answer
  answers[first.index] = standing
}

/** True for a judge returned by some runtime's `wrap`. */
export function isRuntimeJudge(judge: JudgeModel): boolean {
  return (judge as { [RUNTIME]?: unknown })[RUNTIME] !== undefined
}

const judgeIds = new WeakMap<JudgeModel, number>()
let judgeCount = 0

/** A number per judge object, so that two judges with the same name and identity never share a trials request. */
function judgeIdOf(judge: JudgeModel): number {
  let id = judgeIds.get(judge)
  if (id === undefined) {
    judgeCount += 1
    id = judgeCount
    judgeIds.set(judge, id)
  }
  return id
}

let processRuntime: JudgeRuntime | undefined

/** The runtime every metric uses unless given a wrapped judge; created from JUDGETREE_* variables on first use. */
export function defaultJudgeRuntime(): JudgeRuntime {
  processRuntime ??= createJudgeRuntime()
  return processRuntime
}

/** The judge as the default runtime serves it, unless a runtime already serves it. */
export function withDefaultRuntime(judge: JudgeModel): JudgeModel {
  return isRuntimeJudge(judge) ? judge : defaultJudgeRuntime().wrap(judge)
}
