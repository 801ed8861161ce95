// Checking a judge cache directory as replay reads it, for CI: `verifyCache()` and `judgetree cache verify`.
import { lstatSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { messageOf } from '../internal/text.js'
import { checkEntryText, NOT_A_FILE, NOT_A_FILE_PROBLEM, readEntryText, SYMLINK_PROBLEM } from './cache.js'
import { MODELS_FILE } from './model-lifecycle.js'

/** `<key>.json`: a sha256 in hex. */
const ENTRY_NAME = /^[0-9a-f]{64}\.json$/
const SHARD_NAME = /^[0-9a-f]{2}$/

/** One file of a cache directory that would not be answered from, and why. */
export interface CacheProblem {
  /** The path relative to the cache directory, e.g. `5c/5c0f….json`. */
  readonly file: string
  readonly problem: string
}

/** What {@link verifyCache} found. */
export interface CacheReport {
  /** The absolute cache directory checked. */
  readonly dir: string
  /** Entries that are sound: they would be answered from. */
  readonly entries: number
  /** Every file that is not a sound entry, in path order; empty when the cache can be trusted. */
  readonly problems: readonly CacheProblem[]
  readonly ok: boolean
}

/**
 * Checks a cache directory as replay mode would read it, for CI before a replay run: every entry must parse, answer
 * the request digest it is named by, match its checksum, and be a regular file in a regular shard directory.
 * Symbolic links, legacy entries without a checksum, temporary files and anything else are listed as problems.
 * Reads only; `judgetree-cache verify [dir]` runs it from the command line.
 *
 * @example
 * const report = verifyCache('.judgetree/cache')
 * if (!report.ok) throw new Error(report.problems.map((p) => `${p.file}: ${p.problem}`).join('\n'))
 */
export function verifyCache(dir: string): CacheReport {
  const problems: CacheProblem[] = []
  let entries = 0
  let names: string[]
  try {
    names = readdirSync(dir).sort()
  } catch (error) {
    return {
      dir,
      entries: 0,
      problems: [{ file: '.', problem: `the cache directory cannot be read (${messageOf(error)})` }],
      ok: false,
    }
  }
  // Every step on a file is guarded: a file another process removes or replaces meanwhile, or one this user may not
  // read, is listed as a problem; the check never stops with a stack trace.
  for (const shard of names) {
    const shardPath = join(dir, shard)
    let entryNames: string[]
    try {
      const stat = lstatSync(shardPath)
      // The .gitignore, and this machine's memory of model lookups (model-lifecycle.ts), which it keeps out of git.
      if ((shard === '.gitignore' || shard === MODELS_FILE) && stat.isFile()) continue
      if (stat.isSymbolicLink()) {
        problems.push({ file: shard, problem: 'a symbolic link, which judgetree never follows in its cache' })
        continue
      }
      if (!stat.isDirectory() || !SHARD_NAME.test(shard)) {
        problems.push({ file: shard, problem: 'not part of a judgetree cache (expected only <2 hex digits>/ folders)' })
        continue
      }
      entryNames = readdirSync(shardPath).sort()
    } catch (error) {
      problems.push({
        file: shard,
        problem: `it cannot be read (${messageOf(error)}); check its owner and permissions`,
      })
      continue
    }
    for (const name of entryNames) {
      const file = `${shard}/${name}`
      if (name.endsWith('.tmp')) {
        problems.push({ file, problem: 'a temporary file left by an interrupted write; delete it' })
        continue
      }
      if (!ENTRY_NAME.test(name) || !name.startsWith(shard)) {
        problems.push({ file, problem: `not a cache entry (expected ${shard}<62 hex digits>.json)` })
        continue
      }
      const problem = entryProblem(join(shardPath, name), name.slice(0, -'.json'.length))
      if (problem === undefined) entries += 1
      else problems.push({ file, problem })
    }
  }
  return { dir, entries, problems, ok: problems.length === 0 }
}

/** What is wrong with the entry at `path` for `key`, read as replay reads it; undefined when it is sound. */
function entryProblem(path: string, key: string): string | undefined {
  try {
    const checked = checkEntryText(readEntryText(path), key)
    return typeof checked === 'string' ? checked : undefined
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP') return SYMLINK_PROBLEM
    if (code === NOT_A_FILE) return NOT_A_FILE_PROBLEM
    return `it could not be read (${messageOf(error)})`
  }
}

/** True when `dir` exists and is a directory (for the CLI's message). */
export function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory()
  } catch {
    return false
  }
}
