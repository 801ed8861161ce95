import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { COORDINATOR_URL_ENV } from '../internal/run-coordinator.js'

// The built CommonJS files are what withJudgetree points Jest at.
const require = createRequire(import.meta.url)
type Hook = (globalConfig: object, projectConfig?: object) => Promise<void>
const setup = require('@judgetree/matchers/jest/global-setup') as Hook
const teardown = require('@judgetree/matchers/jest/global-teardown') as Hook

interface Call {
  readonly hook: string
  readonly args: unknown[]
  readonly coordinator: string | undefined
}
const CALLS = Symbol.for('judgetree.test.hookCalls')
const calls = (): Call[] => ((globalThis as { [CALLS]?: Call[] })[CALLS] ??= [])

/** A user hook that records its call, the arguments and whether a coordinator URL was set at the time. */
function userHook(dir: string, file: string, hook: string, esm = false): void {
  const body = `async (...args) => { globalThis[Symbol.for('judgetree.test.hookCalls')].push({ hook: '${hook}', args, coordinator: process.env.${COORDINATOR_URL_ENV} }) }`
  writeFileSync(join(dir, file), esm ? `export default ${body}\n` : `module.exports = ${body}\n`)
}

describe('the Jest global setup and teardown', () => {
  let rootDir: string
  let saved: string | undefined
  beforeEach(() => {
    rootDir = mkdtempSync(join(tmpdir(), 'judgetree-hooks-'))
    saved = process.env[COORDINATOR_URL_ENV]
    delete process.env[COORDINATOR_URL_ENV]
    calls().length = 0
  })
  afterEach(() => {
    rmSync(rootDir, { recursive: true, force: true })
    if (saved === undefined) delete process.env[COORDINATOR_URL_ENV]
    else process.env[COORDINATOR_URL_ENV] = saved
  })

  test('chain the config’s own hooks: theirs before the coordinator starts, and after it closes', async () => {
    userHook(rootDir, 'setup.cjs', 'their setup')
    userHook(rootDir, 'teardown.mjs', 'their teardown', true)
    const globalConfig = { rootDir }
    const projectConfig = {
      rootDir,
      globals: {
        '@judgetree/matchers': { concurrency: 3, globalSetup: './setup.cjs', globalTeardown: '<rootDir>/teardown.mjs' },
      },
    }
    await setup(globalConfig, projectConfig)
    const url = process.env[COORDINATOR_URL_ENV] as string
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const status = (await (await fetch(`${url}/status`)).json()) as { concurrency: number }
    expect(status.concurrency).toBe(3)

    await teardown(globalConfig, projectConfig)
    expect(process.env[COORDINATOR_URL_ENV]).toBeUndefined()
    await expect(fetch(`${url}/status`)).rejects.toThrow()
    expect(calls()).toEqual([
      { hook: 'their setup', args: [globalConfig, projectConfig], coordinator: undefined },
      { hook: 'their teardown', args: [globalConfig, projectConfig], coordinator: undefined },
    ])
  })

  test('with inline projects, the root’s hooks are found in any inline project and resolved against the root', async () => {
    userHook(rootDir, 'root-setup.cjs', 'root setup')
    const globalConfig = {
      rootDir,
      projects: ['packages/a', { globals: { '@judgetree/matchers': { globalSetup: './root-setup.cjs' } } }],
    }
    await setup(globalConfig, { rootDir: join(rootDir, 'packages', 'a') })
    await teardown(globalConfig, { rootDir: join(rootDir, 'packages', 'a') })
    expect(calls().map((call) => call.hook)).toEqual(['root setup'])
  })

  test('a coordinator already named by JUDGETREE_COORDINATOR_URL is used and left alone', async () => {
    process.env[COORDINATOR_URL_ENV] = 'http://127.0.0.1:9'
    await setup({ rootDir }, { rootDir })
    await teardown({ rootDir }, { rootDir })
    expect(process.env[COORDINATOR_URL_ENV]).toBe('http://127.0.0.1:9')
  })

  test('a hook that exports no function fails with what was configured', async () => {
    writeFileSync(join(rootDir, 'setup.cjs'), 'module.exports = { setup() {} }\n')
    const projectConfig = { rootDir, globals: { '@judgetree/matchers': { globalSetup: './setup.cjs' } } }
    await expect(setup({ rootDir }, projectConfig)).rejects.toThrow(
      "The config's own globalSetup (./setup.cjs, chained by withJudgetree) must export a function, got an object with keys `setup` (object).",
    )
    expect(process.env[COORDINATOR_URL_ENV]).toBeUndefined()
  })
})
