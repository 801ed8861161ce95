// Engine overhead: playful-chatbot DAG measurements per second with a judge in this process that answers at once.
// Every judge call still goes through the judge runtime (limiter), as in real use; the cache is off.
import { conversations, core, instantJudge, measureAll, playfulChatbotDag, report } from '../lib.mjs'

// `inFlight` measurements at once: 8 (the judge limit) never queues a call; 64 keeps the queue full.
const [repeats = '5', perRun = '20000', inFlight = '8'] = process.argv.slice(2)
const runtime = core.createJudgeRuntime({ cache: 'off', concurrency: 8 })
const judge = instantJudge()
const metric = new core.ConversationalDAGMetric({
  name: 'Playful',
  dag: playfulChatbotDag(),
  model: runtime.wrap(judge),
})
const cases = conversations(Number(perRun))

await measureAll(metric, cases.slice(0, 2_000), Number(inFlight))
const rates = []
for (let run = 0; run < Number(repeats); run++) {
  const calls = judge.calls
  const started = performance.now()
  const errors = await measureAll(metric, cases, Number(inFlight))
  const seconds = (performance.now() - started) / 1000
  if (errors > 0) throw new Error(`${errors} measurements failed`)
  rates.push(cases.length / seconds)
  if (judge.calls - calls !== 3 * cases.length) throw new Error('expected 3 judge calls per measurement')
}
report({ rates })
