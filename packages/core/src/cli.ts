#!/usr/bin/env node
// The `judgetree` command: `judgetree cache verify [dir]` checks a committed judge cache before a replay run in CI.
import { resolve } from 'node:path'
import { isDirectory, verifyCache } from './runtime/cache-verify.js'
import { envCacheDir } from './runtime/limits.js'

const USAGE = [
  'Usage: judgetree cache verify [dir]',
  '',
  '  Checks every entry of a judge cache directory (default: $JUDGETREE_CACHE_DIR, else .judgetree/cache) the way',
  '  replay mode reads it: each must parse, answer the request it is named by and match its checksum, and no file',
  '  may be a symbolic link, a temporary file or a legacy entry without a checksum. Exits 1 listing the bad files.',
].join('\n')

/** Runs the command line; returns the exit code. */
export function main(args: readonly string[], out: (line: string) => void, err: (line: string) => void): number {
  const [group, command, dirArg, ...rest] = args
  if (group === '--help' || group === '-h' || group === undefined) {
    ;(group === undefined ? err : out)(USAGE)
    return group === undefined ? 2 : 0
  }
  if (group !== 'cache' || command !== 'verify' || rest.length > 0) {
    err(`judgetree: unknown command "${args.join(' ')}".\n\n${USAGE}`)
    return 2
  }
  const dir = resolve(dirArg ?? envCacheDir())
  if (!isDirectory(dir)) {
    err(`judgetree cache verify: ${dir} is not a directory. Pass the cache directory, e.g. .judgetree/cache.`)
    return 2
  }
  const report = verifyCache(dir)
  if (report.ok) {
    out(`judgetree cache verify: ${report.entries} entries in ${dir}, all sound.`)
    return 0
  }
  err(`judgetree cache verify: ${report.problems.length} bad file(s) in ${dir} (${report.entries} sound entries):`)
  for (const { file, problem } of report.problems) err(`  ${file}: ${problem}`)
  err(
    'Replay would not answer from these. Review how they got there (a cache is code in replay CI), then re-record: ' +
      'run once with JUDGETREE_CACHE=read-write and a real judge, and commit the cache.',
  )
  return 1
}

process.exitCode = main(
  process.argv.slice(2),
  (line) => process.stdout.write(`${line}\n`),
  (line) => process.stderr.write(`${line}\n`),
)
