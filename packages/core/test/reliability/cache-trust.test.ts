import { execFile } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { useOpenAIServer } from '@judgetree/test-support'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { ConversationalDAGMetric, type MetricResult, OpenAIJudge } from '../../src/index.js'
import { type CacheMode, createJudgeRuntime, verifyCache } from '../../src/runtime.js'
import { bundleScript } from '../support/fork-script.js'
import { PLAYFUL, playfulChatbotDag, playfulConversation, routeByPrompt } from '../support/walkthroughs.js'

// The committed cache is the judge in replay CI: an entry that was edited, swapped for a symbolic link or recorded
// without a checksum must never answer silently, and writes must never leave the cache directory.

const server = useOpenAIServer(
  routeByPrompt([
    [PLAYFUL.summary, { output: 'The user asked about the weather; the assistant teased them.' }],
    [PLAYFUL.satisfied, { reason: 'Every question got an answer.', verdict: true }],
    [PLAYFUL.behaviour, { reason: 'Teasing but friendly.', verdict: 'Playful' }],
  ]),
)

let root: string
let dir: string
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'judgetree-trust-'))
  dir = join(root, 'cache')
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

function measure(cache: CacheMode, warnings: string[] = []): Promise<MetricResult> {
  const runtime = createJudgeRuntime({ cache, cacheDir: dir, warn: (message) => warnings.push(message) })
  const judge = new OpenAIJudge({ baseURL: server.baseURL, apiKey: 'sk-test-trust', maxRetries: 0 })
  return new ConversationalDAGMetric({ name: 'Playful', dag: playfulChatbotDag(), model: runtime.wrap(judge) }).measure(
    playfulConversation,
  )
}

/** The recorded entry that answers the behaviour judgement (the one that decides the score). */
function behaviourEntry(): string {
  for (const shard of readdirSync(dir).filter((name) => /^[0-9a-f]{2}$/.test(name))) {
    for (const name of readdirSync(join(dir, shard))) {
      const file = join(dir, shard, name)
      if (readFileSync(file, 'utf8').includes('Teasing but friendly')) return file
    }
  }
  throw new Error('no behaviour entry recorded')
}

async function recorded(): Promise<string> {
  const first = await measure('read-write')
  expect(first.score).toBe(1)
  server.requests.length = 0
  return behaviourEntry()
}

describe('cache entries carry their request digest and a checksum', () => {
  test('a recorded entry names the request it answers and a checksum of its content, and replays', async () => {
    const file = await recorded()
    const entry = JSON.parse(readFileSync(file, 'utf8'))
    expect(file.endsWith(`${entry.key}.json`)).toBe(true)
    expect(entry.checksum).toMatch(/^sha256:[0-9a-f]{64}$/)
    const replayed = await measure('replay')
    expect(replayed.score).toBe(1)
    expect(server.requests).toHaveLength(0)
  })

  test('an edited verdict is a warned miss in read-write, and an error naming the file in replay', async () => {
    const file = await recorded()
    writeFileSync(file, readFileSync(file, 'utf8').replace('"Playful"', '"Rude"'))
    const replay = await measure('replay')
    expect(replay.error?.code).toBe('CACHE_MISS')
    expect(replay.error?.message).toContain(file)
    expect(replay.error?.message).toContain('checksum does not match')
    expect(server.requests).toHaveLength(0)

    const warnings: string[] = []
    const rerun = await measure('read-write', warnings)
    expect(rerun.score).toBe(1)
    expect(server.requests).toHaveLength(1)
    expect(warnings.join('\n')).toMatch(/ignoring the damaged judge cache entry .*checksum does not match/)
  })

  test('an entry swapped for a symbolic link is never followed, even to a well-formed entry', async () => {
    const file = await recorded()
    const poisoned = join(root, 'poisoned.json')
    writeFileSync(poisoned, readFileSync(file, 'utf8').replace('"Playful"', '"Rude"'))
    rmSync(file)
    symlinkSync(poisoned, file)
    const replay = await measure('replay')
    expect(replay.error?.code).toBe('CACHE_MISS')
    expect(replay.error?.message).toContain(file)
    expect(replay.error?.message).toContain('symbolic link')
    expect(replay.error?.message).not.toContain('Rude')

    const warnings: string[] = []
    expect((await measure('read-write', warnings)).score).toBe(1)
    expect(warnings.join('\n')).toContain('symbolic link')
    // The write replaced the link itself: the file it pointed at is untouched.
    expect(readFileSync(poisoned, 'utf8')).toContain('"Rude"')
    expect(existsSync(file)).toBe(true)
    expect(verifyCache(dir)).toMatchObject({ ok: true, problems: [] })
  })

  test('a symbolic link to a secret file outside never shows its content in a warning', async () => {
    const file = await recorded()
    const secret = join(root, 'secret.txt')
    writeFileSync(secret, 'TOPSECRET-credentials')
    rmSync(file)
    symlinkSync(secret, file)
    const warnings: string[] = []
    await measure('read-write', warnings)
    expect(warnings.join('\n')).not.toContain('TOPSECRET')
  })

  test('a symlinked shard directory is neither read nor written through', async () => {
    const file = await recorded()
    const shard = join(dir, file.split('/').at(-2) as string)
    const outside = join(root, 'outside')
    mkdirSync(outside)
    rmSync(shard, { recursive: true })
    symlinkSync(outside, shard)
    const warnings: string[] = []
    const result = await measure('read-write', warnings)
    expect(result.score).toBe(1)
    expect(readdirSync(outside)).toEqual([])
    expect(warnings.join('\n')).toContain('is a symbolic link')
    expect(
      verifyCache(dir)
        .problems.map((problem) => problem.problem)
        .join('\n'),
    ).toContain('symbolic link')
  })

  test('a legacy entry without a checksum is a miss with a warning to re-record it (replay: an error)', async () => {
    const file = await recorded()
    const { checksum: _checksum, ...legacy } = JSON.parse(readFileSync(file, 'utf8'))
    writeFileSync(file, JSON.stringify(legacy, null, 2))
    const replay = await measure('replay')
    expect(replay.error?.code).toBe('CACHE_MISS')
    expect(replay.error?.message).toContain('has no checksum')
    expect(replay.error?.message).toContain('Re-record')
    const warnings: string[] = []
    expect((await measure('read-write', warnings)).score).toBe(1)
    expect(warnings).toHaveLength(1)
    expect(JSON.parse(readFileSync(file, 'utf8')).checksum).toMatch(/^sha256:/)
  })
})

describe('temporary files', () => {
  test('the cache keeps a .gitignore for temp files, and writes sweep stale ones but not fresh ones', async () => {
    const entry = await recorded()
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toContain('*.tmp')
    const shard = join(dir, entry.split('/').at(-2) as string)
    const stale = `${'a'.repeat(64)}.json.999.1.tmp`
    const fresh = `${'b'.repeat(64)}.json.999.2.tmp`
    writeFileSync(join(shard, stale), '{"half": ')
    writeFileSync(join(shard, fresh), '{"half": ')
    const old = new Date(Date.now() - 11 * 60_000)
    utimesSync(join(shard, stale), old, old)
    rmSync(entry)
    rmSync(join(dir, '.gitignore'))
    // A new runtime writing into that shard (the missing entry) sweeps it.
    await measure('read-write')
    expect(server.requests).toHaveLength(1)
    const names = readdirSync(shard)
    expect(names).not.toContain(stale)
    expect(names).toContain(fresh)
    expect(existsSync(join(dir, '.gitignore'))).toBe(true)
  })
})

describe('verifyCache and `judgetree cache verify`', () => {
  test('list every bad file with its problem; the command exits 1 on a bad cache and 0 on a sound one', async () => {
    const file = await recorded()
    const cli = await bundleScript('../../src/cli.ts')
    const run = (...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(process.execPath, [cli, ...args], (error, stdout, stderr) =>
          resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr }),
        )
      })

    const sound = await run('cache', 'verify', dir)
    expect(sound).toMatchObject({ code: 0, stderr: '' })
    expect(sound.stdout).toContain('3 entries')

    writeFileSync(file, readFileSync(file, 'utf8').replace('"Playful"', '"Rude"'))
    const shard = file.split('/').at(-2) as string
    writeFileSync(join(dir, shard, `${shard}${'0'.repeat(62)}.json`), '{"format": 1, "key": ')
    writeFileSync(join(dir, shard, 'x.json.1.1.tmp'), '')
    const report = verifyCache(dir)
    expect(report.ok).toBe(false)
    expect(report.entries).toBe(2)
    expect(report.problems.map((problem) => problem.file)).toEqual(
      [
        `${shard}/${shard}${'0'.repeat(62)}.json`,
        `${shard}/${file.split('/').at(-1)}`,
        `${shard}/x.json.1.1.tmp`,
      ].sort(),
    )
    const bad = await run('cache', 'verify', dir)
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('3 bad file(s)')
    expect(bad.stderr).toContain('checksum does not match')
    expect(bad.stderr).toContain('not valid JSON')
    expect(bad.stderr).toContain('temporary file')
    expect((await run('cache', 'verify', join(root, 'missing'))).code).toBe(2)
    expect((await run('cache', 'check')).code).toBe(2)
  })
})
