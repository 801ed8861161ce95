import { describe, expect, test } from 'vitest'
import { DeepAcyclicGraph } from '../dag/graph.js'
import { ConversationalBinaryJudgementNode } from '../dag/nodes/binary-judgement-node.js'
import { ConversationalNonBinaryJudgementNode } from '../dag/nodes/non-binary-judgement-node.js'
import { ConversationalTaskNode } from '../dag/nodes/task-node.js'
import { ConversationalVerdictNode } from '../dag/nodes/verdict-node.js'
import { scriptedJudge } from '../judge/scripted-judge.js'
import { ConversationalDAGMetric } from '../metrics/dag-metric.js'
import { TurnParams } from '../test-case/params.js'
import { renderResult, renderSummaryLine, renderTrace } from './render.js'

function playful(behaviourLabel?: string) {
  const behaviour = new ConversationalNonBinaryJudgementNode({
    criteria: "How was the assistant's behaviour towards user?",
    label: behaviourLabel,
    children: [
      new ConversationalVerdictNode({ verdict: 'Rude', score: 0 }),
      new ConversationalVerdictNode({ verdict: 'Playful', score: 10 }),
    ],
  })
  const satisfied = new ConversationalBinaryJudgementNode({
    criteria: "Do the assistant's replies satisfy user's questions?",
    children: [
      new ConversationalVerdictNode({ verdict: false, score: 0 }),
      new ConversationalVerdictNode({ verdict: true, child: behaviour }),
    ],
  })
  const summary = new ConversationalTaskNode({
    instructions: 'Summarize the conversation.',
    outputLabel: 'Summary',
    evaluationParams: [TurnParams.ROLE, TurnParams.CONTENT],
    turnWindow: [0, 1],
    children: [satisfied, behaviour],
  })
  return new DeepAcyclicGraph({ rootNodes: [summary] })
}

const conversation = {
  turns: [
    { role: 'user' as const, content: 'Weather in Paris?' },
    { role: 'assistant' as const, content: 'Sunny, 24°C, no umbrella needed, stylish one.' },
  ],
}

async function measure(satisfied: boolean, rules: { match: string; answer: unknown }[] = []) {
  const judge = scriptedJudge({
    rules: [
      { match: 'Summarize', answer: { output: 'The user asked about the weather.\nThe assistant answered, teasing.' } },
      { match: 'satisfy', answer: { verdict: satisfied, reason: 'The question\nwas answered.' } },
      ...rules,
      { match: 'behaviour', answer: { verdict: 'Playful', reason: 'Light teasing.' } },
    ],
  })
  const metric = new ConversationalDAGMetric({ name: 'Playful Chatbot', dag: playful('Tone'), model: judge })
  return metric.measure(conversation)
}

describe('renderTrace', () => {
  test('draws the walked path with steps, outputs, verdicts, reasons and the chosen leaf', async () => {
    const result = await measure(true)
    expect(renderResult(result)).toMatchInlineSnapshot(`
      "PASS Playful Chatbot: score 1 (threshold 0.5) · judge scripted
      reason: The walk scored 1. “Tone” → Playful: Light teasing.
      [1] Task: Summarize the conversation. · turns 0–1 · 1 judge call
      │    Summary: The user asked about the weather.
      │             The assistant answered, teasing.
      └─ [2] Judgement: Do the assistant's replies satisfy user's questions? → true · 1 judge call
         │    reason: The question was answered.
         ├─ ○ false → 0
         └─ ● true
            └─ [3] Judgement "Tone": How was the assistant's behaviour towards user? → Playful · 1 judge call
               │    reason: Light teasing.
               ├─ ○ Rude → 0
               └─ ● Playful → 10  ◀ score 1"
    `)
  })

  test('a branch that was not taken shows its verdict options and the nodes below as not reached', async () => {
    const result = await measure(false)
    expect(result.verboseLogs).toMatchInlineSnapshot(`
      "[1] Task: Summarize the conversation. · turns 0–1 · 1 judge call
      │    Summary: The user asked about the weather.
      │             The assistant answered, teasing.
      └─ [2] Judgement: Do the assistant's replies satisfy user's questions? → false · 1 judge call
         │    reason: The question was answered.
         ├─ ● false → 0  ◀ score 0
         └─ ○ true
            └─ [ ] Judgement "Tone": How was the assistant's behaviour towards user?  (not reached)
               └─ … 2 nodes below not reached"
    `)
  })

  test('a failed node and the error lead the report', async () => {
    const judge = scriptedJudge({ rules: [{ match: 'Summarize', answer: { output: 'ok' } }] })
    const metric = new ConversationalDAGMetric({ name: 'Playful Chatbot', dag: playful(), model: judge })
    const result = await metric.measure(conversation)
    expect(renderSummaryLine(result)).toBe('ERROR Playful Chatbot: no score (threshold 0.5) · judge scripted')
    expect(renderTrace(result.trace)).toContain('[✖] Judgement: Do the assistant')
  })
})

describe('each thing said once', () => {
  const failing = {
    name: 'offline',
    generate: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9')),
  }
  const metric = () =>
    new ConversationalDAGMetric({
      name: 'Summary',
      dag: new DeepAcyclicGraph({
        rootNodes: [
          new ConversationalTaskNode({
            instructions: 'Summarize.',
            outputLabel: 'Summary',
            evaluationParams: [TurnParams.CONTENT],
            children: [
              new ConversationalBinaryJudgementNode({
                criteria: 'Is the summary kind?',
                children: [
                  new ConversationalVerdictNode({ verdict: true, score: 10 }),
                  new ConversationalVerdictNode({ verdict: false, score: 0 }),
                ],
              }),
            ],
          }),
        ],
      }),
      model: failing,
    })

  test('a node error the metric error already says is printed once, above the tree', async () => {
    const result = await metric().measure({
      turns: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
      ],
    })
    const text = renderResult(result)
    expect(result.error?.message).toMatch(/^ConversationalTaskNode .* failed: /)
    const nodeError = /could not be reached|ECONNREFUSED/
    expect(text.split('\n').filter((line) => nodeError.test(line))).toHaveLength(1)
    expect(text).toContain('error: (above)')
  })

  test('a test case rejected before any judge call names no judge', async () => {
    const result = await metric().measure({ turns: [] } as never)
    expect(result.error?.code).toBe('TEST_CASE_INVALID')
    expect(renderSummaryLine(result)).toBe('ERROR Summary: no score (threshold 0.5)')
  })
})
