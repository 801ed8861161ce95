import { existsSync, readFileSync } from 'node:fs'
import { ConfigurationError } from '@judgetree/core'
import { DEFAULT_JUDGE_CALL_BUDGET_MS } from '@judgetree/core/runtime'
import { describe, expect, test } from 'vitest'
import { withJudgetree } from './index.js'

// The built dist is what Jest loads; its paths must point at files that exist.
const built = (await import('@judgetree/matchers/jest')) as typeof import('./index.js')

describe('withJudgetree', () => {
  test('adds the setup file, a 5-minute timeout (longer than a default judge’s timeout and retries) and the reporter after the default one', () => {
    const config = built.withJudgetree({ testEnvironment: 'node' } as { testEnvironment: string })
    const [setup] = config.setupFilesAfterEnv as string[]
    const reporters = config.reporters as [string, unknown][]
    expect(config.testEnvironment).toBe('node')
    expect(config.testTimeout).toBe(300_000)
    expect(config.testTimeout).toBeGreaterThan(DEFAULT_JUDGE_CALL_BUDGET_MS)
    expect(setup).toMatch(/[\\/]dist[\\/]jest[\\/]setup\.cjs$/)
    expect(existsSync(setup as string)).toBe(true)
    expect(reporters[0]).toBe('default')
    expect(reporters[1]?.[0]).toMatch(/[\\/]dist[\\/]jest[\\/]reporter\.cjs$/)
    expect(existsSync(reporters[1]?.[0] as string)).toBe(true)
  })

  test('adds the global setup and teardown, passing on the limits and the config’s own hooks in `globals`', () => {
    const plain = built.withJudgetree({})
    expect(plain.globalSetup).toMatch(/[\\/]dist[\\/]jest[\\/]global-setup\.cjs$/)
    expect(plain.globalTeardown).toMatch(/[\\/]dist[\\/]jest[\\/]global-teardown\.cjs$/)
    expect(existsSync(plain.globalSetup)).toBe(true)
    expect(existsSync(plain.globalTeardown)).toBe(true)
    expect('globals' in plain).toBe(false)

    const config = withJudgetree(
      { globalSetup: './setup.ts', globalTeardown: '<rootDir>/teardown.js', globals: { answer: 42 } },
      { concurrency: 2, requestsPerMinute: 60 },
    )
    expect(config.globalSetup).toMatch(/global-setup\.cjs$/)
    expect(config.globalTeardown).toMatch(/global-teardown\.cjs$/)
    expect(config.globals).toEqual({
      answer: 42,
      '@judgetree/matchers': {
        concurrency: 2,
        requestsPerMinute: 60,
        globalSetup: './setup.ts',
        globalTeardown: '<rootDir>/teardown.js',
      },
    })
    // Wrapped again: the config's own hooks are still the ones to call, not judgetree's.
    expect(withJudgetree(config, { concurrency: 3 }).globals).toEqual({
      answer: 42,
      '@judgetree/matchers': {
        concurrency: 3,
        requestsPerMinute: 60,
        globalSetup: './setup.ts',
        globalTeardown: '<rootDir>/teardown.js',
      },
    })
  })

  test('reports list tests in file order: test locations are on, and each project’s files know its name', () => {
    expect(withJudgetree({}).testLocationInResults).toBe(true)
    expect(withJudgetree({ testLocationInResults: false }).testLocationInResults).toBe(false)
    expect(withJudgetree<{ displayName: string; globals?: object }>({ displayName: 'api' }).globals).toEqual({
      '@judgetree/matchers:project': 'api',
    })
    const config = withJudgetree({
      projects: [
        { displayName: { name: 'web', color: 'blue' }, globals: { answer: 42 } },
        { testMatch: ['unnamed'] },
        'packages/other',
      ],
    })
    expect(config.projects).toEqual([
      expect.objectContaining({
        globals: { answer: 42, '@judgetree/matchers:project': 'web' },
        testLocationInResults: true,
      }),
      expect.not.objectContaining({ globals: expect.anything() }),
      'packages/other',
    ])
    const own = withJudgetree({ testLocationInResults: false, projects: [{}, { testLocationInResults: true }] })
    expect(own.projects).toEqual([
      expect.objectContaining({ testLocationInResults: false }),
      expect.objectContaining({ testLocationInResults: true }),
    ])
  })

  test('configs with hooks of their own get their own hook paths, so Jest runs judgetree’s once for each', () => {
    const a = withJudgetree({ displayName: 'a', globalSetup: './setup.cjs' })
    const b = withJudgetree({ displayName: 'b', globalSetup: './setup.cjs' })
    expect(a.globalSetup).not.toBe(b.globalSetup)
    expect(a.globalTeardown).not.toBe(b.globalTeardown)
    for (const file of [a.globalSetup, b.globalSetup]) {
      expect(readFileSync(file, 'utf8')).toMatch(/^module\.exports = require\(".*[\\/]jest[\\/]global-setup\.cjs"\)\n$/)
    }
    // Re-wrapping keeps the config's own hook, not judgetree's copy.
    const rewrapped = withJudgetree(a) as { globals?: Record<string, unknown> }
    expect(rewrapped.globals?.['@judgetree/matchers']).toEqual({ globalSetup: './setup.cjs' })
    expect(withJudgetree({}).globalSetup).toMatch(/[\\/]jest[\\/]global-setup\.cjs$/)
  })

  test('with inline projects: the root’s hooks and limits go to every inline project; theirs stay theirs', () => {
    const config = withJudgetree(
      {
        globalSetup: './root-setup.js',
        projects: ['packages/a', { displayName: 'b', globalSetup: './b-setup.js', globals: { x: 1 } }],
      },
      { concurrency: 2 },
    )
    expect(config.globalSetup).toMatch(/global-setup\.cjs$/)
    expect(config.projects?.[0]).toBe('packages/a')
    expect(config.projects?.[1]).toEqual({
      displayName: 'b',
      globalSetup: './b-setup.js',
      globals: {
        x: 1,
        '@judgetree/matchers': { concurrency: 2, globalSetup: './root-setup.js', root: true },
        '@judgetree/matchers:project': 'b',
      },
      setupFilesAfterEnv: [expect.stringMatching(/setup\.cjs$/)],
      testLocationInResults: true,
    })
    expect(() => withJudgetree({ projects: ['packages/a'] }, { concurrency: 2 })).toThrow(
      'withJudgetree(config, options): with `projects` that are all paths',
    )
    expect(withJudgetree({ projects: ['packages/a'] }).globalSetup).toMatch(/global-setup\.cjs$/)
  })

  test('keeps what the config set, and adds each file only once', () => {
    const once = withJudgetree({
      setupFilesAfterEnv: ['./mine.ts'],
      testTimeout: 1_000,
      reporters: ['summary', ['jest-junit', { outputDirectory: 'out' }]],
    })
    const twice = withJudgetree(once, { reporter: { outputFile: 'ignored.json' } })
    expect(twice.testTimeout).toBe(1_000)
    expect(twice.setupFilesAfterEnv).toHaveLength(2)
    expect(twice.setupFilesAfterEnv?.[0]).toBe('./mine.ts')
    expect(twice.reporters?.map((entry) => (typeof entry === 'string' ? entry : entry[0]))).toEqual([
      'summary',
      'jest-junit',
      expect.stringMatching(/reporter\.cjs$/),
    ])
  })

  test('options: timeout, reporter options, no reporter', () => {
    const config = withJudgetree({}, { timeout: 120_000, reporter: { outputFile: 'out/judgetree.json' } })
    expect(config.testTimeout).toBe(120_000)
    expect(config.reporters?.[1]).toEqual([
      expect.stringMatching(/reporter\.cjs$/),
      { outputFile: 'out/judgetree.json' },
    ])
    const quiet = withJudgetree({}, { reporter: false }) as { reporters?: unknown; globals?: Record<string, unknown> }
    expect(quiet.reporters).toBeUndefined()
    // The global teardown warns about a missing reporter unless it was left out on purpose.
    expect(quiet.globals?.['@judgetree/matchers']).toEqual({ reporter: false })
    expect(withJudgetree(quiet).globals).toEqual({})
  })

  test('adds the setup file to every inline project, and accepts an async config function', async () => {
    const config = withJudgetree({ projects: ['packages/a', { displayName: 'b', setupFilesAfterEnv: ['./b.ts'] }] })
    expect(config.projects?.[0]).toBe('packages/a')
    expect(config.projects?.[1]).toEqual({
      displayName: 'b',
      globals: { '@judgetree/matchers:project': 'b' },
      setupFilesAfterEnv: ['./b.ts', expect.stringMatching(/setup\.cjs$/)],
      testLocationInResults: true,
    })
    const resolved = await withJudgetree(async () => ({ testTimeout: 7 }))()
    expect(resolved.testTimeout).toBe(7)
    expect(resolved.setupFilesAfterEnv).toHaveLength(1)
  })

  test('bad options fail at once, listing every problem', () => {
    expect(() => withJudgetree({}, { timeout: 0, reporter: 'yes' } as never)).toThrow(ConfigurationError)
    expect(() => withJudgetree({}, { timeout: 0, reporter: 'yes' } as never)).toThrow(
      'Invalid options for withJudgetree(config, options):\n' +
        '  - Expected `timeout` to be a number of milliseconds above 0, got `0` (number).\n' +
        "  - Expected `reporter` to be true, false or reporter options, got 'yes' (string).",
    )
    expect(() => withJudgetree({}, { concurrency: 0, requestsPerMinute: '60' } as never)).toThrow(
      'Invalid options for withJudgetree(config, options):\n' +
        '  - Expected `concurrency` to be a whole number from 1 and up, got `0` (number).\n' +
        "  - Expected `requestsPerMinute` to be a number of requests per minute from 0.0000279 (one per 24.8 days) up, got '60' (string).",
    )
    expect(() => withJudgetree({}, { reporter: { outputFile: 3 } } as never)).toThrow(
      'Invalid options for withJudgetree(config, options) reporter:\n  - Expected `outputFile` to be a path or false, got `3` (number).',
    )
    expect(() => withJudgetree(null as never)).toThrow(
      'withJudgetree(config): expected a Jest config object, got `null` (null).',
    )
  })
})
