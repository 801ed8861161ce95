// Judge calls per measurement, counted at an in-process judge, against what each metric should need.
import { conversations, core, instantJudge, playfulChatbotDag, report } from '../lib.mjs'

const runtime = core.createJudgeRuntime({ cache: 'off', concurrency: 8 })
const rows = []

/** Measures each test case in turn and records the judge calls each measurement made. */
async function count(label, expected, build, testCases, judgeOptions) {
  const judge = instantJudge(judgeOptions)
  const metric = build(runtime.wrap(judge))
  const calls = []
  for (const testCase of testCases) {
    const before = judge.calls
    const result = await metric.measure(testCase)
    if (result.error) throw new Error(`${label}: ${result.error.message}`)
    calls.push(judge.calls - before)
  }
  rows.push({ label, expected, calls })
}

const [conversation] = conversations(1)
const withContext = conversations(1, { context: true })[0]
// Two of the three assistant turns have retrieval context.
withContext.turns[5] = { role: 'assistant', content: withContext.turns[5].content }
const single = { input: 'What is 2 + 2?', actualOutput: '4' }
const { LLMTestCaseParams } = core

await count(
  'DAG, playful chatbot, satisfied (summary → satisfied? → behaviour)',
  '3 (nodes on the path)',
  (model) => new core.ConversationalDAGMetric({ name: 'Playful', dag: playfulChatbotDag(), model }),
  [conversation],
)
await count(
  'DAG, playful chatbot, not satisfied (summary → satisfied?)',
  '2 (nodes on the path)',
  (model) => new core.ConversationalDAGMetric({ name: 'Playful', dag: playfulChatbotDag(), model }),
  [conversation],
  { verdict: false },
)
if (typeof core.GEval === 'function') {
  await count(
    'G-Eval from criteria, 3 test cases on one instance',
    '2, then 1 (steps once per instance)',
    (model) =>
      new core.GEval({
        name: 'Correct',
        criteria: 'Is the answer correct?',
        evaluationParams: [LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT],
        model,
      }),
    [single, single, single],
  )
}
if (typeof core.ConversationRelevancyMetric === 'function') {
  await count(
    'Conversation relevancy, 3 assistant replies',
    '3 (one per assistant reply)',
    (model) => new core.ConversationRelevancyMetric({ model }),
    [conversation],
  )
}
if (typeof core.TurnContextualRelevancyMetric === 'function') {
  await count(
    'Turn contextual relevancy, 3 assistant turns, 2 with context',
    '2 (one per assistant turn with context)',
    (model) => new core.TurnContextualRelevancyMetric({ model }),
    [withContext],
  )
}
report({ rows })
