// The eval suite: N conversations × the playful-chatbot DAG through evaluate(), the OpenAI SDK and the bench
// server, configured as a user would: the default judge runtime, set by JUDGETREE_CONCURRENCY and
// JUDGETREE_CACHE_DIR (run.mjs sets them). Run once on an empty cache (cold), then again on the filled one (warm).
import { conversations, core, playfulChatbotDag, report, serverStats } from '../lib.mjs'

const started = performance.now()
const [baseURL, serverURL, count = '200', evaluateConcurrency] = process.argv.slice(2)
const judge = new core.OpenAIJudge({ model: 'gpt-4.1', baseURL, apiKey: 'sk-bench', maxRetries: 0 })
const metric = new core.ConversationalDAGMetric({ name: 'Playful', dag: playfulChatbotDag(), model: judge })
const before = (await serverStats(serverURL)).requests
const evaluated = performance.now()
const cpu = process.cpuUsage()
const { summary } = await core.evaluate(conversations(Number(count)), [metric], {
  summary: false,
  progress: false,
  ...(evaluateConcurrency ? { concurrency: Number(evaluateConcurrency) } : {}),
})
const evaluateMs = performance.now() - evaluated
const used = process.cpuUsage(cpu)
const requests = (await serverStats(serverURL)).requests - before
if (summary.errored > 0) throw new Error(`${summary.errored} measurements errored`)
report({
  evaluateMs,
  // From the first line of this script, module loading excluded (that is Node's, and ~100 ms).
  scriptMs: performance.now() - started,
  cpuMs: (used.user + used.system) / 1000,
  judgeCalls: summary.judgeCalls,
  cachedCalls: summary.cachedCalls,
  requests,
})
