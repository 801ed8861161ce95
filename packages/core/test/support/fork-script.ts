import { type ChildProcess, fork } from 'node:child_process'
import { mkdir } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const here = dirname(fileURLToPath(import.meta.url))
// Inside the package, so the bundle's bare imports (zod, openai) resolve from its node_modules.
const outDir = join(here, '../../node_modules/.cache/judgetree-test-scripts')

/** Bundles a TypeScript script from test/support into plain ESM that `node` can run in a child process. */
export async function bundleScript(name: string): Promise<string> {
  await mkdir(outDir, { recursive: true })
  const outfile = join(outDir, `${basename(name, '.ts')}-${process.pid}.mjs`)
  await build({
    entryPoints: [join(here, name)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'silent',
  })
  return outfile
}

/** What a child printed (one JSON document per stdout line) and how it ended. */
export interface ScriptRun {
  readonly child: ChildProcess
  /** Resolves with the parsed stdout lines once the child exits with code 0; rejects otherwise. */
  readonly done: Promise<unknown[]>
  /** Resolves with the first stdout line that parses to an object with `event === name`. */
  waitFor(name: string): Promise<Record<string, unknown>>
}

/** Runs a bundled script with arguments, collecting its JSON lines. */
export function runScript(file: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): ScriptRun {
  const child = fork(file, [...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] })
  const lines: unknown[] = []
  const listeners: ((line: Record<string, unknown>) => void)[] = []
  let buffer = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8')
    let newline = buffer.indexOf('\n')
    while (newline !== -1) {
      const line = JSON.parse(buffer.slice(0, newline)) as Record<string, unknown>
      buffer = buffer.slice(newline + 1)
      lines.push(line)
      for (const listener of listeners) listener(line)
      newline = buffer.indexOf('\n')
    }
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  const done = new Promise<unknown[]>((resolve, reject) => {
    child.once('exit', (code, signal) => {
      if (code === 0) resolve(lines)
      else reject(new Error(`${basename(file)} exited with ${code ?? signal}:\n${stderr}`))
    })
  })
  done.catch(() => {})
  return {
    child,
    done,
    waitFor(name) {
      const seen = lines.find((line) => (line as { event?: unknown }).event === name)
      if (seen) return Promise.resolve(seen as Record<string, unknown>)
      return new Promise((resolve) => {
        listeners.push((line) => {
          if (line.event === name) resolve(line)
        })
      })
    },
  }
}
