import { CacheMissError } from '../errors.js'
import { answerSchemaOf } from '../judge/decision-answer.js'
import type { JudgeModel, JudgeRequest, JudgeResponse } from '../judge/types.js'
import type { CacheLookup, CacheMode, JudgeCacheStore } from './cache.js'
import { askedOf } from './cache-key.js'
import { nearestDifference } from './cache-miss-diff.js'

/**
 * What the cache mode means for one judge call, written once for the single and the trials path: read the entry;
 * in replay mode a miss is an error before anything is asked; otherwise the answer is called for and, in read-write
 * mode, written with what the judge says about itself (name, endpoint) for later replay-miss messages.
 */
export class CachePolicy {
  readonly mode: CacheMode
  readonly #store: JudgeCacheStore
  readonly #onHit: () => void

  constructor(mode: CacheMode, store: JudgeCacheStore, onHit: () => void) {
    this.mode = mode
    this.#store = store
    this.#onHit = onHit
  }

  /** Whether the judge's answers go through the cache at all. */
  caches(judge: JudgeModel): boolean {
    return this.mode !== 'off' && judge.cacheable !== false
  }

  /** The cached answer, or undefined when the judge must be asked; in replay mode a miss throws a CacheMissError. */
  async read(
    judge: JudgeModel,
    request: JudgeRequest<unknown>,
    key: string,
  ): Promise<JudgeResponse<unknown> | undefined> {
    const found = await this.#store.read(key, answerSchemaOf(judge, request))
    if (found.status === 'hit') {
      this.#onHit()
      return found.response
    }
    if (this.mode === 'replay') throw replayMiss(judge, request, key, found, this.#store)
    return undefined
  }

  /** Keeps a fresh answer, in read-write mode. */
  async write(judge: JudgeModel, request: JudgeRequest<unknown>, key: string, response: JudgeResponse<unknown>) {
    if (this.mode !== 'read-write') return
    const summary = {
      judge: judge.name,
      promptVersion: request.promptVersion,
      schemaName: request.schemaName,
      ...(judge.endpoint === undefined ? {} : { endpoint: judge.endpoint }),
      asked: askedOf(judge, request),
    }
    await this.#store.write(key, summary, response, judgeScrubOf(judge))
  }

  /** Read, then call and write on a miss: one call's whole cache path. */
  async answer(
    judge: JudgeModel,
    request: JudgeRequest<unknown>,
    key: string,
    call: () => Promise<JudgeResponse<unknown>>,
  ): Promise<{ readonly response: JudgeResponse<unknown>; readonly fromCache: boolean }> {
    const cached = await this.read(judge, request, key)
    if (cached !== undefined) return { response: cached, fromCache: true }
    const response = await call()
    await this.write(judge, request, key, response)
    return { response, fromCache: false }
  }
}

/** The judge's own scrub of its credentials, for what the cache writes; undefined when it has none. */
function judgeScrubOf(judge: JudgeModel): ((text: string) => string) | undefined {
  return typeof judge.scrubSecrets === 'function' ? judge.scrubSecrets.bind(judge) : undefined
}

function replayMiss(
  judge: JudgeModel,
  request: JudgeRequest<unknown>,
  key: string,
  found: CacheLookup,
  store: JudgeCacheStore,
): CacheMissError {
  const prompt = request.messages.filter((message) => message.role === 'user').at(-1)?.content ?? ''
  const start = prompt.replace(/\s+/g, ' ').trim()
  const damaged = found.status === 'damaged' ? ` (${found.problem})` : ''
  const at = judge.endpoint === undefined ? '' : ` at ${judge.endpoint}`
  return new CacheMissError(
    `The judge cache has no answer for this ${request.promptVersion} call (${trialOf(request)}schema ${request.schemaName}, judge ` +
      `${judge.name}${at}) and is in replay mode, so the judge was not called.\n` +
      `  prompt begins: ${JSON.stringify(start.length > 160 ? `${start.slice(0, 160)}…` : start)}\n` +
      `  expected entry: ${store.fileOf(key)}${damaged}\n` +
      recordedLines(store, judge, request) +
      'To record it, run the suite once with JUDGETREE_CACHE=read-write and a real judge (e.g. OPENAI_API_KEY ' +
      'set), then commit .judgetree/cache. A changed prompt, test case, model, judge option or cacheNamespace ' +
      '(not the base URL: it is not part of the key) needs a new recording.',
    key,
  )
}

/** "trial 6 of a trials run, " for a trial's call: a recording made with fewer trials has no entry for it. */
function trialOf(request: JudgeRequest<unknown>): string {
  return request.trial === undefined ? '' : `trial ${request.trial} of a trials run, `
}

/**
 * What the cache holds for calls of this kind (same prompt version and schema), nearest first: entries by this
 * judge, then by others (a changed model name shows here), newest first within each. Their endpoints say where
 * they were recorded.
 */
function recordedLines(store: JudgeCacheStore, judge: JudgeModel, request: JudgeRequest<unknown>): string {
  const judgeName = judge.name
  const entries = store
    .summaries(2_000)
    .filter((entry) => entry.promptVersion === request.promptVersion && entry.schemaName === request.schemaName)
  if (entries.length === 0) return `  recorded: no ${request.promptVersion} answers in ${store.dir}\n`
  // ISO times sort as plain strings; localeCompare costs ~20 ms a miss on 2,000 entries.
  const nearest = [...entries].sort(
    (a, b) => Number(b.judge === judgeName) - Number(a.judge === judgeName) || compareText(b.createdAt, a.createdAt),
  )
  const sameJudge = entries.filter((entry) => entry.judge === judgeName).length
  const lines = nearest
    .slice(0, 3)
    .map(
      (entry) =>
        `    ${entry.file} (judge ${entry.judge}${entry.endpoint === undefined ? '' : ` at ${entry.endpoint}`}, ` +
        `${entry.createdAt})\n`,
    )
  const closest = nearestDifference(judgeName, askedOf(judge, request), entries)
  const differs =
    closest === undefined
      ? ''
      : `  the closest recording, ${closest.file}, differs in:\n${closest.lines.map((line) => `    ${line}\n`).join('')}`
  return (
    `  recorded: ${entries.length} ${request.promptVersion} answer${entries.length === 1 ? '' : 's'} with schema ` +
    `${request.schemaName}, ${sameJudge} by judge ${judgeName}; the nearest:\n${lines.join('')}${differs}`
  )
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
