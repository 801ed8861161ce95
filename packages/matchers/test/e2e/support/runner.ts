import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const MATCHERS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')

/**
 * Where the runners and the fixtures live: this package (its devDependencies: Vitest 4, Jest 30), or a directory
 * prepared by scripts/compat.mjs with another runner version and the packed packages installed.
 */
export const HOME = process.env.JUDGETREE_E2E_HOME ?? MATCHERS_DIR
/** The Node.js that runs the runner under test (Vitest 5 needs Node 22). */
export const NODE = process.env.JUDGETREE_E2E_NODE ?? process.execPath

/** The outcome of one runner process. */
export interface RunResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  /** What the runner's terminal showed, if stderr were interleaved after stdout. */
  readonly output: string
}

/** The absolute path of a fixture project. */
export function fixture(name: string): string {
  return join(HOME, 'test', 'fixtures', name)
}

/** A fresh temporary directory for one run's output files. */
export function scratchDir(): string {
  return mkdtempSync(join(tmpdir(), 'judgetree-e2e-'))
}

/** The major version of the runner under test, e.g. 4 for vitest 4.1.12. */
export function majorVersion(runner: 'vitest' | 'jest'): number {
  const manifest = JSON.parse(readFileSync(join(HOME, 'node_modules', runner, 'package.json'), 'utf8')) as {
    version: string
  }
  return Number(manifest.version.split('.')[0])
}

/** Runs the real Vitest CLI in a fixture project, as CI would: CI=true, NO_COLOR=1, no TTY. */
export function runVitest(name: string, args: readonly string[], env: Record<string, string> = {}): Promise<RunResult> {
  return run([join(HOME, 'node_modules', 'vitest', 'vitest.mjs'), ...args], fixture(name), env)
}

/** Runs the real Jest CLI in a fixture project, as CI would. */
export function runJest(name: string, args: readonly string[], env: Record<string, string> = {}): Promise<RunResult> {
  return run([join(HOME, 'node_modules', 'jest', 'bin', 'jest.js'), '--ci', ...args], fixture(name), env)
}

/** The repository's example packages (examples/walkthroughs, …). */
export const EXAMPLES = resolve(MATCHERS_DIR, '..', '..', 'examples')

/**
 * Runs an example package of this repository (examples/<name>) with its own runner, as CI would: `pnpm run eval`
 * there is `vitest run` or `jest`.
 */
export function runExample(
  name: string,
  runner: 'vitest' | 'jest',
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<RunResult> {
  const dir = join(EXAMPLES, name)
  const cli =
    runner === 'vitest'
      ? [join(dir, 'node_modules', 'vitest', 'vitest.mjs'), 'run']
      : [join(dir, 'node_modules', 'jest', 'bin', 'jest.js'), '--ci']
  return run([...cli, ...args], dir, env, process.execPath)
}

/**
 * A run's output with what changes from run to run masked: each of `paths` (absolute directories) by its name,
 * durations, the clock and the local server's port. A passing Vitest test slower than its slowTestThreshold has one
 * more space before its duration; it is masked alike.
 */
export function masked(output: string, paths: Record<string, string> = {}): string {
  let text = output
  for (const [name, path] of Object.entries(paths)) text = text.replaceAll(path, name)
  return text
    .replace(/\d+(\.\d+)?m?s\b/g, '<time>')
    .replace(/\(\d+ ms\)/g, '(<time>)')
    .replace(/^( +✓ .*\S) +<time>$/gm, '$1 <time>')
    .replace(/^Time: .*$/m, 'Time: <time>')
    .replace(/Start at {2}\d\d:\d\d:\d\d/, 'Start at  <clock>')
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')
    .replace(/\(transform .*\)/, '(<phases>)')
    .trimEnd()
}

/** Type-checks fixture projects with a tsconfig of test/fixtures, using the TypeScript installed next to the runner. */
export function runTsc(tsconfig: string): Promise<RunResult> {
  const tsc = join(HOME, 'node_modules', 'typescript', 'bin', 'tsc')
  return run([tsc, '-p', tsconfig], join(HOME, 'test', 'fixtures'), {}, process.execPath)
}

function run(
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
  node: string = NODE,
): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(node, args, { cwd, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    child.on('error', reject)
    child.on('close', (code) => resolvePromise({ code, stdout, stderr, output: `${stdout}\n${stderr}` }))
  })
}

/** The environment of CI, without what the outer Vitest run set for its own workers. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(VITEST|JEST_|GITHUB_|TEST$|NODE_ENV$|NODE_OPTIONS$|FORCE_COLOR$|OPENAI_|JUDGETREE_)/.test(key)) continue
    env[key] = value
  }
  // JUDGETREE_CACHE=off: every run asks its judge, so counts do not depend on what an earlier run cached.
  return { ...env, CI: 'true', NO_COLOR: '1', JUDGETREE_CACHE: 'off', ...extra }
}
