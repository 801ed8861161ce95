// The soak: many measurements over several Vitest workers, through the real plugin, the OpenAI SDK and a server
// that fails at random (5% 429 with Retry-After, 2% 5xx, 1% connection reset, 1% malformed JSON: half the
// model's answer cut short, half the HTTP body cut short). Checks that every test ends with a result (pass, fail,
// or error with a message), none lost or counted twice, that the judge cache is valid afterwards (every entry
// parses, no temporary file left), and samples memory (RSS) in every worker and the main process.
// With --trials N each measurement is N trials (one request with `n: N` per step, which the server honours).
// Usage: pnpm run build && node bench/soak.mjs [--measurements 5000] [--workers 4] [--latency 5] [--trials 1] [--repo DIR]
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startLimitedServer } from './limited-server.mjs'
import { filesUnder, removeProject, runVitestSuite } from './vitest-suite.mjs'

const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : process.argv[at + 1]
}
const repo = option('repo', fileURLToPath(new URL('..', import.meta.url)))
const workers = Number(option('workers', 4))
const measurements = Number(option('measurements', 5000))
const latencyMs = Number(option('latency', 5))
const trials = Number(option('trials', 1))
const perWorker = Math.ceil(measurements / workers)
const total = perWorker * workers

const server = await startLimitedServer({
  latencyMs,
  faults: { rateLimit: 0.05, serverError: 0.02, reset: 0.01, malformed: 0.01 },
})
const cacheDir = join(repo, 'packages/matchers/.bench/soak-cache')
let run
try {
  run = await runVitestSuite({
    repo,
    name: 'soak',
    workers,
    perWorker,
    sampleEvery: Math.max(1, Math.floor(perWorker / 10)),
    trials,
    env: { OPENAI_BASE_URL: server.baseURL, JUDGETREE_CACHE: 'read-write', JUDGETREE_CACHE_DIR: cacheDir },
  })
} finally {
  await server.close()
}

// Results: every test once, each with an outcome, and each failure with a message.
const vitestTests = (run.vitest?.testResults ?? []).flatMap((file) => file.assertionResults ?? [])
const names = new Set(vitestTests.map((test) => test.fullName))
const byStatus = count(vitestTests.map((test) => test.status))
const failedWithoutMessage = vitestTests.filter(
  (test) => test.status === 'failed' && !(test.failureMessages ?? []).some((message) => message.trim() !== ''),
).length
const reportTests = run.report?.tests ?? []
const evaluationsPerTest = count(reportTests.map((test) => test.evaluations.length))
const errors = reportTests.flatMap((test) => test.evaluations).filter((evaluation) => evaluation.error !== null)
const errorKinds = count(errors.map((evaluation) => firstWords(evaluation.error?.message ?? '(no message)')))

// The cache: every entry parses; no temporary file left.
const cacheFiles = await filesUnder(cacheDir)
let unparsable = 0
for (const file of cacheFiles.filter((name) => name.endsWith('.json'))) {
  try {
    JSON.parse(await readFile(file, 'utf8'))
  } catch {
    unparsable += 1
  }
}

// Memory: each worker's RSS at its first sample past 10% of its tests, and at its last.
const memory = {}
for (const sample of run.samples) {
  memory[sample.worker] ??= { samples: [] }
  memory[sample.worker].samples.push(Math.round(sample.rssMb))
}

const result = {
  repo,
  measurements: total,
  trials,
  wallS: run.wallMs / 1000,
  exitCode: run.exitCode,
  vitest: {
    tests: vitestTests.length,
    distinctNames: names.size,
    byStatus,
    failedWithoutMessage,
    numTotalTests: run.vitest?.numTotalTests,
  },
  report: {
    tests: reportTests.length,
    evaluationsPerTest,
    summary: run.report?.summary,
    errorKinds,
  },
  summaryLine: run.output.split('\n').find((line) => /^judgetree: \d+ evaluations?, /.test(line)),
  server: {
    requests: server.log.length,
    outcomes: count(server.log.map((entry) => entry.outcome)),
    samplesAsked: count(server.log.filter((entry) => entry.n !== undefined).map((entry) => entry.n)),
  },
  cache: {
    files: cacheFiles.length,
    json: cacheFiles.filter((name) => name.endsWith('.json')).length,
    unparsable,
    other: cacheFiles.filter((name) => !name.endsWith('.json')).map((name) => name.slice(cacheDir.length)),
  },
  workerRssMb: memory,
  mainRssMb: {
    first: round(run.mainRssMb[0]),
    last: round(run.mainRssMb.at(-1)),
    max: round(Math.max(...run.mainRssMb)),
  },
  checks: {
    everyTestOnce: vitestTests.length === total && names.size === total && reportTests.length === total,
    everyTestOneEvaluation: evaluationsPerTest[1] === total,
    everyTestAnOutcome: (byStatus.passed ?? 0) + (byStatus.failed ?? 0) === total && failedWithoutMessage === 0,
    cacheValid: unparsable === 0,
  },
}
await removeProject(run.project)
await removeProject(cacheDir)
console.log(JSON.stringify(result, null, 2))

function count(values) {
  const counts = {}
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1
  return counts
}

function firstWords(message) {
  return message
    .split('\n')[0]
    .replace(/\d+(\.\d+)?/g, 'N')
    .replace(/127\.N\.N\.N:N/g, 'HOST')
    .slice(0, 140)
}

function round(value) {
  return value === undefined || !Number.isFinite(value) ? undefined : Math.round(value)
}
