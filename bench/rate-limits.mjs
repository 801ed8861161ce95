// The run under a provider's rate limit: W Vitest workers × N judge calls against a server that admits R requests
// per second and answers 429 with Retry-After beyond that. Targets (issue 15): wall time ≤ 1.25 × calls ÷ R, 429s
// after the first second ≤ 5% of requests, no test errors.
// Usage: pnpm run build && node bench/rate-limits.mjs [--repo DIR] [--workers 4] [--calls 150] [--per-second 20]
//   [--latency 300]. --repo runs the suite on another checkout (built), e.g. a worktree of an older commit.
import { fileURLToPath } from 'node:url'
import { startLimitedServer } from './limited-server.mjs'
import { removeProject, runVitestSuite } from './vitest-suite.mjs'

const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : process.argv[at + 1]
}
const repo = option('repo', fileURLToPath(new URL('..', import.meta.url)))
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
