// A judge model whose server lists a shutdown date is named once per run, however many workers and projects the run
// has (they agree through the run's coordinator), after one lookup a day; a failing lookup changes nothing.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { OpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type RunResult, runVitest, scratchDir } from './support/runner.js'
import { startStableJudge } from './support/stable-suite.js'

const API_KEY = 'sk-test-shutdown-0123456789abcdef'
const DAY_MS = 86_400_000
const today = new Date().toISOString().slice(0, 10)
const SHUTDOWN = new Date(Date.parse(today) + 49 * DAY_MS).toISOString().slice(0, 10)
const WARNING = `judgetree: the judge model gpt-4.1 shuts down on ${SHUTDOWN}, in 49 days.`

/** How many times the output says the model shuts down. */
const warnings = (run: RunResult) => run.output.split('shuts down on').length - 1

describe('the shutdown warning in real Vitest runs of two projects on 4 workers', () => {
  const scratch = scratchDir()
  let server: OpenAIServer
  const runs: Record<string, RunResult> = {}
  let lookupsAfterFirstRun = 0

  const run = (cache: string) =>
    runVitest('vitest-stable', ['run', '--maxWorkers=4'], {
      JUDGETREE_CACHE: 'read-write',
      JUDGETREE_CACHE_DIR: join(scratch, cache),
      OPENAI_API_KEY: API_KEY,
      OPENAI_BASE_URL: server.baseURL,
      FIXTURE_REPORT_FILE: join(scratch, `${cache}.json`),
    })

  beforeAll(async () => {
    server = await startStableJudge()
    server.listModels({ 'gpt-4.1': SHUTDOWN })
    runs.first = await run('cache')
    lookupsAfterFirstRun = server.modelLookups.length
    runs.sameDay = await run('cache')
    server.listModels({ status: 500 })
    runs.failing = await run('other-cache')
  }, 300_000)
  afterAll(async () => {
    await server?.close()
    rmSync(scratch, { recursive: true, force: true })
  })

  test('the first run looks the model up once and warns once, with the days left and the guide', () => {
    expect(lookupsAfterFirstRun).toBe(1)
    expect(warnings(runs.first as RunResult)).toBe(1)
    expect(runs.first?.output).toContain(WARNING)
    expect(runs.first?.output).toContain('docs/migrating-judges.md')
    expect(runs.first?.output).not.toContain(API_KEY)
  })

  test('a second run the same day warns once again, from the memory file, without asking the server', () => {
    expect(warnings(runs.sameDay as RunResult)).toBe(1)
    expect(runs.sameDay?.output).toContain(WARNING)
  })

  test('with /v1/models failing, the run says nothing of it and ends as the first did', () => {
    expect(server.modelLookups).toEqual(['gpt-4.1', 'gpt-4.1'])
    expect(warnings(runs.failing as RunResult)).toBe(0)
    expect(runs.failing?.code).toBe(runs.first?.code)
    // Evaluations, passed, failed: the same outcomes (the calls, tokens and cost that follow depend on timing).
    const summary = (result: RunResult | undefined) =>
      /^judgetree: \d+ evaluations[^·]*/m.exec(result?.output ?? '')?.[0]
    expect(summary(runs.failing)).toBeDefined()
    expect(summary(runs.failing)).toBe(summary(runs.first))
  })
})
