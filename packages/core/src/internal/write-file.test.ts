import { execFileSync, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import {
  closeSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { writeFileAtomically } from './write-file.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'judgetree-write-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const linux = process.platform === 'linux'

test('writes the whole file through a temporary one, creating the folder, and leaves no temporary file', () => {
  const file = join(dir, 'deep', 'report.json')
  expect(writeFileAtomically(file, '{"a":1}\n')).toBe('file')
  writeFileAtomically(file, '{"a":2}\n')
  expect(readFileSync(file, 'utf8')).toBe('{"a":2}\n')
  expect(readdirSync(join(dir, 'deep'))).toEqual(['report.json'])
})

test('a device such as /dev/null is written to, never replaced by a file', () => {
  expect(writeFileAtomically('/dev/null', 'discarded\n')).toBe('stream')
  expect(lstatSync('/dev/null').isCharacterDevice()).toBe(true)
})

test('a directory in place of the file is a clear error', () => {
  mkdirSync(join(dir, 'report.json'))
  expect(() => writeFileAtomically(join(dir, 'report.json'), 'x')).toThrow(
    /report\.json: it is a directory; name a file instead/,
  )
})

test('a symbolic link to a device (as /dev/stdout is) stays a link, and the device is written to', () => {
  const link = join(dir, 'stdout')
  symlinkSync('/dev/null', link)
  expect(writeFileAtomically(link, 'discarded\n')).toBe('stream')
  expect(lstatSync(link).isSymbolicLink()).toBe(true)
  expect(readdirSync(dir)).toEqual(['stdout'])
})

test('a symbolic link to a regular file stays a link; the file it leads to is replaced', () => {
  mkdirSync(join(dir, 'real'))
  const target = join(dir, 'real', 'report.json')
  fs.writeFileSync(target, 'old\n')
  const link = join(dir, 'report.json')
  symlinkSync(join('real', 'report.json'), link)
  expect(writeFileAtomically(link, 'new\n')).toBe('file')
  expect(lstatSync(link).isSymbolicLink()).toBe(true)
  expect(readFileSync(target, 'utf8')).toBe('new\n')
  expect(readdirSync(join(dir, 'real'))).toEqual(['report.json'])
})

test.runIf(linux)('/dev/fd/N, /proc/self/fd/N and a link to them write into this process’s descriptor N', () => {
  const file = join(dir, 'out.txt')
  const descriptor = openSync(file, 'w')
  try {
    const link = join(dir, 'stdout-like')
    symlinkSync(`/proc/self/fd/${descriptor}`, link)
    expect(writeFileAtomically(`/dev/fd/${descriptor}`, 'one\n')).toBe('stream')
    expect(writeFileAtomically(`/proc/self/fd/${descriptor}`, 'two\n')).toBe('stream')
    expect(writeFileAtomically(link, 'three\n')).toBe('stream')
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
  } finally {
    closeSync(descriptor)
  }
  expect(readFileSync(file, 'utf8')).toBe('one\ntwo\nthree\n')
  expect(readdirSync(dir).sort()).toEqual(['out.txt', 'stdout-like'])
})

test.runIf(linux)('a descriptor that is not open is a clear error', () => {
  expect(() => writeFileAtomically('/dev/fd/987', 'x')).toThrow('file descriptor 987 is not open in this process')
})

test.runIf(linux)('a named pipe with a reader receives the text; the pipe stays a pipe', async () => {
  const fifo = join(dir, 'pipe')
  execFileSync('mkfifo', [fifo])
  const reader = spawn('cat', [fifo])
  let received = ''
  reader.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    received += chunk
  })
  const closed = new Promise((resolve) => reader.on('close', resolve))
  // The reader opens the pipe when it starts: wait until it has.
  await waitFor(() => readerOpened(reader.pid as number, fifo))
  const text = `${'x'.repeat(200_000)}\n`
  expect(writeFileAtomically(fifo, text)).toBe('stream')
  await closed
  expect(received).toBe(text)
  expect(lstatSync(fifo).isFIFO()).toBe(true)
})

test.runIf(linux)('a named pipe no process reads is an error at once, not a hang', () => {
  const fifo = join(dir, 'pipe')
  execFileSync('mkfifo', [fifo])
  // Should the writer block in open(), this reader (another process, so not blocked with it) frees it after 3 s,
  // and the test fails on the time instead of hanging.
  const rescuer = spawn('sh', ['-c', `sleep 3; exec cat "${fifo}" > /dev/null`])
  try {
    const started = performance.now()
    expect(() => writeFileAtomically(fifo, 'x')).toThrow(`no process is reading the named pipe ${fifo}`)
    expect(performance.now() - started).toBeLessThan(1_000)
  } finally {
    rescuer.kill()
  }
})

test('a write that fails (a full disk) throws its error and leaves no temporary file behind', () => {
  const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
  let writes = 0
  const diskFillsUp: typeof fs = {
    ...fs,
    writeSync: ((...args: Parameters<typeof fs.writeSync>) => {
      writes += 1
      if (writes > 1) throw full
      // The first write lands partly, as on a disk that fills up mid-file.
      return fs.writeSync(args[0], Buffer.from('{"par'))
    }) as typeof fs.writeSync,
  }
  const file = join(dir, 'report.json')
  fs.writeFileSync(file, 'the previous report\n')
  expect(() => writeFileAtomically(file, '{"partial": false}\n', diskFillsUp)).toThrow(full)
  expect(readdirSync(dir)).toEqual(['report.json'])
  expect(readFileSync(file, 'utf8')).toBe('the previous report\n')
})

function readerOpened(pid: number, fifo: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === fifo
      } catch {
        return false
      }
    })
  } catch {
    return false
  }
}

async function waitFor(condition: () => boolean): Promise<void> {
  for (let tries = 0; tries < 200 && !condition(); tries++) await new Promise((resolve) => setTimeout(resolve, 10))
}
