// AI SDK judges as jurors, through the real `@ai-sdk/openai` provider against the local server: a chat juror
// (`openai.chat`) and a decision juror (`openai.decisionModel`) in one jury, each answering on its own wire.
import { createOpenAI } from '@ai-sdk/openai'
import { BinaryJudgementNode, DAGMetric, DeepAcyclicGraph, jury, LLMTestCaseParams, TaskNode } from '@judgetree/core'
import { decideEach, jsonReply, mostProbable, schemaOf, useOpenAIServer } from '@judgetree/test-support'
import { describe, expect, test } from 'vitest'
import { aiSdkDecisionJudge, aiSdkJudge } from '../src/index.js'

const EXTRACT = 'List the promises the reply makes.'
const server = useOpenAIServer(
  (request) =>
    schemaOf(request) === 'binary_verdict'
      ? jsonReply({ reason: 'The chat juror finds it polite.', verdict: true })
      : jsonReply({ output: 'It ships tomorrow.' }),
  { decisions: decideEach(() => mostProbable(false, 0.8)) },
)
const provider = () => createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test-aisdk-jury-0123456789' })

function politePromises() {
  const extract = new TaskNode({
    instructions: EXTRACT,
    outputLabel: 'Promises',
    evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
  })
  const polite = extract.addNode(new BinaryJudgementNode({ criteria: 'Is the reply polite?' }))
  polite.addVerdict(true, { score: 10 })
  polite.addVerdict(false, { score: 0 })
  return new DeepAcyclicGraph({ rootNodes: [extract] })
}

describe('a jury of AI SDK judges', () => {
  test('the task goes to the chat juror alone, the judgement to both, and their verdicts combine', async () => {
    const chat = aiSdkJudge(provider().chat('gpt-4.1'), { maxRetries: 0 })
    const decider = aiSdkDecisionJudge(provider().decisionModel('gpt-6-luna'), { maxRetries: 0 })
    const metric = new DAGMetric({ name: 'Polite promises', dag: politePromises(), model: jury([chat, decider]) })
    const result = await metric.measure({
      input: 'Where is my order?',
      actualOutput: 'Sorry for the wait! It ships tomorrow.',
    })

    expect(result.error).toBeUndefined()
    // Chat: the task and the judgement; decisions: the judgement only.
    expect(server.requests.map((request) => schemaOf(request))).toEqual([
      expect.not.stringMatching('verdict'),
      'binary_verdict',
    ])
    expect(server.decisionRequests).toHaveLength(1)
    expect(JSON.stringify(server.decisionRequests[0]?.body.input)).toContain('It ships tomorrow.')
    // Mean of the chat juror's point answer (true) and the decision juror's 0.2 for true: 0.6, so true.
    const judgement = result.trace.nodes.find((node) => node.role === 'judgement')
    expect(judgement?.verdict).toBe(true)
    expect(judgement?.probabilities?.true).toBeCloseTo(0.6, 10)
    expect(result.score).toBe(1)
    expect(result.verboseLogs).toContain(`jury: ${chat.name} true · ${decider.name} false (0.80)`)
    expect(result.usage.jurors?.[chat.name]?.judgeCalls).toBe(2)
    expect(result.usage.jurors?.[decider.name]?.judgeCalls).toBe(1)
  })
})
