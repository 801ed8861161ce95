#!/usr/bin/env node
// The `judgetree` command: `judgetree cache verify [dir]` checks a committed judge cache before a replay run in CI;
// `judgetree compare <before> <after>` shows what changed between two runs (another judge, say); `judgetree init`
// sets a project up for its first evaluation.
import { resolve } from 'node:path'
import { compareReports } from './compare/compare-reports.js'
import {
  comparisonJson,
  describeFlipLimit,
  exceedsFlipLimit,
  type FlipLimit,
  parseFlipLimit,
  renderComparison,
} from './compare/render.js'
import { ConfigurationError } from './errors.js'
import { init } from './init/init.js'
import { isDirectory, verifyCache } from './runtime/cache-verify.js'
import { envCacheDir } from './runtime/limits.js'

const USAGE = [
  'Usage: judgetree init [--runner vitest|jest]',
  '       judgetree cache verify [dir]',
  '       judgetree compare <before> <after> [--max-flips N|fraction|N%] [--json]',
  '',
  'init',
  "  Sets up the project in the current folder for judgetree: the runner's config (Vitest or Jest, whichever",
  "  package.json names), the matcher's types file and a first test. Files that exist are kept, and what they need",
  '  is printed instead.',
  '',
  'cache verify',
  '  Checks every entry of a judge cache directory (default: $JUDGETREE_CACHE_DIR, else .judgetree/cache) the way',
  '  replay mode reads it: each must parse, answer the request it is named by and match its checksum, and no file',
  '  may be a symbolic link, a temporary file or a legacy entry without a checksum. Exits 1 listing the bad files.',
  '',
  'compare',
  "  Compares two runs of the same suite: each a runner's report.json, a folder with a run's report.json or its",
  "  report.shard-<i>-of-<n>.json files, evaluate()'s JSON report, or a baseline file. Prints each changed",
  '  evaluation (score before and after, pass/fail flips, the DAG judgements whose verdict changed) and, for the run,',
  "  Cohen's kappa of pass/fail, the mean absolute score change, flips by metric, and each run's calls, tokens and",
  '  cost. --max-flips exits 1 when more evaluations flipped than it allows (a count, a fraction such as 0.05, or',
  '  5%); --json prints the comparison as JSON.',
].join('\n')

type Out = (line: string) => void

/** Runs the command line; returns the exit code. */
export function main(args: readonly string[], out: Out, err: Out): number {
  const [group] = args
  if (group === '--help' || group === '-h' || group === undefined) {
    ;(group === undefined ? err : out)(USAGE)
    return group === undefined ? 2 : 0
  }
  if (group === 'cache' && args[1] === 'verify' && args.length <= 3) return cacheVerify(args[2], out, err)
  if (group === 'compare') return compare(args.slice(1), out, err)
  if (group === 'init') return init(process.cwd(), args.slice(1), out, err)
  err(`judgetree: unknown command "${args.join(' ')}".\n\n${USAGE}`)
  return 2
}

function cacheVerify(dirArg: string | undefined, out: Out, err: Out): number {
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

function compare(args: readonly string[], out: Out, err: Out): number {
  const paths: string[] = []
  let json = false
  let limit: FlipLimit | undefined
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string
    if (arg === '--json') json = true
    else if (arg === '--max-flips' || arg.startsWith('--max-flips=')) {
      if (arg === '--max-flips') index += 1
      const value = arg === '--max-flips' ? args[index] : arg.slice('--max-flips='.length)
      limit = value === undefined ? undefined : parseFlipLimit(value)
      if (limit === undefined) {
        err(
          `judgetree compare: --max-flips takes a count (3), a fraction (0.05) or a percentage (5%); got ${value === undefined ? 'nothing' : JSON.stringify(value)}.`,
        )
        return 2
      }
    } else if (arg.startsWith('-')) {
      err(`judgetree compare: unknown option ${arg}.\n\n${USAGE}`)
      return 2
    } else paths.push(arg)
  }
  if (paths.length !== 2) {
    err(`judgetree compare: give two runs to compare, before and after; got ${paths.length}.\n\n${USAGE}`)
    return 2
  }
  let comparison: ReturnType<typeof compareReports>
  try {
    comparison = compareReports(paths[0] as string, paths[1] as string)
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error
    err(`judgetree compare: ${error.message}`)
    return 2
  }
  const exceeded = limit !== undefined && exceedsFlipLimit(comparison, limit)
  out(json ? comparisonJson(comparison, limit) : renderComparison(comparison))
  if (limit !== undefined && !json) {
    const verdict = exceeded ? 'more than' : 'within'
    ;(exceeded ? err : out)(
      `judgetree compare: ${comparison.flips} of ${comparison.compared} evaluations flipped, ${verdict} --max-flips ${describeFlipLimit(limit)}.`,
    )
  }
  return exceeded ? 1 : 0
}

process.exitCode = main(
  process.argv.slice(2),
  (line) => process.stdout.write(`${line}\n`),
  (line) => process.stderr.write(`${line}\n`),
)
