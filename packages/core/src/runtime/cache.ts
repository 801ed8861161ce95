import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import type { z } from 'zod'
import { scrubSecrets } from '../internal/scrub.js'
import { messageOf } from '../internal/text.js'
import type { JudgeResponse } from '../judge/types.js'
import { CACHE_FORMAT_VERSION } from './cache-key.js'

/**
 * How the judge cache is used: `read-write` answers from the cache and records misses; `read-only` answers from it
 * but never writes; `replay` answers only from it (a miss is an error, so CI needs no API key); `off` bypasses it.
 */
export type CacheMode = 'read-write' | 'read-only' | 'replay' | 'off'

/** Every cache mode, in the order the docs list them. */
export const CACHE_MODES: readonly CacheMode[] = ['read-write', 'read-only', 'replay', 'off']

/** What a cache file says about the call it answers, for people reading a committed cache. */
export interface CacheEntrySummary {
  readonly judge: string
  readonly promptVersion: string
  readonly schemaName: string
  /** The judge's endpoint when recorded (host and path), when the judge names one: for miss messages. */
  readonly endpoint?: string | undefined
}

/** The outcome of looking a key up: an answer, nothing, or a file that could not be used. */
export type CacheLookup =
  | { readonly status: 'hit'; readonly response: JudgeResponse<unknown> }
  | { readonly status: 'miss' }
  | { readonly status: 'damaged'; readonly problem: string }

/**
 * Judge answers on disk, one JSON file per key, written atomically so many processes can share a directory.
 * The file calls are synchronous on purpose: an entry is a few KB on a local disk, and Node's promise-based fs
 * costs several times more CPU per call (FileHandles, thread-pool hops) than the blocking calls take.
 */
export class JudgeCacheStore {
  readonly dir: string
  readonly #warn: (message: string) => void
  readonly #warned = new Set<string>()
  readonly #madeDirs = new Set<string>()
  #writes = 0

  constructor(dir: string, warn: (message: string) => void) {
    this.dir = dir
    this.#warn = warn
  }

  /** `<dir>/<first two hex digits>/<key>.json`: 256 subdirectories keep listings short for big caches. */
  fileOf(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`)
  }

  /** Reads an entry. A damaged one is reported once per file with console.warn and treated as a miss. */
  async read(key: string, schema: z.ZodType): Promise<CacheLookup> {
    const file = this.fileOf(key)
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'miss' }
      return this.#damaged(file, `it could not be read (${messageOf(error)})`)
    }
    let entry: StoredEntry
    try {
      entry = JSON.parse(text) as StoredEntry
    } catch (error) {
      return this.#damaged(file, `it is not valid JSON (${messageOf(error)}); it was probably cut short`)
    }
    const problem = shapeProblem(entry, key)
    if (problem !== undefined) return this.#damaged(file, problem)
    const parsed = schema.safeParse(entry.response.value)
    if (!parsed.success) return this.#damaged(file, 'its answer does not match the schema of the request')
    return { status: 'hit', response: { ...entry.response, value: parsed.data, cached: true } }
  }

  /** Writes an entry to a temporary file beside it, then renames it into place: readers never see half a file. */
  async write(key: string, summary: CacheEntrySummary, response: JudgeResponse<unknown>): Promise<void> {
    const file = this.fileOf(key)
    const { cached: _cached, ...answer } = response
    const entry: StoredEntry = {
      format: CACHE_FORMAT_VERSION,
      key,
      ...summary,
      createdAt: new Date().toISOString(),
      response: answer,
    }
    const temp = `${file}.${process.pid}.${++this.#writes}.tmp`
    try {
      const dir = join(this.dir, key.slice(0, 2))
      if (!this.#madeDirs.has(dir)) {
        mkdirSync(dir, { recursive: true })
        this.#madeDirs.add(dir)
      }
      writeFileSync(temp, withoutSecrets(`${JSON.stringify(entry, null, 2)}\n`))
      renameSync(temp, file)
    } catch (error) {
      try {
        rmSync(temp, { force: true })
      } catch {
        // The warning below is what matters; a stray temp file is ignored by readers.
      }
      this.#warnOnce(
        `write:${this.dir}`,
        `judgetree: could not write the judge cache in ${this.#shown(this.dir)} (${messageOf(error)}); ` +
          'answers are used but not cached. Check the directory is writable, or set JUDGETREE_CACHE=read-only.',
      )
    }
  }

  /**
   * What the entries say about themselves (at most `limit` files read), for a replay miss to show what was
   * recorded instead; unreadable entries are skipped.
   */
  summaries(limit: number): (CacheEntrySummary & { readonly file: string; readonly createdAt: string })[] {
    const found: (CacheEntrySummary & { file: string; createdAt: string })[] = []
    let dirs: string[]
    try {
      dirs = readdirSync(this.dir).filter((name) => /^[0-9a-f]{2}$/.test(name))
    } catch {
      return found
    }
    for (const dir of dirs) {
      let names: string[]
      try {
        names = readdirSync(join(this.dir, dir)).filter((name) => name.endsWith('.json'))
      } catch {
        continue
      }
      for (const name of names) {
        if (found.length >= limit) return found
        try {
          const entry = JSON.parse(readFileSync(join(this.dir, dir, name), 'utf8')) as Partial<StoredEntry>
          if (typeof entry.judge !== 'string' || typeof entry.promptVersion !== 'string') continue
          found.push({
            file: this.#shown(join(this.dir, dir, name)),
            judge: entry.judge,
            promptVersion: entry.promptVersion,
            schemaName: String(entry.schemaName),
            endpoint: typeof entry.endpoint === 'string' ? entry.endpoint : undefined,
            createdAt: String(entry.createdAt),
          })
        } catch {
          // A damaged entry has its own warning when it is looked up.
        }
      }
    }
    return found
  }

  #damaged(file: string, problem: string): CacheLookup {
    this.#warnOnce(
      file,
      `judgetree: ignoring the damaged judge cache entry ${this.#shown(file)}: ${problem}. ` +
        'It counts as a miss and is replaced the next time the call is made in read-write mode.',
    )
    return { status: 'damaged', problem: `${this.#shown(file)} is damaged: ${problem}` }
  }

  #warnOnce(id: string, message: string): void {
    if (this.#warned.has(id)) return
    this.#warned.add(id)
    this.#warn(message)
  }

  #shown(path: string): string {
    const shown = relative(process.cwd(), path)
    return shown.startsWith('..') || shown === '' ? path : shown
  }
}

interface StoredEntry extends CacheEntrySummary {
  readonly format: number
  readonly key: string
  readonly createdAt: string
  readonly response: Omit<JudgeResponse<unknown>, 'cached'>
}

function shapeProblem(entry: StoredEntry, key: string): string | undefined {
  if (typeof entry !== 'object' || entry === null) return 'it is not a JSON object'
  if (entry.format !== CACHE_FORMAT_VERSION) return `its format is ${String(entry.format)}, not ${CACHE_FORMAT_VERSION}`
  if (entry.key !== key) return 'it holds the answer to a different key (was it renamed?)'
  const response = entry.response
  if (typeof response !== 'object' || response === null || !('value' in response)) return 'it has no answer'
  const usage = response.usage as unknown as Partial<Record<string, unknown>> | undefined
  if (typeof usage?.promptTokens !== 'number' || typeof usage.completionTokens !== 'number') {
    return 'its usage is missing'
  }
  return undefined
}

/** Belt and braces: an API key must never reach a file that people commit, even if a server echoed it back. */
function withoutSecrets(text: string): string {
  return scrubSecrets(text, process.env.OPENAI_API_KEY?.trim())
}
