import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { writeFileAtomically } from './write-file.js'

let dir: string | undefined
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
})

test('writes the whole file through a temporary one, creating the folder, and leaves no temporary file', () => {
  dir = mkdtempSync(join(tmpdir(), 'judgetree-write-'))
  const file = join(dir, 'deep', 'report.json')
  writeFileAtomically(file, '{"a":1}\n')
  writeFileAtomically(file, '{"a":2}\n')
  expect(readFileSync(file, 'utf8')).toBe('{"a":2}\n')
  expect(readdirSync(join(dir, 'deep'))).toEqual(['report.json'])
})

test('a device such as /dev/null is written to, never replaced by a file', () => {
  writeFileAtomically('/dev/null', 'discarded\n')
  expect(lstatSync('/dev/null').isCharacterDevice()).toBe(true)
})

test('a directory in place of the file is a clear error', () => {
  dir = mkdtempSync(join(tmpdir(), 'judgetree-write-'))
  mkdirSync(join(dir, 'report.json'))
  expect(() => writeFileAtomically(join(dir as string, 'report.json'), 'x')).toThrow(
    /report\.json: it is a directory; name a file instead/,
  )
})
