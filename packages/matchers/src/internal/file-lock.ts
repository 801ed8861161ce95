// A lock file beside a file that several runs may rewrite at once (the baseline): `<file>.lock`, created
// exclusively, holding who took it. Synchronous, since reporters publish synchronously.
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { dirname } from 'node:path'

/** How long to wait for another run's lock, and when a lock left behind counts as stale. */
export interface FileLockOptions {
  /** @default 60000 */
  readonly timeoutMs?: number | undefined
  /** A lock older than this is stale, whoever holds it: no baseline update takes that long. @default 120000 */
  readonly staleMs?: number | undefined
}

const POLL_MS = 20

/**
 * Runs `action` while holding `<file>.lock`: waits for a lock another run holds, takes over a stale one (its process
 * on this machine is gone, or it is older than `staleMs`), and throws an Error saying which lock file to delete when
 * it cannot get it in `timeoutMs`.
 */
export function withFileLock<T>(file: string, action: () => T, options: FileLockOptions = {}): T {
  const lock = `${file}.lock`
  const owner = `${process.pid} ${hostname()} ${Date.now()}-${Math.random()}`
  const deadline = Date.now() + (options.timeoutMs ?? 60_000)
  mkdirSync(dirname(lock), { recursive: true })
  while (!tryCreate(lock, owner)) {
    const holder = readHolder(lock)
    if (holder !== undefined && isStale(lock, holder, options.staleMs ?? 120_000)) {
      // Only the lock that was judged stale is removed: read it again right before.
      if (readHolder(lock) === holder) rmSync(lock, { force: true })
      continue
    }
    if (Date.now() > deadline) {
      throw new Error(
        `another run has held ${lock} for too long (${holder === undefined ? 'owner unknown' : `process ${holder.split(' ')[0]}`}); if no other run is writing the baseline, delete that file`,
      )
    }
    sleep(POLL_MS)
  }
  try {
    return action()
  } finally {
    if (readHolder(lock) === owner) rmSync(lock, { force: true })
  }
}

function tryCreate(lock: string, owner: string): boolean {
  try {
    writeFileSync(lock, owner, { flag: 'wx' })
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
}

/** The lock's content, `pid host nonce`; undefined when it is gone (or not yet written). */
function readHolder(lock: string): string | undefined {
  try {
    return readFileSync(lock, 'utf8')
  } catch {
    return undefined
  }
}

function isStale(lock: string, holder: string, staleMs: number): boolean {
  const [pid, host] = holder.split(' ')
  if (host === hostname() && pid !== undefined && !isAlive(Number(pid))) return true
  try {
    return Date.now() - statSync(lock).mtimeMs > staleMs
  } catch {
    return false
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}
