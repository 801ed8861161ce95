import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { withFileLock } from './file-lock.js'

const directories: string[] = []
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

function target(): string {
  const directory = mkdtempSync(join(tmpdir(), 'judgetree-lock-'))
  directories.push(directory)
  return join(directory, 'baseline.json')
}

describe('withFileLock', () => {
  test('holds <file>.lock while the action runs, and removes it after, also when the action throws', () => {
    const file = target()
    const seen = withFileLock(file, () => readFileSync(`${file}.lock`, 'utf8'))
    expect(seen.split(' ').slice(0, 2)).toEqual([String(process.pid), hostname()])
    expect(existsSync(`${file}.lock`)).toBe(false)
    expect(() =>
      withFileLock(file, () => {
        throw new Error('boom')
      }),
    ).toThrow('boom')
    expect(existsSync(`${file}.lock`)).toBe(false)
  })

  test("takes over the lock of a process that is gone, or one older than staleMs, but not a live run's", () => {
    const file = target()
    // No process has this id (above the kernel's pid_max).
    writeFileSync(`${file}.lock`, `4194305 ${hostname()} 1-0.5`)
    expect(withFileLock(file, () => 'ran')).toBe('ran')

    writeFileSync(`${file}.lock`, `${process.pid} another-host 1-0.5`)
    const old = new Date(Date.now() - 10_000)
    utimesSync(`${file}.lock`, old, old)
    expect(withFileLock(file, () => 'ran', { staleMs: 5_000 })).toBe('ran')

    writeFileSync(`${file}.lock`, `${process.pid} ${hostname()} 1-0.5`)
    expect(() => withFileLock(file, () => 'ran', { timeoutMs: 100 })).toThrow(
      `another run has held ${file}.lock for too long (process ${process.pid}); if no other run is writing the ` +
        'baseline, delete that file',
    )
    // Not ours: left in place.
    expect(existsSync(`${file}.lock`)).toBe(true)
  })
})
