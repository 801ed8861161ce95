// Shutdown warnings: the judge runtime asks the server when each judge model it serves shuts down (at most once a day
// per model and endpoint, remembered beside the cache) and says so once per run. Nothing here may fail or slow a run.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { writeFileAtomically } from '../internal/write-file.js'
import type { JudgeModel } from '../judge/types.js'
import { type CacheMode, GITIGNORE } from './cache.js'
import { claimOnce } from './coordinator-client.js'

/** Where the guide to changing the judge lives; the warning points there. */
export const MIGRATION_GUIDE = "judgetree's docs/migrating-judges.md"
/**
 * The memory of lookups (JSON), in the cache directory, git-ignored there: one entry per model and endpoint. Named
 * like the .gitignore beside it, so that nothing takes it for a cache entry (`<2 hex digits>/<key>.json`).
 */
export const MODELS_FILE = '.model-lookups'
/** A lookup that takes longer is given up, silently: it runs beside the measurements and must never hold them. */
export const LOOKUP_TIMEOUT_MS = 5_000

/** Where a runtime keeps its ShutdownWatch, for tests that wait for its checks. */
export const SHUTDOWN_WATCH = Symbol('judgetree.shutdownWatch')

const DAY_MS = 86_400_000
const DATE = /^\d{4}-\d{2}-\d{2}$/

/** What the memory file holds for one model at one endpoint: the day it was asked, and what the server said. */
interface Remembered {
  readonly checkedOn: string
  /** `YYYY-MM-DD`, or null when the server lists none (or could not be asked that day). */
  readonly shutdownDate: string | null
}

export interface ShutdownWatchOptions {
  readonly mode: CacheMode
  readonly cacheDir: string
  readonly warn: (message: string) => void
  /** The run's coordinator, through which the processes of one run agree who looks a model up and warns. */
  readonly coordinatorUrl: () => string | undefined
}

/**
 * Looks up, once per runtime, the shutdown date of each judge model that can tell one (`JudgeModel.shutdownDate`),
 * and warns once per run when the server gives one. Only in read-write mode, where the answer is remembered for the
 * day. With a coordinator, only the first process of the run to see a model checks it.
 */
export class ShutdownWatch {
  readonly #options: ShutdownWatchOptions
  readonly #seen = new Set<string>()
  readonly #judges = new WeakSet<JudgeModel>()
  readonly #pending = new Set<Promise<void>>()

  constructor(options: ShutdownWatchOptions) {
    this.#options = options
  }

  /** Starts the check of `judge`'s model the first time it is seen; returns at once, and the check never throws. */
  notice(judge: JudgeModel): void {
    // Only where the answer can be remembered, so that a model is asked at most once a day: never in replay (which
    // asks no server), nor with the cache read-only or off.
    if (this.#options.mode !== 'read-write' || typeof judge.shutdownDate !== 'function') return
    // Every judge call passes here: a judge seen before costs one lookup, not a name built to look up.
    if (this.#judges.has(judge)) return
    this.#judges.add(judge)
    const model = `${judge.name} at ${judge.endpoint ?? 'its default endpoint'}`
    if (this.#seen.has(model)) return
    this.#seen.add(model)
    const check = this.#check(judge, model).catch(() => {
      // A lookup is advice: whatever went wrong (a disk, a server, a coordinator), the run goes on without it.
    })
    this.#pending.add(check)
    void check.finally(() => this.#pending.delete(check))
  }

  /** Resolves when every check started so far has ended (for tests; measurements never wait for it). */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending)
  }

  async #check(judge: JudgeModel, model: string): Promise<void> {
    const url = this.#options.coordinatorUrl()
    if (url !== undefined && !(await claimOnce(url, `shutdown-date ${model}`))) return
    const today = dayOf(new Date())
    const file = join(this.#options.cacheDir, MODELS_FILE)
    const remembered = readMemory(file)[model]
    let shutdownDate: string | null
    if (remembered?.checkedOn === today) {
      shutdownDate = remembered.shutdownDate
    } else {
      shutdownDate = await askShutdownDate(judge)
      remember(file, this.#options.cacheDir, model, { checkedOn: today, shutdownDate })
    }
    if (shutdownDate !== null) this.#options.warn(shutdownWarning(judge.name, shutdownDate, today))
  }
}

/** The model's shutdown date as the judge reads it from its server; null when none is listed or the lookup failed. */
async function askShutdownDate(judge: JudgeModel): Promise<string | null> {
  const signal = AbortSignal.timeout(LOOKUP_TIMEOUT_MS)
  try {
    const date = await judge.shutdownDate?.(signal)
    return typeof date === 'string' && DATE.test(date) && !Number.isNaN(Date.parse(date)) ? date : null
  } catch {
    return null
  }
}

/**
 * `judgetree: the judge model gpt-4.1 shuts down on 2027-01-14, in 49 days. …`, counted in whole days from `today`
 * (both UTC dates); a past date says the model already shut down.
 */
export function shutdownWarning(name: string, shutdownDate: string, today: string): string {
  const days = Math.round((Date.parse(shutdownDate) - Date.parse(today)) / DAY_MS)
  const when =
    days > 1
      ? `shuts down on ${shutdownDate}, in ${days} days`
      : days === 1
        ? `shuts down tomorrow, ${shutdownDate}`
        : days === 0
          ? `shuts down today, ${shutdownDate}`
          : `shut down on ${shutdownDate}, ${-days} day${days === -1 ? '' : 's'} ago, according to its server`
  return (
    `judgetree: the judge model ${name} ${when}. Change the judge before then (and measure what the change does ` +
    `to your verdicts): see ${MIGRATION_GUIDE}`
  )
}

/** `YYYY-MM-DD` in UTC. */
function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10)
}

function readMemory(file: string): Record<string, Remembered | undefined> {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { models?: unknown }
    const models = parsed?.models
    if (typeof models !== 'object' || models === null) return {}
    const memory: Record<string, Remembered> = {}
    for (const [model, entry] of Object.entries(models as Record<string, Partial<Remembered> | null>)) {
      const date = entry?.shutdownDate
      if (typeof entry?.checkedOn === 'string' && (date === null || (typeof date === 'string' && DATE.test(date)))) {
        memory[model] = { checkedOn: entry.checkedOn, shutdownDate: date }
      }
    }
    return memory
  } catch {
    // None yet, or unreadable: the models are looked up again, and the file is rewritten.
    return {}
  }
}

/**
 * Adds one model to the memory file, read again just before it is replaced whole: processes of one run remember
 * different models, and one that loses a race only costs the other model a lookup the next day.
 */
function remember(file: string, cacheDir: string, model: string, entry: Remembered): void {
  const models = { ...readMemory(file), [model]: entry }
  const text = `${JSON.stringify({ format: 1, models }, null, 2)}\n`
  writeFileAtomically(file, text)
  keepOutOfGit(cacheDir)
}

/**
 * The cache directory is committed; the memory of lookups is this machine's own. Caches made before it existed have
 * a .gitignore (written by judgetree) that does not name it yet.
 */
function keepOutOfGit(cacheDir: string): void {
  const ignore = join(cacheDir, '.gitignore')
  let text: string
  try {
    text = readFileSync(ignore, 'utf8')
  } catch {
    // No cache entry was written yet: the cache's own .gitignore, which its first entry would have written.
    writeFileSync(ignore, GITIGNORE, { flag: 'wx' })
    return
  }
  if (text.split(/\r?\n/).includes(MODELS_FILE)) return
  appendFileSync(ignore, `${text === '' || text.endsWith('\n') ? '' : '\n'}${MODELS_FILE}\n`)
}
