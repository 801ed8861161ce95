import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { PLAYFUL, playfulChatbotDag, playfulConversation, routeByPrompt } from '../../test/support/walkthroughs.js'
import { CacheMissError } from '../errors.js'
import { OpenAIJudge } from '../judge/openai-judge.js'
import { scriptedJudge } from '../judge/scripted-judge.js'
import { ConversationalDAGMetric } from '../metrics/dag-metric.js'
import { type CacheMode, JudgeCacheStore } from './cache.js'
import { createJudgeRuntime } from './judge-runtime.js'

const FAKE_KEY = 'sk-judgetree-FAKE-KEY-0123456789abcdef'
const routes = routeByPrompt([
  [PLAYFUL.summary, { output: 'The user asked about the weather; the assistant teased them.' }],
  [PLAYFUL.satisfied, { reason: 'Every question got an answer.', verdict: true }],
  [PLAYFUL.behaviour, { reason: 'Teasing but friendly.', verdict: 'Playful' }],
])

let server: OpenAIServer
let dir: string

beforeAll(async () => {
  server = await startOpenAIServer(routes)
})
afterAll(() => server.close())
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'judgetree-cache-'))
  server.requests.length = 0
  server.respondWith(routes)
})
afterEach(async () => {
  vi.restoreAllMocks()
  await rm(dir, { recursive: true, force: true })
})

function metric(cache: CacheMode, warn: (message: string) => void = () => {}) {
  const runtime = createJudgeRuntime({ cache, cacheDir: dir, concurrency: 4, warn })
  const judge = new OpenAIJudge({ model: 'gpt-4.1', baseURL: server.baseURL, apiKey: FAKE_KEY, maxRetries: 0 })
  return new ConversationalDAGMetric({ name: 'Playful Chatbot', dag: playfulChatbotDag(), model: runtime.wrap(judge) })
}

async function cacheFiles(): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  // The entries only: the cache directory also holds its own .gitignore.
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
    .map((entry) => join(entry.parentPath, entry.name))
}

describe('judge cache through the OpenAI SDK', () => {
  it('answers a re-run from disk with zero requests, the same result, and no tokens or cost billed', async () => {
    const first = await metric('read-write').measure(playfulConversation)
    expect(first.score).toBe(1)
    expect(server.requests).toHaveLength(3)
    expect(first.usage).toMatchObject({ judgeCalls: 3, cachedCalls: 0, promptTokens: 30 })
    expect(first.usage.costUsd).toBeGreaterThan(0)
    expect(await cacheFiles()).toHaveLength(3)

    const second = await metric('read-write').measure(playfulConversation)
    expect(server.requests).toHaveLength(3)
    expect(second.score).toBe(first.score)
    expect(second.reason).toBe(first.reason)
    expect(second.usage).toEqual({ judgeCalls: 3, cachedCalls: 3, promptTokens: 0, completionTokens: 0, costUsd: 0 })
    const judged = second.trace.nodes.filter((node) => node.status === 'ran' && node.role !== 'verdict')
    expect(judged.map((node) => node.cached)).toEqual([true, true, true])
  })

  it('stores a readable entry under <2 hex>/<sha256>.json and never the API key, even when a server echoes it', async () => {
    server.respondWith((request) => {
      const reply = routes(request) as { json?: Record<string, unknown> }
      const echoed = {
        ...reply.json,
        ...('reason' in (reply.json ?? {}) ? { reason: `${request.headers.authorization}` } : {}),
      }
      return { json: echoed }
    })
    await metric('read-write').measure(playfulConversation)
    const files = await cacheFiles()
    expect(files).toHaveLength(3)
    for (const file of files) {
      expect(file).toMatch(/[/\\]([0-9a-f]{2})[/\\]\1[0-9a-f]{62}\.json$/)
      const text = await readFile(file, 'utf8')
      expect(text).not.toContain(FAKE_KEY)
      expect(text).not.toContain('FAKE-KEY')
      expect(JSON.parse(text)).toMatchObject({ format: 1, judge: 'gpt-4.1', createdAt: expect.any(String) })
    }
    const entries = await Promise.all(files.map(async (file) => JSON.parse(await readFile(file, 'utf8'))))
    expect(entries.map((entry) => entry.promptVersion).sort()).toEqual([
      'binary-judgement@1',
      'non-binary-judgement@1',
      'task-node@1',
    ])
    expect(JSON.stringify(entries)).toContain('Bearer sk-***')
  })

  it('in replay mode fails a miss without calling the judge, saying what is missing and how to record it', async () => {
    const result = await metric('replay').measure(playfulConversation)
    expect(server.requests).toHaveLength(0)
    expect(result.success).toBe(false)
    expect(result.name).toBe('Playful Chatbot')
    expect(result.error).toBeInstanceOf(CacheMissError)
    expect(result.error?.code).toBe('CACHE_MISS')
    expect(result.error?.message).toContain(
      `task-node@1 call (schema task_output, judge gpt-4.1 at ${new URL(server.baseURL).host}/v1)`,
    )
    expect(result.error?.message).toContain('  recorded: no task-node@1 answers in ')
    expect(result.error?.message).toContain(PLAYFUL.summary)
    expect(result.error?.message).toContain('JUDGETREE_CACHE=read-write')
    expect(result.error?.message).toContain('commit .judgetree/cache')
    expect(result.trace.nodes.find((node) => node.status === 'failed')?.text).toBe(PLAYFUL.summary)
  })

  it('in replay mode answers from a recorded cache with no server at all', async () => {
    await metric('read-write').measure(playfulConversation)
    server.respondWith(() => ({ status: 500, error: { message: 'must not be called' } }))
    const replayed = await metric('replay').measure(playfulConversation)
    expect(replayed.error).toBeUndefined()
    expect(replayed.score).toBe(1)
    expect(server.requests).toHaveLength(3)
  })

  it('replays anywhere: a recording made through one base URL replays with no base URL and no key', async () => {
    vi.stubEnv('OPENAI_BASE_URL', '')
    vi.stubEnv('OPENAI_API_KEY', '')
    await metric('read-write').measure(playfulConversation)
    expect(server.requests).toHaveLength(3)
    // Another server (the recording one, restarted on another port), or none at all: the key is the same.
    const elsewhere = (cache: CacheMode, options: { baseURL?: string; cacheNamespace?: string } = {}) => {
      const runtime = createJudgeRuntime({ cache, cacheDir: dir, concurrency: 4 })
      const judge = new OpenAIJudge({ model: 'gpt-4.1', maxRetries: 0, ...options })
      return new ConversationalDAGMetric({
        name: 'Playful Chatbot',
        dag: playfulChatbotDag(),
        model: runtime.wrap(judge),
      })
    }
    const replayed = await elsewhere('replay').measure(playfulConversation)
    expect(replayed.error).toBeUndefined()
    expect(replayed.usage.cachedCalls).toBe(3)
    // With every answer cached, read-write needs no key either: the judge is never reached.
    const readWrite = await elsewhere('read-write', { baseURL: 'http://127.0.0.1:9/v1' }).measure(playfulConversation)
    expect(readWrite.error).toBeUndefined()
    expect(readWrite.usage.cachedCalls).toBe(3)
    expect(server.requests).toHaveLength(3)

    // A namespace keeps another server's answers apart; the miss names the judge, its endpoint, and what was recorded.
    const apart = await elsewhere('replay', { cacheNamespace: 'quantized' }).measure(playfulConversation)
    expect(apart.error).toBeInstanceOf(CacheMissError)
    const message = apart.error?.message ?? ''
    expect(message).toContain('task-node@1 call (schema task_output, judge gpt-4.1 at api.openai.com/v1)')
    const host = new URL(server.baseURL).host
    expect(message).toContain(
      '  recorded: 1 task-node@1 answer with schema task_output, 1 by judge gpt-4.1; the nearest:',
    )
    expect(message).toMatch(new RegExp(`[0-9a-f]{64}\\.json \\(judge gpt-4\\.1 at ${host.replace('.', '\\.')}/v1, 20`))
    expect(message).toContain('(not the base URL: it is not part of the key)')
    // The closest recording is named with what differs from it: here a judge option, nothing in the prompt.
    expect(message).toMatch(
      / {2}the closest recording, \S+[0-9a-f]{64}\.json, differs in:\n {4}judge option namespace: \(none\) → quantized\n/,
    )
  })

  it('a replay miss shows the passage of the prompt that changed since the closest recording', async () => {
    await metric('read-write').measure(playfulConversation)
    const edited = {
      turns: playfulConversation.turns.map((turn, index) =>
        index === 3 ? { ...turn, content: 'The weather in Paris today is cloudy and 24°C.' } : turn,
      ),
    }
    const result = await metric('replay').measure(edited)
    expect(result.error).toBeInstanceOf(CacheMissError)
    const message = result.error?.message ?? ''
    expect(message).toContain('differs in:\n    message 2 (user): "…')
    expect(message).toContain('today is [sunny] and 24°C.')
    expect(message).toContain('today is [cloudy] and 24°C.')
    // Only what changed: the judge and its options are the same.
    expect(message).not.toMatch(/^ {4}judge/m)
  })

  it('keeps what was asked beside the answer, without the API key a test case happened to contain', async () => {
    const leaky = {
      turns: [{ role: 'user' as const, content: `my key is ${FAKE_KEY}` }, ...playfulConversation.turns.slice(1)],
    }
    await metric('read-write').measure(leaky)
    const entries = await Promise.all((await cacheFiles()).map(async (file) => readFile(file, 'utf8')))
    expect(entries).toHaveLength(3)
    for (const text of entries) {
      expect(text).not.toContain(FAKE_KEY)
      expect(JSON.parse(text).asked.identity).toMatchObject({ model: 'gpt-4.1' })
    }
    // The task step is shown the conversation; its entry keeps it, key scrubbed.
    const prompts = entries.map((text) => JSON.parse(text).asked.messages.at(-1).content as string)
    expect(prompts.filter((prompt) => prompt.includes('my key is sk-***'))).toHaveLength(1)
    // Scrubbed before sealing: the entries are still trusted, and replay answers from them.
    expect((await metric('replay').measure(leaky)).error).toBeUndefined()
  })

  it('records where each trial was answered too, so a replay miss after a trials run names the endpoint', async () => {
    const first = await metric('read-write').measure(playfulConversation, { trials: 2 })
    expect(first.error).toBeUndefined()
    const recorded = new JudgeCacheStore(dir, () => {}).summaries(100)
    // Three steps, each answered for two trials: six entries, every one with the server it came from.
    expect(recorded).toHaveLength(6)
    const host = new URL(server.baseURL).host
    expect(recorded.map((entry) => entry.endpoint)).toEqual(Array(6).fill(`${host}/v1`))
  })

  it('in read-only mode reads hits and calls the judge on misses, but never writes', async () => {
    await metric('read-only').measure(playfulConversation)
    expect(server.requests).toHaveLength(3)
    expect(await cacheFiles()).toEqual([])

    await metric('read-write').measure(playfulConversation)
    server.requests.length = 0
    const files = await cacheFiles()
    const before = await Promise.all(files.map((file) => readFile(file, 'utf8')))
    const result = await metric('read-only').measure(playfulConversation)
    expect(result.usage.cachedCalls).toBe(3)
    expect(server.requests).toHaveLength(0)
    expect(await Promise.all(files.map((file) => readFile(file, 'utf8')))).toEqual(before)
  })

  it('in off mode neither reads nor writes', async () => {
    await metric('read-write').measure(playfulConversation)
    server.requests.length = 0
    const result = await metric('off').measure(playfulConversation)
    expect(server.requests).toHaveLength(3)
    expect(result.usage.cachedCalls).toBe(0)
  })

  it('treats a damaged entry as a miss with one warning naming the file, then repairs it in read-write mode', async () => {
    await metric('read-write').measure(playfulConversation)
    const [cut, garbage] = await cacheFiles()
    await writeFile(cut as string, (await readFile(cut as string, 'utf8')).slice(0, 40))
    await writeFile(garbage as string, JSON.stringify({ format: 1, key: 'someone-else', response: { value: 1 } }))
    server.requests.length = 0
    const warnings: string[] = []

    const result = await metric('read-write', (message) => warnings.push(message)).measure(playfulConversation)
    expect(result.error).toBeUndefined()
    expect(result.score).toBe(1)
    expect(server.requests).toHaveLength(2)
    expect(warnings).toHaveLength(2)
    expect(warnings.join('\n')).toContain(cut)
    expect(warnings.join('\n')).toContain('not valid JSON')
    expect(warnings.join('\n')).toContain('a different key')

    server.requests.length = 0
    const repaired = await metric('read-write').measure(playfulConversation)
    expect(server.requests).toHaveLength(0)
    expect(repaired.usage.cachedCalls).toBe(3)
  })

  it('warns through console.warn by default', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    await metric('read-write').measure(playfulConversation)
    const [file] = await cacheFiles()
    await writeFile(file as string, '{"format": 1, "key": ')
    const runtime = createJudgeRuntime({ cache: 'read-write', cacheDir: dir, concurrency: 4 })
    const judge = new OpenAIJudge({ model: 'gpt-4.1', baseURL: server.baseURL, apiKey: FAKE_KEY, maxRetries: 0 })
    await new ConversationalDAGMetric({ name: 'P', dag: playfulChatbotDag(), model: runtime.wrap(judge) }).measure(
      playfulConversation,
    )
    expect(warn).toHaveBeenCalledTimes(1)
    expect(String(warn.mock.calls[0]?.[0])).toContain('damaged judge cache entry')
  })

  it('keeps an answer made in JSON mode marked in the trace, also when it comes from the cache', async () => {
    const refusal = {
      status: 400,
      error: { message: "Invalid schema for response_format 'binary_verdict': 'minLength' is not permitted." },
    }
    server.respondWith((request) => {
      const format = request.body.response_format
      return format?.type === 'json_schema' && format.json_schema.name === 'binary_verdict' ? refusal : routes(request)
    })
    const measure = () => {
      const warn = vi.fn()
      const runtime = createJudgeRuntime({ cache: 'read-write', cacheDir: dir, concurrency: 4 })
      const judge = new OpenAIJudge({
        model: 'gpt-4.1',
        baseURL: server.baseURL,
        apiKey: FAKE_KEY,
        maxRetries: 0,
        warn,
      })
      const dag = playfulChatbotDag()
      const result = new ConversationalDAGMetric({ name: 'Playful', dag, model: runtime.wrap(judge) }).measure(
        playfulConversation,
      )
      return { result, warn }
    }
    const note =
      'answer checked locally only: the judge model "gpt-4.1" refused the strict JSON schema "binary_verdict" ' +
      "(Invalid schema for response_format 'binary_verdict': 'minLength' is not permitted.), so it answered in JSON " +
      'mode and the answer was checked only against the local validation'

    const first = measure()
    expect((await first.result).trace.notes).toEqual([note])
    expect(first.warn).toHaveBeenCalledTimes(1)
    expect(server.requests.map(({ body }) => body.response_format?.type)).toEqual([
      'json_schema',
      'json_schema',
      'json_object',
      'json_schema',
    ])

    const second = measure()
    const replayed = await second.result
    expect(replayed.usage.cachedCalls).toBe(3)
    expect(server.requests).toHaveLength(4)
    expect(replayed.trace.notes).toEqual([note])
    expect(replayed.verboseLogs).toContain(`note: ${note}`)
    expect(second.warn).not.toHaveBeenCalled()
  })

  it('never caches a judge that says it is not cacheable (a scripted judge)', async () => {
    const runtime = createJudgeRuntime({ cache: 'read-write', cacheDir: dir, concurrency: 4 })
    const judge = scriptedJudge({
      rules: [
        { match: PLAYFUL.summary, answer: { output: 'summary' } },
        { match: PLAYFUL.satisfied, answer: { reason: 'r', verdict: false } },
      ],
    })
    const scripted = new ConversationalDAGMetric({ name: 'P', dag: playfulChatbotDag(), model: runtime.wrap(judge) })
    await scripted.measure(playfulConversation)
    await scripted.measure(playfulConversation)
    expect(judge.requests).toHaveLength(4)
    expect(await cacheFiles()).toEqual([])
  })
})

describe('JudgeCacheStore.summaries', () => {
  const usage = { promptTokens: 1, completionTokens: 1, costUsd: 0 }
  const summary = { judge: 'gpt-4.1', promptVersion: 'test@1', schemaName: 'verdict' }

  it('reads the entries once, and again only after the store wrote one', async () => {
    const store = new JudgeCacheStore(dir, () => {})
    await store.write('a'.repeat(64), summary, { value: { verdict: true }, usage, cached: false })
    const first = store.summaries(2_000)
    expect(first.map((entry) => entry.file)).toEqual([store.fileOf('a'.repeat(64))])
    // What another process writes is not seen until this store writes: the list is read once, not per miss.
    const other = new JudgeCacheStore(dir, () => {})
    await other.write('c'.repeat(64), summary, { value: { verdict: true }, usage, cached: false })
    expect(store.summaries(2_000)).toBe(first)
    await store.write('b'.repeat(64), summary, { value: { verdict: false }, usage, cached: false })
    expect(store.summaries(2_000).map((entry) => entry.file)).toEqual(
      ['a', 'b', 'c'].map((digit) => store.fileOf(digit.repeat(64))),
    )
  })
})
