// Judge calls per measurement, counted at an in-process judge, against what each metric should need.
import { conversations, core, instantDecisionJudge, instantJudge, playfulChatbotDag, report } from '../lib.mjs'

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

/**
 * The same metrics with a decision judge (`decisionModel`): chat calls (tasks, steps, statements) and decision
 * requests (each holding every decision about one state) per measurement.
 */
async function countHybrid(label, expected, build, testCases) {
  const chat = instantJudge()
  const decider = instantDecisionJudge()
  const metric = build(runtime.wrap(chat), runtime.wrap(decider))
  const calls = []
  for (const testCase of testCases) {
    const before = { chat: chat.calls, requests: decider.calls, decisions: decider.decisions }
    const result = await metric.measure(testCase)
    if (result.error) throw new Error(`${label}: ${result.error.message}`)
    calls.push(
      `${chat.calls - before.chat} chat + ${decider.calls - before.requests} decision request(s) ` +
        `holding ${decider.decisions - before.decisions} decision(s)`,
    )
  }
  rows.push({ label: `${label}, with decisionModel`, expected, calls })
}

await countHybrid(
  'DAG, playful chatbot, satisfied',
  '1 chat (the summary task) + 2 decision requests (satisfied?, then behaviour)',
  (model, decisionModel) =>
    new core.ConversationalDAGMetric({ name: 'Playful', dag: playfulChatbotDag(), model, decisionModel }),
  [conversation],
)
await countHybrid(
  'G-Eval from criteria, 3 test cases on one instance',
  '1 chat (steps, once per instance), then 0; 1 decision request each',
  (model, decisionModel) =>
    new core.GEval({
      name: 'Correct',
      criteria: 'Is the answer correct?',
      evaluationParams: [LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT],
      model,
      decisionModel,
    }),
  [single, single, single],
)
await countHybrid(
  'Conversation relevancy, 3 assistant replies',
  '0 chat + 1 decision request (its 3 windows ask about one state, the conversation)',
  (model, decisionModel) => new core.ConversationRelevancyMetric({ model, decisionModel }),
  [conversation],
)
await countHybrid(
  'Turn contextual relevancy, 3 assistant turns, 2 with context',
  "2 chat (statements per turn with context) + 2 decision requests (each turn's statements together)",
  (model, decisionModel) => new core.TurnContextualRelevancyMetric({ model, decisionModel }),
  [withContext],
)
report({ rows })
