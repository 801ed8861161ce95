import { mkdir, rm, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

/** A lock older than this was left by a killed test process: it is taken over. */
const STALE_MS = 10 * 60_000

/**
 * Runs `work` while holding the lock at `path` (a directory, made atomically), across processes: two test files that
 * run the same example folder, and so write the same `.judgetree/report.json`, take turns instead of reading each
 * other's report. Waits up to `timeoutMs` for the lock.
 */
export async function withDirLock<T>(path: string, work: () => Promise<T>, timeoutMs = 5 * 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  await mkdir(dirname(path), { recursive: true })
  for (;;) {
    try {
      await mkdir(path)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const age = await stat(path).then(
        (found) => Date.now() - found.mtimeMs,
        () => 0,
      )
      if (age > STALE_MS) await rm(path, { recursive: true, force: true })
      else if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for the lock ${path}`)
      else await sleep(100)
    }
  }
  try {
    return await work()
  } finally {
    await rm(path, { recursive: true, force: true })
  }
}
