// A child process for the clean-exit test: ends its judge calls in one of the ways that used to leave a timer
// behind, prints when they have all settled, then simply returns, so the process exits only if nothing holds it.
import { z } from 'zod'
import { OpenAIJudge } from '../../src/index.js'
import { createJudgeRuntime } from '../../src/runtime.js'

const [scenario, baseURL] = process.argv.slice(2)
const schema = z.object({ ok: z.boolean() })
const ask = (i: number, signal?: AbortSignal) => ({
  messages: [{ role: 'user' as const, content: `call ${i}` }],
  schema,
  schemaName: 'ok',
  promptVersion: 'ok@1',
  signal,
})

const controller = new AbortController()
const options =
  scenario === 'rpm-abort'
    ? { requestsPerMinute: 6, maxRetries: 0, calls: 20, abortAfterMs: 300 }
    : scenario === 'retry-after-given-up'
      ? { requestsPerMinute: undefined, maxRetries: 0, calls: 1, abortAfterMs: undefined }
      : { requestsPerMinute: undefined, maxRetries: 3, calls: 3, abortAfterMs: 300 }
const runtime = createJudgeRuntime({ cache: 'off', concurrency: 2, requestsPerMinute: options.requestsPerMinute })
const judge = runtime.wrap(new OpenAIJudge({ baseURL, apiKey: 'local', maxRetries: options.maxRetries }))
const calls = Array.from({ length: options.calls }, (_, i) => judge.generate(ask(i, controller.signal)))
if (options.abortAfterMs !== undefined) setTimeout(() => controller.abort(new Error('stopped')), options.abortAfterMs)
const outcomes = await Promise.allSettled(calls)
process.stdout.write(
  `${JSON.stringify({
    event: 'settled',
    at: Date.now(),
    outcomes: outcomes.map((outcome) =>
      outcome.status === 'fulfilled' ? 'answer' : ((outcome.reason as { code?: string }).code ?? 'error'),
    ),
  })}\n`,
)
