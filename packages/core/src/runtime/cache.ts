import { createHash } from 'node:crypto'
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { join, relative } from 'node:path'
import type { z } from 'zod'
import { scrubSecrets } from '../internal/scrub.js'
import { messageOf } from '../internal/text.js'
import type { JudgeResponse } from '../judge/types.js'
import { type AskedMaterial, CACHE_FORMAT_VERSION, canonicalJson } from './cache-key.js'

/** Temporary files of writers that died are removed once they are this old (no live write takes a second). */
export const STALE_TEMP_MS = 10 * 60_000
/**
 * What the cache directory's own .gitignore holds: temporary files of interrupted writes, and this machine's memory
 * of model lookups (model-lifecycle.ts), are never meant to be committed.
 */
export const GITIGNORE =
  '# Written by judgetree: temporary files of interrupted writes are never committed, nor the memory of model ' +
  'lookups.\n*.tmp\n.model-lookups\n'
/** Refuses to open a symbolic link, where the platform can (not on Windows, where lstat still guards). */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0
/** Opening a FIFO for reading waits for a writer: without this flag, a FIFO in the cache hangs the process. */
const NON_BLOCKING = constants.O_NONBLOCK ?? 0

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
  /** What was asked (messages, judge options, trial), scrubbed: a replay miss shows how a call differs from it. */
  readonly asked?: AskedMaterial | undefined
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
  /** What {@link summaries} read, kept for the next replay miss; dropped when this store writes an entry. */
  #summaries: { readonly limit: number; readonly found: readonly RecordedSummary[] } | undefined

  constructor(dir: string, warn: (message: string) => void) {
    this.dir = dir
    this.#warn = warn
  }

  /** `<dir>/<first two hex digits>/<key>.json`: 256 subdirectories keep listings short for big caches. */
  fileOf(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`)
  }

  /**
   * Reads an entry. A damaged one (unparsable, edited, a symbolic link, a legacy entry without a checksum) is
   * reported once per file with the warn callback and treated as a miss; replay mode turns it into an error.
   */
  async read(key: string, schema: z.ZodType): Promise<CacheLookup> {
    const file = this.fileOf(key)
    const linked = linkProblem(this.dir, key)
    if (linked !== undefined) return this.#damaged(file, linked)
    let text: string
    try {
      text = readEntryText(file)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'miss' }
      if ((error as NodeJS.ErrnoException).code === 'ELOOP') return this.#damaged(file, SYMLINK_PROBLEM)
      if ((error as NodeJS.ErrnoException).code === NOT_A_FILE) return this.#damaged(file, NOT_A_FILE_PROBLEM)
      return this.#damaged(file, `it could not be read (${messageOf(error)})`)
    }
    const checked = checkEntryText(text, key)
    if (typeof checked === 'string') return this.#damaged(file, checked)
    const parsed = schema.safeParse(checked.response.value)
    if (!parsed.success) return this.#damaged(file, 'its answer does not match the schema of the request')
    return { status: 'hit', response: { ...checked.response, value: parsed.data, cached: true } }
  }

  /**
   * Writes an entry to a temporary file beside it, then renames it into place: readers never see half a file.
   * Never writes through a symbolic link: a linked shard directory is refused, the temporary file is created
   * exclusively, and the rename replaces a link at the entry's name rather than writing where it points.
   */
  async write(
    key: string,
    summary: CacheEntrySummary,
    response: JudgeResponse<unknown>,
    judgeScrub?: (text: string) => string,
  ): Promise<void> {
    const file = this.fileOf(key)
    const { cached: _cached, ...answer } = response
    // The judge's own scrub knows its key, wherever it came from (an option, a provider's settings).
    const scrubbed = <T>(value: T): T => {
      const text = withoutSecrets(JSON.stringify(value))
      return JSON.parse(judgeScrub === undefined ? text : judgeScrub(text)) as T
    }
    const entry = sealEntry({
      format: CACHE_FORMAT_VERSION,
      key,
      ...summary,
      ...(summary.asked === undefined ? {} : { asked: scrubbed(summary.asked) }),
      createdAt: new Date().toISOString(),
      // Scrubbed before the checksum is taken, so the checksum covers exactly what is on disk.
      response: scrubbed(answer) as StoredEntry['response'],
    })
    const temp = `${file}.${process.pid}.${++this.#writes}.tmp`
    this.#summaries = undefined
    try {
      const dir = join(this.dir, key.slice(0, 2))
      if (!this.#madeDirs.has(dir)) {
        this.#prepare(dir)
        this.#madeDirs.add(dir)
      }
      writeFileSync(temp, `${JSON.stringify(entry, null, 2)}\n`, { flag: 'wx' })
      renameSync(temp, file)
    } catch (error) {
      try {
        rmSync(temp, { force: true })
      } catch {
        // The warning below is what matters; a stray temp file is ignored by readers and by git.
      }
      this.#warnOnce(
        `write:${this.dir}`,
        `judgetree: could not write the judge cache in ${this.#shown(this.dir)} (${messageOf(error)}); ` +
          'answers are used but not cached. Check the directory is writable, or set JUDGETREE_CACHE=read-only.',
      )
    }
  }

  /** Makes a shard directory (refusing a symbolic link), the cache's .gitignore, and sweeps stale temp files. */
  #prepare(dir: string): void {
    if (this.#madeDirs.size === 0) {
      mkdirSync(this.dir, { recursive: true })
      const ignore = join(this.dir, '.gitignore')
      if (!existsSync(ignore)) {
        try {
          writeFileSync(ignore, GITIGNORE, { flag: 'wx' })
        } catch {
          // Another process wrote it first, or the directory is read-only: the write below reports the latter.
        }
      }
    }
    mkdirSync(dir, { recursive: true })
    if (lstatSync(dir).isSymbolicLink()) {
      throw new Error(`${this.#shown(dir)} is a symbolic link, and judgetree never writes outside its cache directory`)
    }
    removeStaleTemps(dir, Date.now())
  }

  /**
   * What the entries say about themselves (at most `limit` files read), for a replay miss to show what was
   * recorded instead; unreadable entries are skipped. The files are read once, at the first call, and again only
   * after this store wrote an entry: a replay run that misses hundreds of times would otherwise read the cache
   * hundreds of times, synchronously. Entries other processes write meanwhile are not seen, which a message can
   * afford.
   */
  summaries(limit: number): readonly RecordedSummary[] {
    if (this.#summaries === undefined || this.#summaries.limit !== limit) {
      this.#summaries = { limit, found: this.#readSummaries(limit) }
    }
    return this.#summaries.found
  }

  #readSummaries(limit: number): RecordedSummary[] {
    const found: RecordedSummary[] = []
    let dirs: string[]
    try {
      dirs = readdirSync(this.dir).filter(
        (name) => /^[0-9a-f]{2}$/.test(name) && lstatSync(join(this.dir, name)).isDirectory(),
      )
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
          // As in lookups, a link's target is never read, nor anything but a regular file.
          const entry = JSON.parse(readEntryText(join(this.dir, dir, name))) as Partial<StoredEntry>
          if (typeof entry.judge !== 'string' || typeof entry.promptVersion !== 'string') continue
          found.push({
            file: this.#shown(join(this.dir, dir, name)),
            judge: entry.judge,
            promptVersion: entry.promptVersion,
            schemaName: String(entry.schemaName),
            endpoint: typeof entry.endpoint === 'string' ? entry.endpoint : undefined,
            asked: askedMaterial(entry.asked),
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

/** An entry's summary, with where it is and when it was recorded. */
export interface RecordedSummary extends CacheEntrySummary {
  readonly file: string
  readonly createdAt: string
}

interface StoredEntry extends CacheEntrySummary {
  readonly format: number
  /** The request digest: the sha256 of everything that decides the answer (also the file's name). */
  readonly key: string
  readonly createdAt: string
  readonly response: Omit<JudgeResponse<unknown>, 'cached'>
  /** sha256 of the entry's other fields as canonical JSON: an edit that does not recompute it is caught. */
  readonly checksum?: string
}

/** The entry with its checksum. */
/** An entry's `asked`, when it has a readable one (entries recorded before it was kept have none). */
function askedMaterial(value: unknown): AskedMaterial | undefined {
  const asked = value as Partial<AskedMaterial> | undefined
  if (typeof asked !== 'object' || asked === null || !Array.isArray(asked.messages)) return undefined
  const messages = asked.messages.filter(
    (message) => typeof message?.role === 'string' && typeof message.content === 'string',
  )
  return messages.length === asked.messages.length ? (asked as AskedMaterial) : undefined
}

function sealEntry(entry: Omit<StoredEntry, 'checksum'>): StoredEntry {
  return { ...entry, checksum: checksumOf(entry) }
}

function checksumOf(entry: Omit<StoredEntry, 'checksum'>): string {
  const { checksum: _checksum, ...content } = entry as StoredEntry
  return `sha256:${createHash('sha256').update(canonicalJson(content)).digest('hex')}`
}

function checksumProblem(entry: StoredEntry): string | undefined {
  if (entry.checksum === undefined) {
    return (
      'it has no checksum: it was recorded before judgetree checked its cache entries, and is not trusted. Re-record ' +
      'it (delete the cache directory, run once with JUDGETREE_CACHE=read-write and a real judge, commit it)'
    )
  }
  if (entry.checksum !== checksumOf(entry)) {
    return 'its checksum does not match its content, so it was edited after it was recorded; re-record it'
  }
  return undefined
}

export const SYMLINK_PROBLEM =
  'it is a symbolic link, and judgetree never follows links in its cache (they could point anywhere); replace it ' +
  'with a recorded entry'

/** Why the entry's shard directory or file may not be read: a symbolic link in either place. */
function linkProblem(dir: string, key: string): string | undefined {
  try {
    if (lstatSync(join(dir, key.slice(0, 2))).isSymbolicLink()) {
      return `its directory ${key.slice(0, 2)}/ is a symbolic link, and judgetree never follows links in its cache`
    }
  } catch {
    return undefined
  }
  return undefined
}

/** The entry's text, refusing a symbolic link (O_NOFOLLOW, and lstat) and anything but a regular file. */
export function readEntryText(file: string): string {
  const stat = lstatSync(file)
  if (stat.isSymbolicLink()) throw Object.assign(new Error('symbolic link'), { code: 'ELOOP' })
  // A FIFO or a device is never opened: opening one can block or act. O_NONBLOCK covers a swap after the lstat.
  if (!stat.isFile()) throw notAFile()
  const fd = openSync(file, constants.O_RDONLY | NO_FOLLOW | NON_BLOCKING)
  try {
    if (!fstatSync(fd).isFile()) throw notAFile()
    return readFileSync(fd, 'utf8')
  } finally {
    closeSync(fd)
  }
}

/** The error code {@link readEntryText} throws for a FIFO, a device, a socket or a directory. */
export const NOT_A_FILE = 'JUDGETREE_NOT_A_FILE'

export const NOT_A_FILE_PROBLEM =
  'it is not a regular file (a FIFO, a device, a socket or a directory), so judgetree does not open it; replace ' +
  'it with a recorded entry'

function notAFile(): Error {
  return Object.assign(new Error('not a regular file'), { code: NOT_A_FILE })
}

/** The parsed entry, or what is wrong with it: unparsable, the wrong shape or key, no checksum, or a wrong one. */
export function checkEntryText(text: string, key: string): StoredEntry | string {
  let entry: StoredEntry
  try {
    entry = JSON.parse(text) as StoredEntry
  } catch (error) {
    // The parser quotes the text, which could be anything: only its position is kept.
    const where = /position \d+/.exec(messageOf(error))?.[0]
    return `it is not valid JSON${where ? ` (at ${where})` : ''}; it was probably cut short`
  }
  return shapeProblem(entry, key) ?? checksumProblem(entry) ?? entry
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

/** Removes `*.tmp` files older than STALE_TEMP_MS in one directory: left by writers that were killed. */
function removeStaleTemps(dir: string, now: number): void {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return
  }
  for (const name of names) {
    if (!name.endsWith('.tmp')) continue
    const path = join(dir, name)
    try {
      if (now - lstatSync(path).mtimeMs > STALE_TEMP_MS) rmSync(path, { force: true })
    } catch {
      // Another process removed or renamed it meanwhile.
    }
  }
}
