// Runs every benchmark scenario several times, each in a fresh process, and prints a markdown table of medians.
// Usage: pnpm --filter @judgetree/core build && node bench/run.mjs [--runs N]
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { cp, mkdtemp, rm } from 'node:fs/promises'
import { cpus, freemem, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

// Every scenario loads the same snapshot of packages/core/dist, placed inside the package so that its imports
// (zod, openai) resolve: a rebuild while the benchmark runs cannot change what is measured.
const dist = fileURLToPath(new URL('../packages/core/dist', import.meta.url))
if (!existsSync(join(dist, 'index.js'))) {
  console.error('bench: packages/core is not built; run `pnpm --filter @judgetree/core build` first.')
  process.exit(1)
}
const snapshot = fileURLToPath(new URL('../packages/core/node_modules/.cache/judgetree-bench-dist', import.meta.url))
await rm(snapshot, { recursive: true, force: true })
await cp(dist, snapshot, { recursive: true })
process.env.JUDGETREE_BENCH_CORE = join(snapshot, 'index.js')
const { configureServer, median } = await import('./lib.mjs')

const at = process.argv.indexOf('--runs')
const RUNS = at === -1 ? 5 : Number(process.argv[at + 1])
const here = (file) => fileURLToPath(new URL(file, import.meta.url))

/** Runs a scenario script in its own process and returns the JSON it printed last. */
function scenario(file, args = [], { env = {}, node = [] } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [...node, here(file), ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
    })
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`${file} exited with ${code}`))
      const result = JSON.parse(out.trim().split('\n').at(-1))
      resolve({ ...result, processMs: performance.now() - started })
    })
  })
}

function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [here('server.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] })
    child.stdout.once('data', (chunk) => resolve({ child, ...JSON.parse(String(chunk).trim()) }))
    child.once('error', reject)
  })
}

const log = (message) => process.stderr.write(`bench: ${message}\n`)
const fmt = (value, digits = 0) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
const rows = []
const server = await startServer()
try {
  for (const inFlight of [8, 64]) {
    log(`engine, ${inFlight} measurements in flight`)
    const { rates } = await scenario('scenarios/engine.mjs', [String(RUNS), '20000', String(inFlight)])
    rows.push([
      `Engine overhead: playful-chatbot DAG measurements/s, in-process instant judge, through the runtime (limit 8), ${inFlight} in flight`,
      '≥ 10,000/s',
      `${fmt(median(rates))}/s`,
      `runs: ${rates.map((rate) => fmt(rate)).join(', ')}`,
    ])
  }

  log('openai SDK over loopback, zero latency')
  await configureServer(server.url, 0)
  const sdk = await scenario('scenarios/sdk.mjs', [server.baseURL, String(RUNS), '3000', '32'])
  rows.push([
    'Judge calls/s through the real `openai` SDK to the bench server, 0 ms latency, limit 32',
    '≥ 500/s',
    `${fmt(median(sdk.rates))}/s`,
    `runs: ${sdk.rates.map((rate) => fmt(rate)).join(', ')}`,
  ])

  log('200 conversations × playful chatbot, 200 ms latency, limit 16: cold, then warm cache')
  await configureServer(server.url, 200)
  const cold = []
  const warm = []
  for (let run = 0; run < Math.min(RUNS, 3); run++) {
    const cacheDir = await mkdtemp(join(tmpdir(), 'judgetree-bench-cache-'))
    const env = { JUDGETREE_CONCURRENCY: '16', JUDGETREE_CACHE: 'read-write', JUDGETREE_CACHE_DIR: cacheDir }
    cold.push(await scenario('scenarios/suite.mjs', [server.baseURL, server.url, '200'], { env }))
    warm.push(await scenario('scenarios/suite.mjs', [server.baseURL, server.url, '200'], { env }))
    await rm(cacheDir, { recursive: true, force: true })
  }
  const ideal = (cold[0].judgeCalls / 16) * 200
  const ratios = cold.map((run) => run.evaluateMs / ideal)
  rows.push([
    `200 conversations × playful-chatbot DAG (${cold[0].judgeCalls} judge calls), 200 ms latency, limit 16: wall / ideal (${fmt(ideal / 1000, 2)} s)`,
    '≤ 1.10×',
    `${fmt(median(ratios), 3)}× (${fmt(median(cold.map((run) => run.evaluateMs)) / 1000, 2)} s)`,
    `runs: ${ratios.map((ratio) => fmt(ratio, 3)).join(', ')}; HTTP requests: ${cold.map((run) => run.requests).join(', ')}`,
  ])
  rows.push([
    'Warm-cache re-run of the same suite (a new process): HTTP requests; evaluate() time; whole process',
    '0 requests, < 1 s',
    `${Math.max(...warm.map((run) => run.requests))} requests; ${fmt(median(warm.map((run) => run.evaluateMs)))} ms; ${fmt(median(warm.map((run) => run.processMs)))} ms`,
    `process runs (ms): ${warm.map((run) => fmt(run.processMs)).join(', ')}`,
  ])

  log('memory over 10,000 measurements')
  const memory = []
  for (let run = 0; run < Math.min(RUNS, 3); run++) {
    memory.push(await scenario('scenarios/memory.mjs', ['10000', '1000'], { node: ['--expose-gc'] }))
  }
  rows.push([
    '10,000 measurements in one process (cache on): RSS after 1,000 (warm) → at the end',
    '< 300 MB, no growth',
    `${fmt(median(memory.map((run) => run.rssWarmMb)))} → ${fmt(median(memory.map((run) => run.rssEndMb)))} MB (heap ${fmt(median(memory.map((run) => run.heapWarmMb)), 1)} → ${fmt(median(memory.map((run) => run.heapEndMb)), 1)} MB)`,
    `RSS every 1,000 after warm-up, run 1 (MB): ${memory[0].rssSamplesMb.join(', ')}; peak per run: ${memory.map((run) => fmt(run.rssMaxMb)).join(', ')}`,
  ])

  log('trials: 5 trials of G-Eval over 100 cases, with n and without')
  await configureServer(server.url, 0)
  const trials = await scenario('scenarios/trials.mjs', [server.baseURL, server.url, '100', '5'])
  const { one, withN, withoutN } = trials
  const ratioOf = (run) => fmt(run.promptTokens / one.promptTokens, 2)
  rows.push([
    'Trials: 5 trials of G-Eval over 100 cases with `n` (one request for the five samples): HTTP requests; prompt tokens against one trial',
    '≤ 1.3× one trial’s prompt tokens',
    `${withN.requests} requests; ${fmt(withN.promptTokens)} prompt tokens (${ratioOf(withN)}×)`,
    `one trial: ${one.requests} requests, ${fmt(one.promptTokens)} prompt tokens (100 scores + the steps once)`,
  ])
  rows.push([
    'Trials: the same 5 trials without `n` (a judge without generateSamples, e.g. aiSdkJudge): HTTP requests; prompt tokens',
    'one request per trial',
    `${withoutN.requests} requests; ${fmt(withoutN.promptTokens)} prompt tokens (${ratioOf(withoutN)}×)`,
    '',
  ])

  log('judge calls per measurement')
  const calls = await scenario('scenarios/calls.mjs')
  for (const row of calls.rows) rows.push([`Judge calls: ${row.label}`, row.expected, row.calls.join(', '), ''])
} finally {
  server.child.kill()
}

const table = [
  '| scenario | target | measured (median) | detail |',
  '| --- | --- | --- | --- |',
  ...rows.map((row) => `| ${row.join(' | ')} |`),
]
console.log(table.join('\n'))
console.log(
  `\nNode ${process.version}, ${cpus().length} × ${cpus()[0]?.model}, ${fmt(totalmem() / 2 ** 30, 1)} GiB RAM ` +
    `(${fmt(freemem() / 2 ** 30, 1)} free), ${RUNS} runs per scenario (3 for the suite and memory).`,
)
