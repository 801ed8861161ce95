// A child process for the cache test: hammers one cache directory with writes and reads while others do too.
import { z } from 'zod'
import type { JudgeModel, JudgeRequest, JudgeResponse } from '../../src/index.js'
import { createJudgeRuntime } from '../../src/runtime.js'

const [cacheDir, workerId, countText] = process.argv.slice(2)
const count = Number(countText)
const schema = z.object({ answer: z.string(), padding: z.string() })
// Big entries widen the window in which a reader could see a half-written file.
const padding = 'x'.repeat(20_000)

const judge: JudgeModel = {
  name: 'echo-judge',
  cacheIdentity: { temperature: 0 },
  async generate<T>(request: JudgeRequest<T>): Promise<JudgeResponse<T>> {
    const prompt = request.messages.at(-1)?.content ?? ''
    const value = request.schema.parse({ answer: `answer to ${prompt}`, padding })
    return { value, usage: { promptTokens: 1, completionTokens: 1, costUsd: 0 }, cached: false }
  },
}

const warnings: string[] = []
const runtime = createJudgeRuntime({ cache: 'read-write', cacheDir, concurrency: 16, warn: (m) => warnings.push(m) })
const wrapped = runtime.wrap(judge)
const prompts = [
  ...Array.from({ length: count }, (_, i) => `shared ${i}`),
  ...Array.from({ length: count }, (_, i) => `worker ${workerId} item ${i}`),
]
let wrong = 0
for (let round = 0; round < 3; round++) {
  // Each worker walks the shared prompts in a different order, so writes and reads of one key interleave.
  const order = round % 2 === 0 ? prompts : [...prompts].reverse()
  await Promise.all(
    order.map(async (prompt) => {
      const response = await wrapped.generate({
        messages: [{ role: 'user', content: prompt }],
        schema,
        schemaName: 'echo',
        promptVersion: 'echo@1',
      })
      if (response.value.answer !== `answer to ${prompt}` || response.value.padding !== padding) wrong += 1
    }),
  )
}
process.stdout.write(`${JSON.stringify({ event: 'done', wrong, warnings, stats: runtime.stats() })}\n`)
