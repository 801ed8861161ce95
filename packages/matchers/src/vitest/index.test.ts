import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_JUDGE_CALL_BUDGET_MS } from '@judgetree/core/runtime'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { judgetree } from './index.js'

// The built plugin is what vitest.config.ts loads; its paths must point at files that exist.
const built = (await import('@judgetree/matchers/vitest')) as typeof import('./index.js')

interface FakeProject {
  config: { setupFiles: string[]; globalSetup: string[]; testTimeout: number }
  provided: Record<string, unknown>
  provide(key: string, value: unknown): void
}

function fakeProject(testTimeout = 5_000): FakeProject {
  return {
    config: { setupFiles: ['/user/setup.ts'], globalSetup: ['/user/global-setup.ts'], testTimeout },
    provided: {},
    provide(key, value) {
      this.provided[key] = value
    },
  }
}

/** Calls the plugin's hooks the way Vitest does: config() with the user config, then configureVitest per project. */
function install(
  plugin: ReturnType<typeof judgetree>,
  userConfig: object,
  projects: FakeProject[],
  reporters: unknown[] = [],
  root?: string,
) {
  const vitest = { config: { reporters, root }, version: '4.1.12' }
  ;(plugin.config as (config: object) => void)(userConfig)
  for (const project of projects) {
    ;(plugin.configureVitest as (context: object) => void)({ vitest, project })
  }
  return vitest
}

describe('judgetree() plugin', () => {
  test('adds the setup file, global setup and reporter once, raises the default timeout, in every project', () => {
    const projects = [fakeProject(), fakeProject()]
    const plugin = built.judgetree()
    const vitest = install(plugin, {}, projects, ['default'])
    install(plugin, {}, projects, vitest.config.reporters)
    for (const project of projects) {
      expect(project.config.setupFiles).toEqual([
        '/user/setup.ts',
        expect.stringMatching(/[\\/]dist[\\/]vitest[\\/]setup\.js$/),
      ])
      expect(existsSync(project.config.setupFiles[1] as string)).toBe(true)
      expect(project.config.globalSetup).toEqual([
        '/user/global-setup.ts',
        expect.stringMatching(/[\\/]dist[\\/]vitest[\\/]global-setup\.js$/),
      ])
      expect(existsSync(project.config.globalSetup[1] as string)).toBe(true)
      expect(project.config.testTimeout).toBe(300_000)
      // A hung judge fails with its own timeout, after its retries, before the test's timeout cuts it short.
      expect(project.config.testTimeout).toBeGreaterThan(DEFAULT_JUDGE_CALL_BUDGET_MS)
      expect(project.provided).toEqual({
        judgetree: { annotate: false, annotatePassing: false, pictures: false, pictureFiles: false, reporter: true },
      })
    }
    expect(vitest.config.reporters).toEqual([
      'default',
      [expect.stringMatching(/[\\/]dist[\\/]vitest[\\/]reporter\.js$/), {}],
    ])
    expect(existsSync((vitest.config.reporters[1] as [string])[0])).toBe(true)
  })

  test('keeps a timeout the user set, even one equal to Vitest’s default', () => {
    const custom = fakeProject(20_000)
    install(judgetree(), { test: { testTimeout: 20_000 } }, [custom])
    expect(custom.config.testTimeout).toBe(20_000)
    const explicitDefault = fakeProject(5_000)
    install(judgetree(), { test: { testTimeout: 5_000 } }, [explicitDefault])
    expect(explicitDefault.config.testTimeout).toBe(5_000)
  })

  test('options: timeout, reporter options or none, annotatePassing, the run’s limits', () => {
    const project = fakeProject()
    const vitest = install(
      judgetree({
        timeout: 90_000,
        reporter: { outputFile: 'out.json' },
        annotatePassing: true,
        concurrency: 4,
        requestsPerMinute: 90,
      }),
      {},
      [project],
    )
    expect(project.config.testTimeout).toBe(90_000)
    expect(project.provided).toEqual({
      judgetree: {
        annotate: true,
        annotatePassing: true,
        pictures: false,
        pictureFiles: false,
        reporter: true,
        concurrency: 4,
        requestsPerMinute: 90,
      },
    })
    expect(vitest.config.reporters).toEqual([[expect.stringMatching(/reporter\.js$/), { outputFile: 'out.json' }]])
    // Without the judgetree reporter nobody prints an environment problem's fix after the run: the tests say it.
    const bare = fakeProject()
    expect(install(judgetree({ reporter: false }), {}, [bare]).config.reporters).toEqual([])
    expect(bare.provided).toMatchObject({ judgetree: { reporter: false } })
  })

  test('with a report that shows images (html, blob, the UI), every evaluation is annotated with its picture', () => {
    for (const reporters of [['html'], [['blob', {}]], ['default', 'html']]) {
      const project = fakeProject()
      install(judgetree(), {}, [project], reporters)
      expect(project.provided).toMatchObject({
        judgetree: { annotate: true, annotatePassing: true, pictures: true, reporter: true },
      })
    }
    const quiet = fakeProject()
    install(judgetree({ annotatePassing: false }), {}, [quiet], ['html'])
    expect(quiet.provided).toMatchObject({
      judgetree: { annotate: true, annotatePassing: false, pictures: true, reporter: true },
    })
  })

  test('annotates only when a report other than the terminal reads annotations', () => {
    const annotates = (reporters: unknown[]) => {
      const project = fakeProject()
      install(judgetree(), {}, [project], reporters)
      return (project.provided.judgetree as { annotate: boolean }).annotate
    }
    // The terminal reporters print an annotation under the failure, whose first lines it repeats.
    for (const terminal of [['default'], ['verbose', 'json'], [['dot', {}]], ['tree', 'hanging-process']]) {
      expect(annotates(terminal), JSON.stringify(terminal)).toBe(false)
    }
    // JUnit properties, GitHub notices, TAP comments, a blob to merge; or a reporter of the user's or an editor's.
    for (const reader of ['junit', 'github-actions', 'tap', 'blob', './my-reporter.ts', { onInit() {} }]) {
      expect(annotates(['default', reader]), JSON.stringify(reader)).toBe(true)
    }
    // Asked for, passing evaluations included.
    const asked = fakeProject()
    install(judgetree({ annotatePassing: true }), {}, [asked], ['default'])
    expect(asked.provided).toMatchObject({ judgetree: { annotate: true } })
  })

  test('pictures are attached as files, which open full size, except for a blob report or before Vitest 4', () => {
    const filesFor = (reporters: unknown[], version = '4.1.12') => {
      const project = fakeProject()
      const vitest = { config: { reporters }, version }
      ;(judgetree().configureVitest as (context: object) => void)({ vitest, project })
      return (project.provided.judgetree as { pictureFiles?: boolean }).pictureFiles
    }
    expect(filesFor(['html'])).toBe(true)
    expect(filesFor([['html', { outputFile: 'r/index.html' }]], '5.0.0')).toBe(true)
    // A blob keeps the attachment's path only: merged on another machine, the file would be missing.
    expect(filesFor(['html', 'blob'])).toBe(false)
    expect(filesFor(['html'], '3.2.4')).toBe(false)
    expect(filesFor(['default'])).toBe(false)
  })

  test('baseline and failOnRegression go to the reporter, and are checked', () => {
    const vitest = install(
      judgetree({
        baseline: '.judgetree/baseline.json',
        failOnRegression: { tolerance: 0.05 },
        reporter: { outputFile: 'o.json' },
      }),
      {},
      [fakeProject()],
    )
    expect(vitest.config.reporters).toEqual([
      [
        expect.stringMatching(/reporter\.js$/),
        { outputFile: 'o.json', baseline: '.judgetree/baseline.json', failOnRegression: { tolerance: 0.05 } },
      ],
    ])
    expect(() => judgetree({ baseline: '', failOnRegression: { tolerance: 2 } } as never)).toThrow(
      'Invalid options for judgetree(options) reporter:\n' +
        "  - Expected `baseline` to be a path such as '.judgetree/baseline.json', got '' (string).\n" +
        '  - Expected `failOnRegression` to be true, false or { tolerance } with a tolerance from 0 to 1, got `{ tolerance: 2 }` (object).',
    )
    expect(() => judgetree({ failOnRegression: true })).toThrow(
      "`failOnRegression` needs a `baseline` to compare with, e.g. baseline: '.judgetree/baseline.json'.",
    )
    expect(() => judgetree({ baseline: 'b.json', reporter: false })).toThrow(
      '`baseline` and `failOnRegression` need the judgetree reporter; remove `reporter: false`.',
    )
  })

  test('does not add the reporter when the config already lists it', () => {
    const listed = ['@judgetree/matchers/vitest/reporter']
    expect(install(judgetree(), {}, [fakeProject()], listed).config.reporters).toEqual(listed)
  })

  test('bad options fail at once, listing every problem', () => {
    expect(() => judgetree({ timeout: -1, annotatePassing: 'yes' } as never)).toThrow(
      'Invalid options for judgetree(options):\n' +
        '  - Expected `timeout` to be a number of milliseconds above 0, got `-1` (number).\n' +
        "  - Expected `annotatePassing` to be true or false, got 'yes' (string).",
    )
    expect(() => judgetree({ concurrency: 2.5, requestsPerMinute: 0 })).toThrow(
      'Invalid options for judgetree(options):\n' +
        '  - Expected `concurrency` to be a whole number from 1 and up, got `2.5` (number).\n' +
        '  - Expected `requestsPerMinute` to be a number of requests per minute from 0.0000279 (one per 24.8 days) up, got `0` (number).',
    )
    expect(() => judgetree({ concurrency: '4', requestsPerMinute: Number.POSITIVE_INFINITY } as never)).toThrow(
      'Invalid options for judgetree(options):\n' +
        "  - Expected `concurrency` to be a whole number from 1 and up, got '4' (string).\n" +
        '  - Expected `requestsPerMinute` to be a number of requests per minute from 0.0000279 (one per 24.8 days) up, got `Infinity` (number).',
    )
    expect(() => judgetree({ timeout: 2 ** 31 })).toThrow(
      'Invalid options for judgetree(options):\n' +
        '  - Expected `timeout` to be at most 2147483647 ms (2^31−1, the longest timer Node can set; a longer one ' +
        'fires at once), got `2147483648` (number).',
    )
    expect(() => judgetree({ reporter: { githubSummary: 'no' } } as never)).toThrow(
      "Invalid options for judgetree(options) reporter:\n  - Expected `githubSummary` to be true or false, got 'no' (string).",
    )
  })
})

describe('judgetree() plugin: what it checks before Vitest looks for test files', () => {
  afterEach(() => {
    vi.unstubAllEnvs()
  })

  test('a malformed JUDGETREE_* variable stops the run at startup, with the message alone', () => {
    vi.stubEnv('JUDGETREE_CACHE', 'replpay')
    const error = (() => {
      try {
        install(judgetree(), {}, [fakeProject()])
      } catch (caught) {
        return caught as Error
      }
      return undefined
    })()
    expect(error?.message).toBe(
      "JUDGETREE_CACHE must be one of 'read-write', 'read-only', 'replay', 'off'; got 'replpay'. Fix it, or unset " +
        'it for the default.',
    )
    expect(error?.stack).toBe(`ConfigurationError: ${error?.message}`)
  })

  test('the html reporter without @vitest/ui is one line saying what to install', () => {
    // A project whose Vitest has no @vitest/ui beside it or in the project; the built plugin, in a Node.js without
    // the NODE_PATH that pnpm gives this run (through which @vitest/ui would be found).
    const root = mkdtempSync(join(tmpdir(), 'judgetree-no-ui-'))
    try {
      mkdirSync(join(root, 'node_modules', 'vitest'), { recursive: true })
      writeFileSync(join(root, 'node_modules', 'vitest', 'package.json'), '{"name":"vitest","version":"4.1.12"}')
      const configure = (reporter: string) => {
        const script =
          `const { judgetree } = await import(${JSON.stringify(import.meta.resolve('@judgetree/matchers/vitest'))});` +
          'const project = { config: { setupFiles: [], globalSetup: [], testTimeout: 5000 }, provide() {} };' +
          `const vitest = { config: { root: ${JSON.stringify(root)}, reporters: [${JSON.stringify(reporter)}] }, version: '4.1.12' };` +
          'try { judgetree().configureVitest({ vitest, project }); console.log("ok") } catch (e) { console.log(e.stack) }'
        const env = { ...process.env, NODE_PATH: '' }
        return spawnSync(process.execPath, ['--input-type=module', '-e', script], {
          env,
          encoding: 'utf8',
        }).stdout.trim()
      }
      expect(configure('default')).toBe('ok')
      expect(configure('html')).toBe(
        'ConfigurationError: The html reporter needs @vitest/ui, which is not installed: npm install -D @vitest/ui@4.1.12',
      )
      // This package has @vitest/ui: its own html reports go ahead.
      expect(() => install(judgetree(), {}, [fakeProject()], ['html'])).not.toThrow()
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
