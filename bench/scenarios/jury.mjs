// A jury against one judge on the playful-chatbot DAG (the walkthrough's), through the real `openai` SDK to the bench
// server (which bills characters ÷ 4 as tokens): HTTP requests and cost per evaluation for one judge, a jury of three
// asking every juror, and the same jury with `escalate`. The bench server answers every model alike, so the second
// juror is made to disagree on a share of the decisions (chosen by a hash of the prompt), after its real request:
// that share is what `escalate` pays the third juror for.
// Usage: node bench/scenarios/jury.mjs [conversations=100] [disagreement=0.25]
import { createHash } from 'node:crypto'
import { conversations, core, measureAll, playfulChatbotDag, report } from '../lib.mjs'
import { startBenchServer } from '../server.mjs'

const [conversationCount = 100, disagreement = 0.25] = process.argv.slice(2).map(Number)
const CONCURRENCY = 16
const server = await startBenchServer({ latencyMs: 0 })
const testCases = conversations(conversationCount)
const judge = (model) => new core.OpenAIJudge({ model, baseURL: server.baseURL, apiKey: 'bench-key' })

/** A juror that asks its model, then turns the verdict of `share` of the decisions (a yes/no, or a choice's option). */
function contrary(inner, share) {
  const turned = (request) => {
    const digest = createHash('sha1').update(JSON.stringify(request.messages)).digest()
    return digest.readUInt32BE(0) / 2 ** 32 < share
  }
  return {
    name: inner.name,
    cacheIdentity: { contrary: share },
    async generate(request) {
      const response = await inner.generate(request)
      const question = request.question
      if (question === undefined || !turned(request)) return response
      const answer = response.value[question.field]
      const other = question.kind === 'predicate' ? !answer : question.kind === 'choice' ? question.options[0] : answer
      return { ...response, value: { ...response.value, [question.field]: other } }
    },
  }
}

async function measure(kind) {
  const runtime = core.createJudgeRuntime({ cache: 'off', concurrency: CONCURRENCY })
  const panel = () => [judge('gpt-4.1'), contrary(judge('gpt-4.1-mini'), disagreement), judge('gpt-4.1-nano')]
  const model =
    kind === 'one judge' ? judge('gpt-4.1') : core.jury(panel(), { escalate: kind === 'jury of three, escalate' })
  const metric = new core.ConversationalDAGMetric({
    name: 'Playful',
    dag: playfulChatbotDag(),
    model: runtime.wrap(model),
  })
  const results = []
  const measureOne = metric.measure.bind(metric)
  metric.measure = async (testCase) => {
    const result = await measureOne(testCase)
    results.push(result)
    return result
  }
  const before = server.stats().requests
  const errors = await measureAll(metric, testCases, CONCURRENCY)
  if (errors > 0) throw new Error(`${errors} measurements failed: ${results.find((r) => r.error)?.error?.message}`)
  const requests = server.stats().requests - before
  const cost = results.reduce((sum, result) => sum + result.usage.costUsd, 0)
  const agreements = results.flatMap((result) => (result.agreement === undefined ? [] : [result.agreement]))
  const byJuror = {}
  for (const result of results) {
    for (const [juror, usage] of Object.entries(result.usage.jurors ?? {})) {
      byJuror[juror] = (byJuror[juror] ?? 0) + usage.judgeCalls / results.length
    }
  }
  return {
    kind,
    evaluations: results.length,
    requestsPerEvaluation: requests / results.length,
    costPerEvaluationUsd: cost / results.length,
    meanAgreement: agreements.length === 0 ? undefined : agreements.reduce((a, b) => a + b, 0) / agreements.length,
    callsPerJurorPerEvaluation: byJuror,
    meanScore: results.reduce((sum, result) => sum + result.score, 0) / results.length,
  }
}

const rows = []
for (const kind of ['one judge', 'jury of three', 'jury of three, escalate']) rows.push(await measure(kind))
await server.close()
report({ conversations: conversationCount, disagreement, rows })
