// A child process for the coordinator test: makes judge calls through a runtime that shares a coordinator's limit,
// or (mode "hold") takes a slot and keeps it until killed.
import { z } from 'zod'
import { OpenAIJudge } from '../../src/index.js'
import { acquireSlot } from '../../src/runtime/coordinator-client.js'
import { createJudgeRuntime } from '../../src/runtime.js'

const [mode, coordinatorUrl, baseURL, countText, retriesText = '0'] = process.argv.slice(2)

if (mode === 'hold') {
  await acquireSlot(coordinatorUrl as string)
  process.stdout.write(`${JSON.stringify({ event: 'held' })}\n`)
  setInterval(() => {}, 1_000)
} else {
  const runtime = createJudgeRuntime({ cache: 'off', concurrency: 10, coordinatorUrl })
  const judge = runtime.wrap(new OpenAIJudge({ baseURL, apiKey: 'local', maxRetries: Number(retriesText) }))
  const schema = z.object({ ok: z.boolean() })
  await Promise.all(
    Array.from({ length: Number(countText) }, (_, i) =>
      judge.generate({
        messages: [{ role: 'user', content: `call ${i}` }],
        schema,
        schemaName: 'ok',
        promptVersion: 'ok@1',
      }),
    ),
  )
  process.stdout.write(`${JSON.stringify({ event: 'done' })}\n`)
}
