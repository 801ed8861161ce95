// Runs a generated test suite through real Vitest with the judgetree plugin, as a user's project would: N test
// files (one per worker), each making M `toPassMetric` measurements of a one-judge-call DAG against OPENAI_BASE_URL.
// The project is written under <repo>/packages/matchers/.bench/<name> (so that it resolves the repo's own
// @judgetree/matchers and @judgetree/core, built) and removed afterwards.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'

const CONFIG = (workers) => `import { judgetree } from '@judgetree/matchers/vitest'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  plugins: [judgetree()],
  test: {
    include: ['tests/**/*.test.mjs'],
    pool: 'forks',
    maxWorkers: ${workers},
    fileParallelism: true,
    maxConcurrency: 64,
    testTimeout: 600_000,
  },
})
`

const TEST_FILE = (worker, count, sampleEvery, trials) => `import { appendFileSync } from 'node:fs'
import { describe, test } from 'vitest'
import { BinaryJudgementNode, DAGMetric, DeepAcyclicGraph, LLMTestCaseParams, OpenAIJudge, VerdictNode } from '@judgetree/core'

const judge = new OpenAIJudge({ model: 'gpt-4.1', apiKey: 'sk-bench' })
const metric = new DAGMetric({
  name: 'Answers the question',
  threshold: 0.5,
  model: judge,
  dag: new DeepAcyclicGraph({
    rootNodes: [
      new BinaryJudgementNode({
        criteria: 'Does the actual output answer the input?',
        evaluationParams: [LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT],
        children: [new VerdictNode({ verdict: true, score: 10 }), new VerdictNode({ verdict: false, score: 0 })],
      }),
    ],
  }),
})
let done = 0
const sample = () =>
  appendFileSync(
    process.env.BENCH_SAMPLES,
    JSON.stringify({ worker: ${worker}, pid: process.pid, done, rssMb: process.memoryUsage().rss / 2 ** 20 }) + '\\n',
  )
sample()

describe.concurrent('worker ${worker}', () => {
  for (let i = 0; i < ${count}; i++) {
    test(\`measurement ${worker}-\${i}\`, async ({ expect }) => {
      try {
        await expect({ input: \`Question ${worker}-\${i}?\`, actualOutput: \`Answer ${worker}-\${i}.\` }).toPassMetric(metric${trials > 1 ? `, { trials: ${trials} }` : ''})
      } finally {
        done += 1
        if (done % ${sampleEvery} === 0) sample()
      }
    })
  }
})
`

/**
 * @returns {Promise<{ wallMs: number, exitCode: number | null, output: string, report: any, vitest: any,
 *   samples: any[], mainRssMb: number[] }>}
 */
export async function runVitestSuite({ repo, name, workers, perWorker, env = {}, sampleEvery = 50, trials = 1 }) {
  const matchers = resolve(repo, 'packages/matchers')
  const vitestBin = resolve(repo, 'node_modules/vitest/vitest.mjs')
  if (
    !existsSync(join(matchers, 'dist/vitest/index.js')) ||
    !existsSync(resolve(repo, 'packages/core/dist/index.js'))
  ) {
    throw new Error(`bench: ${repo} is not built; run \`pnpm run build\` there first.`)
  }
  const project = join(matchers, '.bench', name)
  await rm(project, { recursive: true, force: true })
  await mkdir(join(project, 'tests'), { recursive: true })
  await writeFile(join(project, 'vitest.config.mjs'), CONFIG(workers))
  for (let worker = 0; worker < workers; worker++) {
    await writeFile(join(project, 'tests', `w${worker}.test.mjs`), TEST_FILE(worker, perWorker, sampleEvery, trials))
  }
  const samples = join(project, 'samples.jsonl')
  const started = performance.now()
  const child = spawn(
    process.execPath,
    [vitestBin, 'run', '--root', project, '--reporter=dot', '--reporter=json', '--outputFile.json=vitest.json'],
    {
      cwd: project,
      env: { ...process.env, CI: '1', GITHUB_STEP_SUMMARY: '', BENCH_SAMPLES: samples, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  child.stdout.on('data', (chunk) => {
    output += chunk
  })
  child.stderr.on('data', (chunk) => {
    output += chunk
  })
  // The main process holds the coordinator and the reporters: sample its memory too.
  const mainRssMb = []
  const sampler = setInterval(() => {
    try {
      mainRssMb.push(
        Number(
          execFileSync('ps', ['-o', 'rss=', '-p', String(child.pid)])
            .toString()
            .trim(),
        ) / 1024,
      )
    } catch {}
  }, 2_000)
  const exitCode = await new Promise((resolvePromise) => child.on('exit', (code) => resolvePromise(code)))
  clearInterval(sampler)
  const wallMs = performance.now() - started
  const read = async (file) => JSON.parse(await readFile(join(project, file), 'utf8'))
  const result = {
    wallMs,
    exitCode,
    output,
    report: await read('.judgetree/report.json').catch(() => undefined),
    vitest: await read('vitest.json').catch(() => undefined),
    samples: (await readFile(samples, 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line)),
    mainRssMb,
    project,
  }
  return result
}

/** Every file under `dir`, recursively. */
export async function filesUnder(dir) {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [])
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath ?? entry.path, entry.name))
}

export async function removeProject(project) {
  await rm(project, { recursive: true, force: true })
}
