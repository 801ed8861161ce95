import { jsonReply, lastUserMessage, type Responder } from '@judgetree/test-support'
import {
  BinaryJudgementNode,
  ConversationalBinaryJudgementNode,
  ConversationalNonBinaryJudgementNode,
  ConversationalTaskNode,
  type ConversationalTestCase,
  ConversationalVerdictNode,
  DeepAcyclicGraph,
  type LLMTestCase,
  LLMTestCaseParams,
  NonBinaryJudgementNode,
  SingleTurnParams,
  TaskNode,
  TurnParams,
  VerdictNode,
} from '../../src/index.js'
import { DATA_OPEN, readData } from '../../src/prompts/shared.js'

/** The reference's playful-chatbot conversation. */
export const playfulConversation: ConversationalTestCase = {
  turns: [
    { role: 'user', content: "what's the weather like today?" },
    { role: 'assistant', content: 'Where do you live bro? T~T' },
    { role: 'user', content: 'Just tell me the weather in Paris' },
    { role: 'assistant', content: 'The weather in Paris today is sunny and 24°C.' },
    { role: 'user', content: 'Should I take an umbrella?' },
    { role: 'assistant', content: "You trying to be stylish? I don't recommend it." },
  ],
}

export const PLAYFUL = {
  summary: "Summarize the conversation and explain assistant's behaviour overall.",
  satisfied: "Do the assistant's replies satisfy user's questions?",
  behaviour: "How was the assistant's behaviour towards user?",
} as const

/**
 * The reference's playful-chatbot DAG, exactly as its walkthrough builds it: the behaviour judgement names no
 * evaluationParams and sits only under the "satisfied → true" verdict, so it is shown what that judgement was
 * shown (the summary).
 */
export function playfulChatbotDag() {
  const behaviour = new ConversationalNonBinaryJudgementNode({
    criteria: PLAYFUL.behaviour,
    children: [
      new ConversationalVerdictNode({ verdict: 'Rude', score: 0 }),
      new ConversationalVerdictNode({ verdict: 'Neutral', score: 5 }),
      new ConversationalVerdictNode({ verdict: 'Playful', score: 10 }),
    ],
  })
  const satisfied = new ConversationalBinaryJudgementNode({
    criteria: PLAYFUL.satisfied,
    children: [
      new ConversationalVerdictNode({ verdict: false, score: 0 }),
      new ConversationalVerdictNode({ verdict: true, child: behaviour }),
    ],
  })
  const summary = new ConversationalTaskNode({
    instructions: PLAYFUL.summary,
    outputLabel: 'Summary',
    evaluationParams: [TurnParams.ROLE, TurnParams.CONTENT],
    children: [satisfied],
  })
  return new DeepAcyclicGraph({ rootNodes: [summary] })
}

/**
 * The same playful-chatbot DAG built top-down, the way the reference library's newer releases write it: nodes
 * created without children and completed with addNode/addVerdict. It must give the same graph as the printed one.
 */
export function playfulChatbotDagTopDown() {
  const summary = new ConversationalTaskNode({
    instructions: PLAYFUL.summary,
    outputLabel: 'Summary',
    evaluationParams: [TurnParams.ROLE, TurnParams.CONTENT],
  })
  const satisfied = summary.addNode(new ConversationalBinaryJudgementNode({ criteria: PLAYFUL.satisfied }))
  const behaviour = new ConversationalNonBinaryJudgementNode({ criteria: PLAYFUL.behaviour })
  satisfied.addVerdict(false, { score: 0 })
  satisfied.addVerdict(true, { then: behaviour })
  behaviour.addVerdict('Rude', { score: 0 })
  behaviour.addVerdict('Neutral', { score: 5 })
  behaviour.addVerdict('Playful', { score: 10 })
  return new DeepAcyclicGraph({ rootNodes: [summary] })
}

/** The reference's meeting-summary test case, transcript and summary as printed. */
export const meetingSummary: LLMTestCase = {
  input: [
    `Alice: "Today's agenda: product update, blockers, and marketing timeline. Bob, updates?"`,
    `Bob: "Core features are done, but we're optimizing performance for large datasets. Fixes by Friday, testing next week."`,
    `Alice: "Charlie, does this timeline work for marketing?"`,
    `Charlie: "We need finalized messaging by Monday."`,
    `Alice: "Bob, can we provide a stable version by then?"`,
    `Bob: "Yes, we'll share an early build."`,
    `Charlie: "Great, we'll start preparing assets."`,
    `Alice: "Plan: fixes by Friday, marketing prep Monday, sync next Wednesday. Thanks, everyone!"`,
  ].join('\n'),
  actualOutput: [
    'Intro:',
    'Alice outlined the agenda: product updates, blockers, and marketing alignment.',
    'Body:',
    'Bob reported performance issues being optimized, with fixes expected by Friday. Charlie requested finalized messaging by Monday for marketing preparation. Bob confirmed an early stable build would be ready.',
    'Conclusion:',
    'The team aligned on next steps: engineering finalizing fixes, marketing preparing content, and a follow-up sync scheduled for Wednesday.',
  ].join('\n'),
}

export const MEETING = {
  extract: 'Extract all headings in `actual_output`',
  present: "Does the summary headings contain all three: 'intro', 'body', and 'conclusion'?",
  order: "Are the summary headings in the correct order: 'intro' => 'body' => 'conclusion'?",
} as const

/** The reference's meeting-summary headings DAG, exactly as its walkthrough builds it. */
export function meetingSummaryDag() {
  const order = new NonBinaryJudgementNode({
    criteria: MEETING.order,
    children: [
      new VerdictNode({ verdict: 'Yes', score: 10 }),
      new VerdictNode({ verdict: 'Two are out of order', score: 4 }),
      new VerdictNode({ verdict: 'All out of order', score: 2 }),
    ],
  })
  const present = new BinaryJudgementNode({
    criteria: MEETING.present,
    children: [new VerdictNode({ verdict: false, score: 0 }), new VerdictNode({ verdict: true, child: order })],
  })
  const extract = new TaskNode({
    instructions: MEETING.extract,
    evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
    outputLabel: 'Summary headings',
    children: [present, order],
  })
  return new DeepAcyclicGraph({ rootNodes: [extract] })
}

/**
 * The same meeting-summary DAG built top-down: the order judgement reads the extracted headings (a child of the
 * task) and is reached only through "present → true".
 */
export function meetingSummaryDagTopDown() {
  const extract = new TaskNode({
    instructions: MEETING.extract,
    evaluationParams: [SingleTurnParams.ACTUAL_OUTPUT],
    outputLabel: 'Summary headings',
  })
  const present = extract.addNode(new BinaryJudgementNode({ criteria: MEETING.present }))
  const order = extract.addNode(new NonBinaryJudgementNode({ criteria: MEETING.order }))
  present.addVerdict(false, { score: 0 })
  present.addVerdict(true, { then: order })
  order.addVerdict('Yes', { score: 10 })
  order.addVerdict('Two are out of order', { score: 4 })
  order.addVerdict('All out of order', { score: 2 })
  return new DeepAcyclicGraph({ rootNodes: [extract] })
}

/** Answers each request with the JSON of the first route whose text appears in the prompt's criteria/instructions. */
export function routeByPrompt(routes: readonly (readonly [string, unknown])[]): Responder {
  return (request) => {
    // The first user message is the task; a re-ask adds our correction after it.
    const prompt = request.body.messages.find((message) => message.role === 'user')?.content ?? ''
    // Match only the task part, above the data block, so test-case text can never pick the route.
    const task = prompt.split(DATA_OPEN)[0] ?? ''
    const route = routes.find(([needle]) => task.includes(needle))
    if (!route) return { status: 500, error: { message: `no route for prompt: ${task.slice(0, 200)}` } }
    return jsonReply(route[1])
  }
}

/** The JSON document a prompt shows the judge, parsed back. */
export function promptData(request: Parameters<Responder>[0]): Record<string, unknown> {
  const data = readData(lastUserMessage(request))
  if (data === undefined) throw new Error('the prompt has no data block')
  return data as Record<string, unknown>
}
