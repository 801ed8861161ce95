// Judge calls per second through the real openai SDK to the bench server over loopback at zero latency.
import { z } from 'zod'
import { core, report } from '../lib.mjs'

const [baseURL, repeats = '5', perRun = '3000', concurrency = '32'] = process.argv.slice(2)
const runtime = core.createJudgeRuntime({ cache: 'off', concurrency: Number(concurrency) })
const judge = runtime.wrap(new core.OpenAIJudge({ model: 'gpt-4.1', baseURL, apiKey: 'sk-bench', maxRetries: 0 }))
const schema = z.object({ reason: z.string(), verdict: z.boolean() })
const ask = (i) =>
  judge.generate({
    messages: [
      { role: 'system', content: 'You are a meticulous evaluator.' },
      { role: 'user', content: `Decide whether the data meets this criteria: item ${i} is relevant.` },
    ],
    schema,
    schemaName: 'binary_verdict',
    promptVersion: 'bench@1',
  })

const run = (count) => Promise.all(Array.from({ length: count }, (_, i) => ask(i)))
await run(500)
const rates = []
for (let repeat = 0; repeat < Number(repeats); repeat++) {
  const started = performance.now()
  await run(Number(perRun))
  rates.push(Number(perRun) / ((performance.now() - started) / 1000))
}
report({ rates })
