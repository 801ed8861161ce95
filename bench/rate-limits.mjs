// The run under a provider's rate limit: W Vitest workers × N judge calls against a server that admits R requests
// per second and answers 429 with Retry-After beyond that. Targets (issue 15): wall time ≤ 1.25 × calls ÷ R, 429s
// after the first second ≤ 5% of requests, no test errors.
// Usage: pnpm run build && node bench/rate-limits.mjs [--repo DIR] [--workers 4] [--calls 150] [--per-second 20]
//   [--latency 300]. --repo runs the suite on another checkout (built), e.g. a worktree of an older commit.
//
// With --recovery, the pace's recovery instead (issue 24): ~1,000 judge calls through evaluate() against a server
// with a few ms latency and no rate limit, with no 429s, a burst of 30 at the start, and random 3% 429s, each run
// on this checkout's build and on --before DIR's (a checkout with packages/core built), alternating, --rounds times.
// Usage: node bench/rate-limits.mjs --recovery --before DIR [--rounds 3] [--cases 1000]
import { spawn } from 'node:child_process'
import { cp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startLimitedServer } from './limited-server.mjs'
import { removeProject, runVitestSuite } from './vitest-suite.mjs'

const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : process.argv[at + 1]
}
const repo = option('repo', fileURLToPath(new URL('..', import.meta.url)))

if (process.argv.includes('--recovery')) {
  await recovery()
  process.exit(0)
}

const workers = Number(option('workers', 4))
const perWorker = Number(option('calls', 150))
const perSecond = Number(option('per-second', 20))
const latencyMs = Number(option('latency', 300))

const server = await startLimitedServer({ perSecond, latencyMs })
let run
try {
  run = await runVitestSuite({
    repo,
    name: 'rate-limits',
    workers,
    perWorker,
    env: { OPENAI_BASE_URL: server.baseURL, JUDGETREE_CACHE: 'off' },
  })
} finally {
  await server.close()
}
const calls = workers * perWorker
const first = server.log[0]?.at ?? 0
const limited = server.log.filter((entry) => entry.outcome === '429')
const lateLimited = limited.filter((entry) => entry.at > first + 1000)
const span = (server.log.at(-1)?.at ?? first) - first
const idealMs = (calls / perSecond) * 1000
const tests = run.vitest ?? {}
const result = {
  repo,
  calls,
  wallS: run.wallMs / 1000,
  idealS: idealMs / 1000,
  ratio: run.wallMs / idealMs,
  serverSpanS: span / 1000,
  requests: server.log.length,
  rateLimited: limited.length,
  rateLimitedAfterFirstSecond: lateLimited.length,
  lateShare: lateLimited.length / server.log.length,
  testsPassed: tests.numPassedTests,
  testsFailed: tests.numFailedTests,
  evaluationsErrored: run.report?.summary?.errored,
  summaryLine: run.output.split('\n').find((line) => /^judgetree: \d+ evaluations?, /.test(line)),
  exitCode: run.exitCode,
}
if (result.testsPassed !== calls) {
  const failures = (tests.testResults ?? [])
    .flatMap((file) => file.assertionResults ?? [])
    .filter((test) => test.status !== 'passed')
    .slice(0, 3)
    .map((test) => (test.failureMessages ?? []).join(' ').split('\n')[0])
  result.firstFailures = failures
}
await removeProject(run.project)
console.log(JSON.stringify(result, null, 2))

/**
 * The recovery scenarios: each build runs each one `rounds` times, the builds alternating (which goes first swaps
 * each round), so both meet the same machine load. Prints a markdown table of medians, and every run as JSON.
 */
async function recovery() {
  const before = option('before', undefined)
  if (before === undefined) throw new Error('--recovery needs --before DIR: a checkout with packages/core built')
  const rounds = Number(option('rounds', 3))
  const cases = option('cases', '1000')
  // A snapshot of this checkout's build, as run.mjs takes: a rebuild during the run cannot change what is measured.
  const snapshot = join(repo, 'packages/core/node_modules/.cache/judgetree-bench-recovery-dist')
  await rm(snapshot, { recursive: true, force: true })
  await cp(join(repo, 'packages/core/dist'), snapshot, { recursive: true })
  const builds = { before: join(before, 'packages/core/dist/index.js'), after: join(snapshot, 'index.js') }
  // 5 ± 3 ms of latency, as the probe that found the defect measured.
  const server = { latencyMs: 2, jitterMs: 6 }
  const scenarios = [
    { name: 'no 429s', server },
    { name: '429 burst: 30 at the start (retry-after 20 ms), then none', server: { ...server, firstRateLimited: 30 } },
    { name: 'random 3% 429s (retry-after 20–200 ms)', server: { ...server, faults: { rateLimit: 0.03 } } },
  ]
  const runs = []
  for (let round = 0; round < rounds; round++) {
    for (const scenario of scenarios) {
      const order = round % 2 === 0 ? ['before', 'after'] : ['after', 'before']
      for (const build of order) {
        const limited = await startLimitedServer(scenario.server)
        let result
        try {
          result = await runScenario(builds[build], limited.baseURL, cases)
        } finally {
          await limited.close()
        }
        const requested429 = limited.log.filter((entry) => entry.outcome.endsWith('429')).length
        runs.push({ scenario: scenario.name, build, round, ...result, requests: limited.log.length, requested429 })
        process.stderr.write(`bench: ${scenario.name}, ${build}: ${(result.evaluateMs / 1000).toFixed(2)} s\n`)
      }
    }
  }
  console.log(
    recoveryTable(
      runs,
      scenarios.map((scenario) => scenario.name),
    ),
  )
  console.log(JSON.stringify(runs))
}

/**
 * Medians of each build's wall times, and of each run against the same build's no-429 run of the same round: the
 * machine's load moves every run of a round alike, so the ratio within a round is the steadier figure.
 */
function recoveryTable(runs, scenarios) {
  const of = (scenario, build) => runs.filter((run) => run.scenario === scenario && run.build === build)
  const baseline = (run) => of(scenarios[0], run.build).find((other) => other.round === run.round)?.evaluateMs
  const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`
  const lines = [
    '| scenario | before: wall (× no-429, same round) | after: wall (× no-429, same round) | after ÷ before (wall) | 429s served per run (before; after) |',
    '| --- | --- | --- | --- | --- |',
  ]
  for (const scenario of scenarios) {
    const cells = ['before', 'after'].map((build) => {
      const wall = median(of(scenario, build).map((run) => run.evaluateMs))
      const ratio = median(of(scenario, build).map((run) => run.evaluateMs / baseline(run)))
      return `${seconds(wall)} (${ratio.toFixed(2)}×)`
    })
    const walls = ['before', 'after'].map((build) => median(of(scenario, build).map((run) => run.evaluateMs)))
    const served = ['before', 'after'].map((build) =>
      of(scenario, build)
        .map((run) => run.requested429)
        .join(', '),
    )
    lines.push(
      `| ${scenario} | ${cells[0]} | ${cells[1]} | ${(walls[1] / walls[0]).toFixed(2)} | ${served.join('; ')} |`,
    )
  }
  return lines.join('\n')
}

/** Runs bench/scenarios/recovery.mjs on one build in its own process; resolves with the JSON it printed. */
function runScenario(core, baseURL, cases) {
  return new Promise((resolve, reject) => {
    const script = fileURLToPath(new URL('scenarios/recovery.mjs', import.meta.url))
    const child = spawn(process.execPath, [script, baseURL, cases], {
      env: { ...process.env, JUDGETREE_BENCH_CORE: core, JUDGETREE_CONCURRENCY: '16', JUDGETREE_CACHE: 'off' },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
    })
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`scenarios/recovery.mjs exited with ${code}`))
      resolve(JSON.parse(out.trim().split('\n').at(-1)))
    })
  })
}

/** Not lib.mjs's: importing lib.mjs loads a build of core, and this process measures two. */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
