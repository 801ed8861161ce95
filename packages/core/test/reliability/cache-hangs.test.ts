import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { useOpenAIServer } from '@judgetree/test-support'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { ConversationalDAGMetric, type MetricResult, OpenAIJudge } from '../../src/index.js'
import { type CacheMode, createJudgeRuntime, verifyCache } from '../../src/runtime.js'
import { bundleScript } from '../support/fork-script.js'
import { PLAYFUL, playfulChatbotDag, playfulConversation, routeByPrompt } from '../support/walkthroughs.js'

// A cache directory is restored from CI caches and tarballs, so it can hold what git never would: a FIFO, a folder
// this user may not read. Neither may hang a run or `judgetree cache verify`, nor end it with a stack trace. And a
// replay run that misses many times must not read the whole cache again for every miss.

// judgetree's own modules see these wrappers (the real calls unless a test says otherwise), so a test can count
// the reads and inject the errors a normal user would get where this process, run as root, does not.
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>()
  return { ...real, readdirSync: vi.fn(real.readdirSync), readFileSync: vi.fn(real.readFileSync) }
})
const realReaddir = (await vi.importActual<typeof import('node:fs')>('node:fs')).readdirSync

const server = useOpenAIServer(
  routeByPrompt([
    [PLAYFUL.summary, { output: 'The user asked about the weather; the assistant teased them.' }],
    [PLAYFUL.satisfied, { reason: 'Every question got an answer.', verdict: true }],
    [PLAYFUL.behaviour, { reason: 'Teasing but friendly.', verdict: 'Playful' }],
  ]),
)

let root: string
let dir: string
const children: ChildProcess[] = []
beforeEach(() => {
  root = fs.mkdtempSync(join(tmpdir(), 'judgetree-hangs-'))
  dir = join(root, 'cache')
})
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill()
  vi.mocked(fs.readdirSync).mockImplementation(realReaddir as typeof fs.readdirSync)
  vi.mocked(fs.readdirSync).mockClear()
  vi.mocked(fs.readFileSync).mockClear()
  fs.rmSync(root, { recursive: true, force: true })
})

function metric(cache: CacheMode, warnings: string[] = []): ConversationalDAGMetric {
  const runtime = createJudgeRuntime({ cache, cacheDir: dir, warn: (message) => warnings.push(message) })
  const judge = new OpenAIJudge({ baseURL: server.baseURL, apiKey: 'sk-test-hangs', maxRetries: 0 })
  return new ConversationalDAGMetric({ name: 'Playful', dag: playfulChatbotDag(), model: runtime.wrap(judge) })
}

/** Records the three answers of the playful DAG and returns the entry files. */
async function record(): Promise<string[]> {
  expect((await metric('read-write').measure(playfulConversation)).score).toBe(1)
  server.requests.length = 0
  return realReaddir(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.json'))
    .map((name) => join(dir, name))
}

/** Replaces `file` with a FIFO that no process writes to: opening it for reading would wait forever. */
function fifoInPlaceOf(file: string): void {
  fs.rmSync(file)
  execFileSync('mkfifo', [file])
  // Should judgetree open it anyway, a writer turns up after 3 s so the test fails on the time instead of hanging.
  children.push(spawn('sh', ['-c', 'sleep 3; exec 3<>"$0"', file], { stdio: 'ignore' }))
}

async function timed(run: () => Promise<MetricResult>): Promise<{ result: MetricResult; ms: number }> {
  const started = performance.now()
  const result = await run()
  return { result, ms: performance.now() - started }
}

/** Runs `judgetree` with `args`; killed after 10 s. */
async function cli(...args: string[]): Promise<{ code: number | null; stderr: string; ms: number }> {
  const script = await bundleScript('../../src/cli.ts')
  const started = performance.now()
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], { timeout: 10_000 }, (error, _stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null
      resolve({ code, stderr, ms: performance.now() - started })
    })
  })
}

describe('a FIFO in place of a cache entry', () => {
  test('a replay measure() ends at once with a miss naming the file, and read-write calls the judge', async () => {
    const [file] = await record()
    fifoInPlaceOf(file as string)
    const { result, ms } = await timed(() => metric('replay').measure(playfulConversation))
    expect(ms).toBeLessThan(2_000)
    expect(result.error?.code).toBe('CACHE_MISS')
    expect(result.error?.message).toContain(file)
    expect(result.error?.message).toContain('not a regular file')

    const warnings: string[] = []
    const rerun = await timed(() => metric('read-write', warnings).measure(playfulConversation))
    expect(rerun.ms).toBeLessThan(2_000)
    expect(rerun.result.score).toBe(1)
    expect(server.requests).toHaveLength(1)
    expect(warnings.join('\n')).toMatch(/ignoring the damaged judge cache entry .*not a regular file/)
    expect(fs.lstatSync(file as string).isFile()).toBe(true)
  })

  test('`judgetree cache verify` lists it and exits 1 instead of hanging', { timeout: 20_000 }, async () => {
    const [file] = await record()
    fifoInPlaceOf(file as string)
    const run = await cli('cache', 'verify', dir)
    expect(run.ms).toBeLessThan(2_500)
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('1 bad file(s)')
    expect(run.stderr).toContain(`${file?.split('/').slice(-2).join('/')}: it is not a regular file`)
    expect(run.stderr).toContain('(2 sound entries)')
  })
})

describe('an unreadable shard directory in `cache verify`', () => {
  test('is listed as a problem with the reason, and the other shards are still checked', async () => {
    const [file, ...others] = await record()
    const shard = (file as string).split('/').at(-2) as string
    const shardPath = join(dir, shard)
    fs.chmodSync(shardPath, 0o000)
    try {
      // As root, chmod 000 does not stop reading: the error a normal user gets is injected at the same call.
      if (process.getuid?.() === 0) {
        vi.mocked(fs.readdirSync).mockImplementation(((path: fs.PathLike, options?: unknown) => {
          if (String(path) === shardPath) {
            throw Object.assign(new Error(`EACCES: permission denied, scandir '${shardPath}'`), { code: 'EACCES' })
          }
          return realReaddir(path, options as undefined)
        }) as typeof fs.readdirSync)
      }
      const report = verifyCache(dir)
      expect(report.ok).toBe(false)
      expect(report.problems).toEqual([
        { file: shard, problem: expect.stringMatching(/^it cannot be read \(EACCES: permission denied, scandir .*\)/) },
      ])
      const sameShard = others.filter((other) => other.split('/').at(-2) === shard).length
      expect(report.entries).toBe(others.length - sameShard)
    } finally {
      fs.chmodSync(shardPath, 0o755)
    }
  })
})

describe('replay misses', () => {
  test('300 misses read the recorded entries once, and every message still lists them', async () => {
    const entries = await record()
    vi.mocked(fs.readdirSync).mockClear()
    vi.mocked(fs.readFileSync).mockClear()
    const replay = metric('replay')
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        replay.measure({
          turns: [
            { role: 'user', content: `Is it sunny in city ${i}?` },
            { role: 'assistant', content: 'Yes.' },
          ],
        }),
      ),
    )
    expect(results.every((result) => result.error?.code === 'CACHE_MISS')).toBe(true)
    expect(results.every((result) => result.error?.message.includes('recorded: 1 task-node@1 answer'))).toBe(true)
    const listings = vi.mocked(fs.readdirSync).mock.calls.filter(([path]) => String(path) === dir)
    expect(listings).toHaveLength(1)
    expect(vi.mocked(fs.readFileSync).mock.calls.length).toBeLessThanOrEqual(entries.length)
  })
})
