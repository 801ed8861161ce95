import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleScript, runScript } from '../../test/support/fork-script.js'
import { verifyCache } from './cache-verify.js'

const WORKERS = 4
// Each process writes 2 × PER_WORKER distinct entries (shared keys and its own): 500, as the reliability issue asks.
const PER_WORKER = 250

let dir: string
let script: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'judgetree-cache-procs-'))
  script = await bundleScript('cache-worker.ts')
})
afterAll(() => rm(dir, { recursive: true, force: true }))

describe('one cache directory shared by several processes', () => {
  it('loses and corrupts no entry while 4 processes write and read the same keys at once', async () => {
    const runs = Array.from({ length: WORKERS }, (_, worker) =>
      runScript(script, [dir, String(worker), String(PER_WORKER)]),
    )
    const reports = (await Promise.all(runs.map((run) => run.done))).map(
      (lines) => lines.at(-1) as { wrong: number; warnings: string[]; stats: { requests: number; cacheHits: number } },
    )

    for (const report of reports) {
      expect(report.wrong).toBe(0)
      expect(report.warnings).toEqual([])
      expect(report.stats.requests).toBe(3 * 2 * PER_WORKER)
      // Rounds 2 and 3 are answered from disk, whoever wrote the entry.
      expect(report.stats.cacheHits).toBeGreaterThanOrEqual(2 * 2 * PER_WORKER)
    }
    const all = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile())
    expect(all.filter((file) => file.name.endsWith('.tmp'))).toEqual([])
    expect(all.filter((file) => file.name === '.gitignore')).toHaveLength(1)
    const files = all.filter((file) => file.name.endsWith('.json'))
    expect(verifyCache(dir)).toMatchObject({ ok: true, entries: files.length, problems: [] })
    expect(files).toHaveLength(PER_WORKER + WORKERS * PER_WORKER)
    const answers = new Set<string>()
    for (const file of files) {
      const entry = JSON.parse(await readFile(join(file.parentPath, file.name), 'utf8'))
      expect(file.name).toBe(`${entry.key}.json`)
      answers.add(entry.response.value.answer)
    }
    expect(answers.size).toBe(files.length)
    expect(answers).toContain(`answer to shared ${PER_WORKER - 1}`)
    expect(answers).toContain(`answer to worker ${WORKERS - 1} item ${PER_WORKER - 1}`)
  }, 60_000)
})
