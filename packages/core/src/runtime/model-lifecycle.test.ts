import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { jsonReply, type ModelList, type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { OpenAIJudge, type OpenAIJudgeOptions } from '../judge/openai-judge.js'
import type { JudgeModel } from '../judge/types.js'
import type { CacheMode } from './cache.js'
import { verifyCache } from './cache-verify.js'
import { type Coordinator, startCoordinator } from './coordinator.js'
import { createJudgeRuntime, type JudgeRuntimeOptions } from './judge-runtime.js'
import { SHUTDOWN_WATCH, type ShutdownWatch, shutdownWarning } from './model-lifecycle.js'

const KEY = 'sk-judgetree-lifecycle-0123456789abcdef'
const DAY_MS = 86_400_000
const today = new Date().toISOString().slice(0, 10)
const inDays = (days: number) => new Date(Date.parse(today) + days * DAY_MS).toISOString().slice(0, 10)
const SHUTDOWN = inDays(49)
const MODELS: ModelList = { 'gpt-4.1': SHUTDOWN, 'gpt-6-luna': null }

let server: OpenAIServer
let dir: string
let coordinator: Coordinator | undefined

beforeAll(async () => {
  server = await startOpenAIServer(() => jsonReply({ verdict: true }), { models: MODELS })
})
afterAll(() => server.close())
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'judgetree-lifecycle-'))
  server.requests.length = 0
  server.modelLookups.length = 0
  server.listModels(MODELS)
})
afterEach(async () => {
  await coordinator?.close()
  coordinator = undefined
  await rm(dir, { recursive: true, force: true })
})

/** One run: a runtime of its own (as a new process has) over the shared cache directory, and its warnings. */
function run(cache: CacheMode = 'read-write', options: JudgeRuntimeOptions = {}) {
  const warnings: string[] = []
  const runtime = createJudgeRuntime({ cache, cacheDir: dir, warn: (text) => warnings.push(text), ...options })
  const judge = (judgeOptions: OpenAIJudgeOptions = {}): JudgeModel =>
    runtime.wrap(new OpenAIJudge({ model: 'gpt-4.1', baseURL: server.baseURL, apiKey: KEY, ...judgeOptions }))
  const watch = (runtime as unknown as { [SHUTDOWN_WATCH]: ShutdownWatch })[SHUTDOWN_WATCH]
  return { warnings, judge, settled: () => watch.settled() }
}

const ask = (question = 'Is the sky blue?') => ({
  messages: [{ role: 'user' as const, content: question }],
  schema: z.object({ verdict: z.boolean() }),
  schemaName: 'verdict',
  promptVersion: 'lifecycle-test@1',
})

const expectedWarning =
  `judgetree: the judge model gpt-4.1 shuts down on ${SHUTDOWN}, in 49 days. Change the judge before then (and ` +
  "measure what the change does to your verdicts): see judgetree's docs/migrating-judges.md"

describe('shutdown warnings', () => {
  it('warns once per run for a model its server lists with a shutdown_date, after one lookup', async () => {
    const { warnings, judge, settled } = run()
    const model = judge()
    await Promise.all([model.generate(ask('one')), model.generate(ask('two')), judge().generate(ask('three'))])
    await settled()
    expect(warnings).toEqual([expectedWarning])
    expect(server.modelLookups).toEqual(['gpt-4.1'])
    expect(server.requests).toHaveLength(3)
    const memory = JSON.parse(await readFile(join(dir, '.model-lookups'), 'utf8'))
    expect(memory).toEqual({
      format: 1,
      models: { [`gpt-4.1 at ${new URL(server.baseURL).host}/v1`]: { checkedOn: today, shutdownDate: SHUTDOWN } },
    })
    // Kept out of git beside the committed cache, and not a problem for `judgetree cache verify`.
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toMatch(/^\*\.tmp$[\s\S]*^\.model-lookups$/m)
    expect(verifyCache(dir)).toMatchObject({ ok: true, entries: 3 })
  })

  it('says nothing for a model listed without a date, nor for one the server does not list (a 404)', async () => {
    const { warnings, judge, settled } = run()
    await judge({ model: 'gpt-6-luna' }).generate(ask())
    await judge({ model: 'my-local-model' }).generate(ask())
    await settled()
    expect(server.modelLookups).toEqual(['gpt-6-luna', 'my-local-model'])
    expect(warnings).toEqual([])
  })

  it('looks a model up at most once a day: a second run the same day warns from the memory file', async () => {
    const first = run()
    await first.judge().generate(ask())
    await first.settled()
    const second = run()
    await second.judge().generate(ask('again'))
    await second.settled()
    expect(first.warnings).toEqual([expectedWarning])
    expect(second.warnings).toEqual([expectedWarning])
    expect(server.modelLookups).toEqual(['gpt-4.1'])

    // Remembered yesterday: asked again, and the answer of today (no date any more) is what counts.
    const file = join(dir, '.model-lookups')
    const memory = JSON.parse(await readFile(file, 'utf8'))
    for (const entry of Object.values(memory.models) as { checkedOn: string }[]) entry.checkedOn = inDays(-1)
    await writeFile(file, JSON.stringify(memory))
    server.listModels({ 'gpt-4.1': null })
    const nextDay = run()
    await nextDay.judge().generate(ask('the next day'))
    await nextDay.settled()
    expect(server.modelLookups).toEqual(['gpt-4.1', 'gpt-4.1'])
    expect(nextDay.warnings).toEqual([])
  })

  it('never looks up in replay mode', async () => {
    const recording = run()
    await recording.judge().generate(ask())
    await recording.settled()
    server.modelLookups.length = 0
    const replay = run('replay')
    const answer = await replay.judge().generate(ask())
    await replay.settled()
    expect(answer).toMatchObject({ value: { verdict: true }, cached: true })
    expect(server.modelLookups).toEqual([])
    expect(replay.warnings).toEqual([])
  })

  it('never looks up with the cache read-only or off, where the answer could not be remembered for the day', async () => {
    for (const mode of ['read-only', 'off'] as const) {
      const { warnings, judge, settled } = run(mode)
      await judge().generate(ask())
      await settled()
      expect(warnings).toEqual([])
    }
    expect(server.requests).toHaveLength(2)
    expect(server.modelLookups).toEqual([])
    await expect(readFile(join(dir, '.model-lookups'))).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('passes the run, silently, when the model lookup fails', async () => {
    server.listModels({ status: 500 })
    const { warnings, judge, settled } = run()
    await expect(judge().generate(ask())).resolves.toMatchObject({ value: { verdict: true } })
    await settled()
    expect(server.modelLookups).toEqual(['gpt-4.1'])
    expect(warnings).toEqual([])
  })

  it('never makes a measurement wait for a lookup that hangs', async () => {
    let hung: Promise<void> | undefined
    // Model lookups never answer until aborted (after 5 s); chat completions go through.
    const fetchHanging: typeof fetch = (input, init) => {
      if (!String(input instanceof Request ? input.url : input).includes('/models/')) return fetch(input, init)
      const aborted = new Promise<Response>((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true }),
      )
      hung = aborted.then(
        () => undefined,
        () => undefined,
      )
      return aborted
    }
    const { warnings, judge } = run()
    const started = performance.now()
    await judge({ fetch: fetchHanging }).generate(ask())
    expect(performance.now() - started).toBeLessThan(2_000)
    expect(hung).toBeDefined()
    expect(warnings).toEqual([])
  })

  it('warns once for the whole run when several processes share a coordinator', async () => {
    coordinator = await startCoordinator()
    const workers = [
      run('read-write', { coordinatorUrl: coordinator.url }),
      run('read-write', { coordinatorUrl: coordinator.url }),
    ]
    await Promise.all(workers.map((worker) => worker.judge().generate(ask())))
    await Promise.all(workers.map((worker) => worker.settled()))
    expect(workers.flatMap((worker) => worker.warnings)).toEqual([expectedWarning])
    expect(server.modelLookups).toEqual(['gpt-4.1'])
  })
})

describe('shutdownWarning', () => {
  it('counts the days from today, and says a date already past', () => {
    expect(shutdownWarning('gpt-4.1', inDays(1), today)).toContain(`gpt-4.1 shuts down tomorrow, ${inDays(1)}.`)
    expect(shutdownWarning('gpt-4.1', today, today)).toContain(`gpt-4.1 shuts down today, ${today}.`)
    expect(shutdownWarning('gpt-4.1', inDays(-1), today)).toContain(`shut down on ${inDays(-1)}, 1 day ago, according`)
    expect(shutdownWarning('gpt-4o', inDays(-30), today)).toContain(`gpt-4o shut down on ${inDays(-30)}, 30 days ago`)
  })
})
