#!/usr/bin/env node
// Compatibility check of @judgetree/matchers against every supported runner version.
//
// For each target (Vitest 3.2, 4, 5 and Jest 29, 30) it installs the runner from the npm registry into a temporary
// directory together with the packed @judgetree/core and @judgetree/matchers (as a user would get them), copies
// the fixture projects there, and runs that runner's e2e test files (packages/matchers/test/e2e/<runner>*.e2e.test.ts)
// against it: the same assertions on terminal output, JUnit, JSON reports and a `tsc` check of the fixtures'
// types. Vitest 5 runs on Node 22 from the npm registry (`npx -y node@22`). Exits 1 if any target fails.
//
//   node scripts/compat.mjs                      every target
//   node scripts/compat.mjs vitest-3.2 jest-29   some targets
//   KEEP=1 node scripts/compat.mjs               keep the temporary directories
//   node scripts/compat.mjs --prebuilt           pack dist as it is, without building first
import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const MATCHERS = join(REPO, 'packages', 'matchers')
const TYPESCRIPT = 'typescript@~5.9.3'
const JEST_EXTRAS = ['@swc/core@^1.16.0', '@swc/jest@^0.2.39']

/** Every supported runner version; `node: 22` runs the runner on Node 22 from the registry. */
const TARGETS = [
  { name: 'vitest-3.2', runner: 'vitest', packages: ['vitest@~3.2.0', '@types/node@^20'] },
  { name: 'vitest-4', runner: 'vitest', packages: ['vitest@^4.0.0', '@types/node@^20'] },
  { name: 'vitest-5', runner: 'vitest', packages: ['vitest@^5.0.0', '@types/node@^22'], node: 22 },
  {
    name: 'jest-29',
    runner: 'jest',
    packages: ['jest@^29.7.0', '@jest/globals@^29.7.0', '@types/jest@^29.5.0', '@types/node@^20', ...JEST_EXTRAS],
  },
  {
    name: 'jest-30',
    runner: 'jest',
    packages: ['jest@^30.0.0', '@jest/globals@^30.0.0', '@types/jest@^30.0.0', '@types/node@^20', ...JEST_EXTRAS],
  },
]

const started = Date.now()
// `--prebuilt` packs the packages as they are in dist (CI has just built them) instead of building them again.
const prebuilt = process.argv.includes('--prebuilt')
const wanted = process.argv.slice(2).filter((arg) => arg !== '--prebuilt')
const unknown = wanted.filter((name) => !TARGETS.some((target) => target.name === name))
if (unknown.length > 0) {
  console.error(`Unknown target(s): ${unknown.join(', ')}. Known: ${TARGETS.map((target) => target.name).join(', ')}`)
  process.exit(2)
}
const targets = wanted.length === 0 ? TARGETS : TARGETS.filter((target) => wanted.includes(target.name))
const work = mkdtempSync(join(tmpdir(), 'judgetree-compat-'))
const results = []

try {
  const packs = join(work, 'packs')
  // One after the other: the matchers' declarations are built against core's.
  for (const pkg of ['core', 'matchers']) {
    const cwd = join(REPO, 'packages', pkg)
    if (!prebuilt) await step(`build @judgetree/${pkg}`, join(work, 'build.log'), 'pnpm', ['run', 'build'], { cwd })
    await step(`pack @judgetree/${pkg}`, join(work, 'pack.log'), 'pnpm', ['pack', '--pack-destination', packs], { cwd })
  }
  const tarballs = readdirSync(packs).map((file) => join(packs, file))
  const node22 = targets.some((target) => target.node === 22) ? await nodeBinary(22) : undefined

  // Installs are network-bound and run side by side; the test runs are CPU-bound and run one at a time.
  const installed = await Promise.all(
    targets.map(async (target) => {
      const home = join(work, target.name)
      mkdirSync(home, { recursive: true })
      writeFileSync(
        join(home, 'package.json'),
        `${JSON.stringify({ name: `compat-${target.name}`, private: true, type: 'module' }, null, 2)}\n`,
      )
      cpSync(join(MATCHERS, 'test', 'fixtures'), join(home, 'test', 'fixtures'), {
        recursive: true,
        filter: (source) => !/[\\/](\.judgetree|node_modules|\.vitest-reports)$/.test(source),
      })
      const at = Date.now()
      try {
        await run(
          join(home, 'install.log'),
          'npm',
          [
            'install',
            '--no-audit',
            '--no-fund',
            '--no-progress',
            '--loglevel=error',
            ...tarballs,
            TYPESCRIPT,
            ...target.packages,
          ],
          { cwd: home },
        )
        return { target, home, installSeconds: seconds(at) }
      } catch (error) {
        return { target, home, installSeconds: seconds(at), error: `npm install failed: ${error.message}` }
      }
    }),
  )

  for (const { target, home, installSeconds, error } of installed) {
    const version = error ? '?' : readVersion(home, target.runner)
    if (error) {
      results.push({
        target,
        version,
        installSeconds,
        testSeconds: 0,
        ok: false,
        detail: error,
        log: join(home, 'install.log'),
      })
      continue
    }
    const at = Date.now()
    const log = join(home, 'e2e.log')
    const env = {
      NO_COLOR: '1',
      JUDGETREE_E2E_HOME: home,
      ...(target.node === 22 ? { JUDGETREE_E2E_NODE: node22 } : {}),
    }
    // The runner's own e2e files: vitest.e2e.test.ts and vitest-stable.e2e.test.ts, say.
    const files = readdirSync(join(MATCHERS, 'test', 'e2e'))
      .filter((name) => name.startsWith(target.runner) && name.endsWith('.e2e.test.ts'))
      .map((name) => `packages/matchers/test/e2e/${name}`)
    try {
      await run(
        log,
        process.execPath,
        [join(REPO, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--project', 'matchers', ...files],
        {
          cwd: REPO,
          env,
        },
      )
      results.push({ target, version, installSeconds, testSeconds: seconds(at), ok: true, detail: testCount(log), log })
    } catch {
      results.push({
        target,
        version,
        installSeconds,
        testSeconds: seconds(at),
        ok: false,
        detail: testCount(log),
        log,
      })
    }
  }
} catch (error) {
  console.error(`\ncompat: ${error.message}`)
  process.exitCode = 1
} finally {
  report()
  if (process.env.KEEP) console.log(`\nkept ${work}`)
  else rmSync(work, { recursive: true, force: true })
}

function report() {
  if (results.length > 0) {
    console.log('\ntarget       runner version   install   e2e + types   result')
    for (const result of results) {
      const line = [
        result.target.name.padEnd(12),
        `${result.target.runner} ${result.version}${result.target.node ? ` (node ${result.target.node})` : ''}`.padEnd(
          25,
        ),
        `${result.installSeconds}s`.padStart(7),
        `${result.testSeconds}s`.padStart(13),
        `   ${result.ok ? 'ok' : 'FAILED'}  ${result.detail ?? ''}`,
      ]
      console.log(line.join(' '))
    }
    for (const result of results.filter((entry) => !entry.ok)) {
      console.log(`\n── ${result.target.name}: last lines of ${result.log}`)
      console.log(tail(result.log, 80))
    }
  }
  console.log(`\ncompat: ${seconds(started)}s in all`)
  if (results.length < targets.length || results.some((result) => !result.ok)) process.exitCode = 1
}

/** Runs a command whose failure ends the whole check. */
async function step(title, log, command, args, options = {}) {
  const at = Date.now()
  try {
    await run(log, command, args, { cwd: REPO, ...options })
  } catch (error) {
    console.error(tail(log, 60))
    throw new Error(`${title} failed: ${error.message}`)
  }
  console.log(`compat: ${title} (${seconds(at)}s)`)
}

/** Runs a command without stdin, appending its output to `log`; rejects on a non-zero exit or after 15 minutes. */
function run(log, command, args, { cwd, env = {} } = {}) {
  return new Promise((resolvePromise, reject) => {
    writeFileSync(log, `$ ${command} ${args.join(' ')}\n`, { flag: 'a' })
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, CI: 'true', npm_config_yes: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), 15 * 60_000)
    const append = (chunk) => writeFileSync(log, chunk, { flag: 'a' })
    child.stdout.on('data', append)
    child.stderr.on('data', append)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolvePromise()
      else reject(new Error(signal ? `killed by ${signal}` : `exit code ${code}`))
    })
  })
}

/** The path of a Node.js binary of this major version, fetched from the npm registry once. */
async function nodeBinary(major) {
  const log = join(work, `node${major}.log`)
  const out = join(work, `node${major}.path`)
  await step(`fetch Node ${major} (npx -y node@${major})`, log, 'npx', [
    '-y',
    `node@${major}`,
    '-e',
    `require('fs').writeFileSync(${JSON.stringify(out)}, process.execPath)`,
  ])
  return readFileSync(out, 'utf8').trim()
}

function readVersion(home, runner) {
  return JSON.parse(readFileSync(join(home, 'node_modules', runner, 'package.json'), 'utf8')).version
}

/** Vitest's "Tests  N passed (N)" line of the e2e run, for the summary table. */
function testCount(log) {
  const line = readFileSync(log, 'utf8')
    .split('\n')
    .findLast((text) => /^\s*Tests\s/.test(text))
  return line?.trim()
}

function tail(file, lines) {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n')
  } catch {
    return `(no ${file})`
  }
}

function seconds(since) {
  return Math.round((Date.now() - since) / 1000)
}
