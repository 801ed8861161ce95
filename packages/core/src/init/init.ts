// `judgetree init`: the quickstart of docs/quickstart.md as one command. It reads the project's package.json (which
// runner is installed, ES module or CommonJS), writes the runner's config, the matcher's types file and a first
// test, and never overwrites: a file that exists is kept, and what to add to it is printed instead.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { closestName } from '../internal/closest-name.js'
import { firstTest, jestConfig, typesFile, vitestConfig } from './templates.js'

type Out = (line: string) => void
type Runner = 'vitest' | 'jest'

const RUNNERS: readonly Runner[] = ['vitest', 'jest']

/** A project as `init` sees it: where it is, its runner and its module system. */
export interface InitProject {
  readonly dir: string
  readonly runner: Runner
  readonly esm: boolean
  /** The installed runner's major version, when it could be read from node_modules. */
  readonly major: number | undefined
}

/** Runs `judgetree init [--runner vitest|jest]` in `dir`; returns the exit code. */
export function init(dir: string, args: readonly string[], out: Out, err: Out): number {
  const parsed = parseArgs(args)
  if (typeof parsed === 'string') {
    err(`judgetree init: ${parsed}`)
    return 2
  }
  const project = readProject(dir, parsed.runner)
  if (typeof project === 'string') {
    err(`judgetree init: ${project}`)
    return 2
  }
  for (const line of writeProject(project)) out(line)
  return 0
}

function parseArgs(args: readonly string[]): { readonly runner: Runner | undefined } | string {
  let runner: Runner | undefined
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string
    if (arg !== '--runner' && !arg.startsWith('--runner='))
      return `unknown option ${arg}; the option is --runner vitest|jest.`
    const value = arg === '--runner' ? args[++index] : arg.slice('--runner='.length)
    if (value === 'vitest' || value === 'jest') runner = value
    else {
      const guess = value === undefined ? undefined : closestName(value, RUNNERS)
      return `--runner takes vitest or jest; got ${value === undefined ? 'nothing' : JSON.stringify(value)}${guess === undefined ? '' : ` (did you mean ${guess}?)`}.`
    }
  }
  return { runner }
}

function readProject(dir: string, asked: Runner | undefined): InitProject | string {
  const manifest = join(dir, 'package.json')
  if (!existsSync(manifest))
    return `no package.json in ${dir}. Run it in your project's folder, or start one with: npm init -y`
  let pkg: { type?: unknown; dependencies?: object; devDependencies?: object }
  try {
    pkg = JSON.parse(readFileSync(manifest, 'utf8'))
  } catch (error) {
    return `${manifest} is not valid JSON (${(error as Error).message}); fix it first.`
  }
  const declared = RUNNERS.filter((name) => name in (pkg.devDependencies ?? {}) || name in (pkg.dependencies ?? {}))
  const runner = asked ?? (declared.length === 1 ? declared[0] : undefined)
  if (runner === undefined) {
    return declared.length === 0
      ? 'found neither vitest nor jest in package.json. Install one first (npm install -D @judgetree/core @judgetree/matchers vitest), or say which with --runner vitest|jest.'
      : 'package.json has both vitest and jest; say which to set up with --runner vitest or --runner jest.'
  }
  return { dir, runner, esm: pkg.type === 'module', major: installedMajor(dir, runner) }
}

function installedMajor(dir: string, runner: Runner): number | undefined {
  try {
    const version: unknown = createRequire(join(dir, 'package.json'))(`${runner}/package.json`).version
    return typeof version === 'string' ? Number.parseInt(version, 10) : undefined
  } catch {
    return undefined
  }
}

/** Writes what is missing and returns what to tell the user, file by file, then the next steps. */
function writeProject(project: InitProject): string[] {
  const { dir, runner, esm } = project
  const lines: string[] = [`judgetree init: a ${runner} project (${esm ? 'ES module' : 'CommonJS'}) in ${dir}`]
  const write = (file: string, text: string, existing = [file]) => {
    const found = existing.find((name) => existsSync(join(dir, name)))
    if (found === undefined) {
      writeFileSync(join(dir, file), text)
      lines.push(`  wrote ${file}`)
      return
    }
    lines.push(`  kept ${found} (it exists); make sure it has what judgetree needs:`)
    for (const line of text.trimEnd().split('\n')) lines.push(`      ${line}`)
  }
  const typescript = runner === 'vitest' || esm
  if (runner === 'vitest') {
    write(esm ? 'vitest.config.ts' : 'vitest.config.mts', vitestConfig(), configsIn(dir, 'vitest.config.'))
  } else write(esm ? 'jest.config.cjs' : 'jest.config.js', jestConfig(esm), configsIn(dir, 'jest.config.'))
  if (typescript) write('judgetree-env.d.ts', typesFile(project))
  write(typescript ? 'chatbot.test.ts' : 'chatbot.test.js', firstTest(project))
  if (runner === 'jest' && esm) {
    lines.push('  the test is TypeScript, compiled by @swc/jest: npm install -D @jest/globals @swc/core @swc/jest')
  }
  lines.push(
    '',
    'Next: give it a judge, then run the test (it makes two judge calls):',
    '  export OPENAI_API_KEY=…            or any OpenAI-compatible server: export OPENAI_BASE_URL=http://127.0.0.1:11434/v1',
    `  npx ${runner === 'vitest' ? 'vitest run' : 'jest'}`,
  )
  return lines
}

/** The runner's config files already in `dir` (any extension), so init never writes a second one beside them. */
function configsIn(dir: string, prefix: string): string[] {
  return readdirSync(dir).filter((name) => name.startsWith(prefix))
}
