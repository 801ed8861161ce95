// The chat judge against the decision judge, same run, through the real `openai` SDK to the bench server (which
// bills characters ÷ 4 as tokens on both endpoints): requests, tokens, cost at the price table's gpt-6-luna prices
// (chat completions, and the Decisions API's), and wall time.
// Usage: node bench/scenarios/decisions.mjs [latencyMs=50] [conversations=200] [cases=100] [rounds=2]
import { configureServer, conversations, core, measureAll, median, playfulChatbotDag, report } from '../lib.mjs'
import { startBenchServer } from '../server.mjs'

const [latencyMs = 50, conversationCount = 200, caseCount = 100, rounds = 2] = process.argv.slice(2).map(Number)
const CONCURRENCY = 16
const server = await startBenchServer({ latencyMs })
const options = { model: 'gpt-6-luna', baseURL: server.baseURL, apiKey: 'bench-key' }

const singleTurn = Array.from({ length: caseCount }, (_, i) => ({
  input: `What is ${i} + ${i}? (case ${i})`,
  actualOutput: `${2 * i}`,
  expectedOutput: `${2 * i}`,
}))
const { LLMTestCaseParams } = core

const suites = {
  'playful-chatbot DAG': {
    testCases: conversations(conversationCount),
    build: (model, decisionModel) =>
      new core.ConversationalDAGMetric({ name: 'Playful', dag: playfulChatbotDag(), model, decisionModel }),
  },
  'G-Eval from criteria': {
    testCases: singleTurn,
    build: (model, decisionModel) =>
      new core.GEval({
        name: 'Correct',
        criteria: 'Is the actual output correct given the expected output?',
        evaluationParams: [LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT, LLMTestCaseParams.EXPECTED_OUTPUT],
        model,
        decisionModel,
      }),
  },
}

/** One suite with one kind of judge, in a fresh runtime (cache off): what the server saw and what the results say. */
async function measure(suite, withDecisions) {
  const runtime = core.createJudgeRuntime({ cache: 'off', concurrency: CONCURRENCY })
  const chat = runtime.wrap(new core.OpenAIJudge(options))
  const decider = withDecisions ? runtime.wrap(new core.OpenAIDecisionJudge(options)) : undefined
  const metric = suite.build(chat, decider)
  const results = []
  const measureOne = metric.measure.bind(metric)
  metric.measure = async (testCase, measureOptions) => {
    const result = await measureOne(testCase, measureOptions)
    results.push(result)
    return result
  }
  await configureServer(server.url, latencyMs)
  const started = performance.now()
  const errors = await measureAll(metric, suite.testCases, CONCURRENCY)
  const wallMs = performance.now() - started
  if (errors > 0) throw new Error(`${errors} measurements failed: ${results.find((r) => r.error)?.error?.message}`)
  const stats = server.stats()
  const costs = results.map((result) => result.usage.costUsd)
  return {
    requests: stats.requests,
    decisionRequests: stats.decisionRequests,
    promptTokens: stats.promptTokens,
    completionTokens: stats.completionTokens,
    costUsd: costs.includes(undefined) ? undefined : costs.reduce((sum, cost) => sum + cost, 0),
    wallMs,
    scores: results.map((result) => result.score),
  }
}

const rows = []
for (const [name, suite] of Object.entries(suites)) {
  const runs = { chat: [], decisions: [] }
  for (let round = 0; round < rounds; round++) {
    // Alternating which goes first, so neither always runs on a warmer process.
    const order = round % 2 === 0 ? ['chat', 'decisions'] : ['decisions', 'chat']
    for (const kind of order) runs[kind].push(await measure(suite, kind === 'decisions'))
  }
  const [chat, decisions] = [runs.chat[0], runs.decisions[0]]
  const meanScore = (run) => run.scores.reduce((sum, score) => sum + score, 0) / run.scores.length
  rows.push({
    suite: name,
    measurements: suite.testCases.length,
    chat: { ...chat, scores: undefined, wallMs: median(runs.chat.map((run) => run.wallMs)) },
    decisions: { ...decisions, scores: undefined, wallMs: median(runs.decisions.map((run) => run.wallMs)) },
    costRatio: chat.costUsd && decisions.costUsd !== undefined ? decisions.costUsd / chat.costUsd : undefined,
    wallRatio: median(runs.decisions.map((run) => run.wallMs)) / median(runs.chat.map((run) => run.wallMs)),
    // The same most probable answers: the DAG's paths and scores agree; G-Eval's decision score is weighted by the
    // levels' probabilities (the chat score is raw: the bench server gives no logprobs).
    meanScore: { chat: meanScore(chat), decisions: meanScore(decisions) },
    wallRuns: {
      chat: runs.chat.map((run) => Math.round(run.wallMs)),
      decisions: runs.decisions.map((run) => Math.round(run.wallMs)),
    },
  })
}
await server.close()
report({ latencyMs, concurrency: CONCURRENCY, rows })
