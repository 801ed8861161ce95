// Resident memory over many measurements in one process: RSS after a warm-up and at the end, after a GC each time.
// Every call goes through the judge runtime with the cache on (a temporary directory), so the cache's bookkeeping
// is exercised too; results are dropped as they arrive, as a test runner does.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { conversations, core, instantJudge, measureAll, playfulChatbotDag, report } from '../lib.mjs'

const [total = '10000', warmup = '1000'] = process.argv.slice(2)
const dir = await mkdtemp(join(tmpdir(), 'judgetree-bench-memory-'))
const runtime = core.createJudgeRuntime({ cache: 'read-write', cacheDir: dir, concurrency: 8 })
const metric = new core.ConversationalDAGMetric({
  name: 'Playful',
  dag: playfulChatbotDag(),
  model: runtime.wrap(instantJudge({ distinct: true })),
})
const cases = conversations(Number(total))
const sample = () => {
  globalThis.gc?.()
  return process.memoryUsage()
}
const MB = 1024 * 1024
await measureAll(metric, cases.slice(0, Number(warmup)), 64)
const warm = sample()
const samples = []
for (let from = Number(warmup); from < cases.length; from += 1000) {
  await measureAll(metric, cases.slice(from, from + 1000), 64)
  samples.push(sample().rss / MB)
}
const end = sample()
await rm(dir, { recursive: true, force: true })
report({
  rssWarmMb: warm.rss / MB,
  rssEndMb: end.rss / MB,
  rssMaxMb: Math.max(warm.rss / MB, ...samples),
  rssSamplesMb: samples.map((mb) => Math.round(mb)),
  heapWarmMb: warm.heapUsed / MB,
  heapEndMb: end.heapUsed / MB,
  stats: runtime.stats(),
})
