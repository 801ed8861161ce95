import { lstatSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

/**
 * Writes a report file whole: to a temporary file first, then renamed over the target, so a reader never sees half
 * of it. A target that exists but is not a regular file (`/dev/null`, a pipe, a terminal) is written to directly:
 * renaming over it would replace the device with a file.
 */
export function writeFileAtomically(file: string, text: string): void {
  let existing: ReturnType<typeof lstatSync> | undefined
  try {
    existing = lstatSync(file)
  } catch {
    existing = undefined
  }
  if (existing?.isDirectory()) {
    throw new Error(`cannot write ${file}: it is a directory; name a file instead`)
  }
  if (existing !== undefined && !existing.isFile() && !existing.isSymbolicLink()) {
    writeFileSync(file, text)
    return
  }
  mkdirSync(dirname(file), { recursive: true })
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, text)
  renameSync(temporary, file)
}
