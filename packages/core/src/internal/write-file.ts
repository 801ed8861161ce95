import * as nodeFs from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'

/** The file-system calls the writer makes; tests pass a copy with one of them failing (a full disk, say). */
export type WriterFileSystem = Pick<
  typeof nodeFs,
  | 'closeSync'
  | 'fstatSync'
  | 'mkdirSync'
  | 'openSync'
  | 'readlinkSync'
  | 'realpathSync'
  | 'renameSync'
  | 'rmSync'
  | 'statSync'
  | 'writeSync'
>

/** How a report reached its target: a regular file replaced whole, or text written into a stream (a device, a pipe). */
export type WrittenTo = 'file' | 'stream'

/**
 * Writes a report file whole. A regular file (or a new one) is written to a temporary file first and renamed over
 * the target, so a reader never sees half of it, and the temporary file is removed when writing fails (a full
 * disk). Symbolic links are followed first: the file they lead to is replaced, never the link.
 *
 * Anything else is written into, never replaced: a device (`/dev/null`, a terminal), a named pipe (opened without
 * waiting: one no process reads is an error, not a hang), and a file descriptor (`/dev/stdout`, `/dev/fd/N`,
 * `/proc/self/fd/N`: this process's own descriptor N, appended to whatever it is). Returns which of the two it was.
 */
export function writeFileAtomically(file: string, text: string, fs: WriterFileSystem = nodeFs): WrittenTo {
  const target = resolveTarget(file, fs)
  if (target.descriptor !== undefined) {
    writeToDescriptor(target.descriptor, text, fs)
    return 'stream'
  }
  const existing = statOrUndefined(target.path, fs)
  if (existing?.isDirectory()) {
    throw new Error(`cannot write ${file}: it is a directory; name a file instead`)
  }
  if (existing !== undefined && !existing.isFile()) {
    writeIntoStream(target.path, existing, text, fs)
    return 'stream'
  }
  replaceFile(target.path, text, fs)
  return 'file'
}

/**
 * Follows the symbolic links of the last part of `file` one at a time, so that a link into a descriptor folder
 * (`/dev/stdout` → `/proc/self/fd/1`) is recognised before its target (a pipe has no path) is read.
 */
function resolveTarget(file: string, fs: WriterFileSystem): { path: string; descriptor?: number } {
  let path = resolve(file)
  for (let hops = 0; hops < 40; hops++) {
    const folder = realFolder(dirname(path), fs)
    const name = basename(path)
    const own = ownDescriptor(folder, name)
    if (own !== undefined) return { path, descriptor: own }
    const full = join(folder, name)
    let link: string
    try {
      link = fs.readlinkSync(full)
    } catch {
      // Not a link (EINVAL) or not there yet (ENOENT): this is the path to write.
      return { path: full }
    }
    path = resolve(folder, link)
  }
  throw new Error(`cannot write ${file}: too many symbolic links lead to it`)
}

function realFolder(folder: string, fs: WriterFileSystem): string {
  try {
    return fs.realpathSync(folder)
  } catch {
    // A folder that does not exist yet is created before the file is written.
    return folder
  }
}

/** N when `folder/name` is this process's descriptor N (`/proc/<our pid>/fd/N` on Linux, `/dev/fd/N` elsewhere). */
function ownDescriptor(folder: string, name: string): number | undefined {
  if (!/^\d+$/.test(name)) return undefined
  const ours = folder === `/proc/${process.pid}/fd` || (process.platform !== 'linux' && folder === '/dev/fd')
  return ours ? Number(name) : undefined
}

function statOrUndefined(path: string, fs: WriterFileSystem): nodeFs.Stats | undefined {
  try {
    return fs.statSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

function replaceFile(path: string, text: string, fs: WriterFileSystem): void {
  fs.mkdirSync(dirname(path), { recursive: true })
  const temporary = `${path}.${process.pid}.tmp`
  try {
    const descriptor = fs.openSync(temporary, 'w')
    try {
      writeAll(descriptor, text, fs)
    } finally {
      fs.closeSync(descriptor)
    }
    fs.renameSync(temporary, path)
  } catch (error) {
    // A half-written temporary file would be left behind for good: every run has its own pid.
    try {
      fs.rmSync(temporary, { force: true })
    } catch {
      // Nothing more can be done; the error below says why the report is missing.
    }
    throw error
  }
}

/**
 * A named pipe is opened without waiting first: with no reader, a blocking open would hang the process for good (no
 * timer or signal handler can run during a synchronous open). With a reader there, it is opened again to write
 * normally, since a non-blocking write to a full pipe fails instead of waiting for the reader.
 */
function writeIntoStream(path: string, stats: nodeFs.Stats, text: string, fs: WriterFileSystem): void {
  const { O_WRONLY, O_NONBLOCK } = nodeFs.constants
  let probe: number | undefined
  if (stats.isFIFO()) {
    try {
      probe = fs.openSync(path, O_WRONLY | O_NONBLOCK)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw error
      throw new Error(`no process is reading the named pipe ${path}; start its reader first`, { cause: error })
    }
  }
  try {
    const descriptor = fs.openSync(path, O_WRONLY)
    try {
      writeAll(descriptor, text, fs)
    } finally {
      fs.closeSync(descriptor)
    }
  } finally {
    if (probe !== undefined) fs.closeSync(probe)
  }
}

/** Writes into one of this process's own descriptors, where its other output (stdout, say) goes too. */
function writeToDescriptor(descriptor: number, text: string, fs: WriterFileSystem): void {
  try {
    fs.fstatSync(descriptor)
  } catch (error) {
    throw new Error(`file descriptor ${descriptor} is not open in this process`, { cause: error })
  }
  writeAll(descriptor, text, fs)
}

/** How long a write waits for a reader that has stopped reading (a full pipe) before it gives up. */
const STALLED_WRITE_MS = 30_000
const pause = new Int32Array(new SharedArrayBuffer(4))

/**
 * Writes every byte, looping over partial writes. A descriptor Node set non-blocking (its own stdout, when a pipe or
 * socket) refuses a write to a full buffer with EAGAIN: then it waits a little for the reader, synchronously, since
 * the callers write synchronously too.
 */
function writeAll(descriptor: number, text: string, fs: WriterFileSystem): void {
  const bytes = Buffer.from(text)
  let offset = 0
  let stalledSince: number | undefined
  while (offset < bytes.length) {
    try {
      offset += fs.writeSync(descriptor, bytes, offset, bytes.length - offset)
      stalledSince = undefined
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error
      stalledSince ??= performance.now()
      if (performance.now() - stalledSince > STALLED_WRITE_MS) {
        throw new Error(`nothing read the output for ${STALLED_WRITE_MS / 1000} s`, { cause: error })
      }
      Atomics.wait(pause, 0, 0, 5)
    }
  }
}
