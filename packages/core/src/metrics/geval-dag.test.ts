import { schemaOf, scoreReply, useOpenAIServer } from '@judgetree/test-support'
import { describe, expect, it } from 'vitest'
import { serverJudge } from '../../test/support/server-judge.js'
import { DeepAcyclicGraph } from '../dag/graph.js'
import { BinaryJudgementNode, ConversationalBinaryJudgementNode } from '../dag/nodes/binary-judgement-node.js'
import { ConversationalVerdictNode, VerdictNode } from '../dag/nodes/verdict-node.js'
import { scriptedJudge } from '../judge/scripted-judge.js'
import { ConversationalDAGMetric, DAGMetric } from '../metrics/dag-metric.js'
import { LLMTestCaseParams, TurnParams } from '../test-case/params.js'
import { ConversationRelevancyMetric } from './conversation-relevancy.js'
import { GEval, type GEvalOptions } from './geval.js'

const testCase = { input: 'Say hi in English.', actualOutput: 'Hi there!' }
const rubric = [
  { scoreRange: [0, 1] as const, expectedOutcome: 'Rude.' },
  { scoreRange: [2, 4] as const, expectedOutcome: 'Friendly.' },
]

const server = useOpenAIServer((request) =>
  schemaOf(request) === 'geval_steps' ? { json: { steps: ['Judge the tone.'] } } : scoreReply(3, undefined),
)

/** A DAG judged by a scripted judge whose true verdict continues at `child`, judged by the local server. */
function dagWith(child: GEval) {
  const english = new BinaryJudgementNode({
    criteria: 'Is the output in English?',
    evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
    children: [new VerdictNode({ verdict: true, child }), new VerdictNode({ verdict: false, score: 0 })],
  })
  const judge = scriptedJudge({ rules: [{ match: 'in English', answer: { reason: 'It is English.', verdict: true } }] })
  return {
    metric: new DAGMetric({ name: 'Tone', dag: new DeepAcyclicGraph({ rootNodes: [english] }), model: judge }),
    judge,
  }
}

function tone(options: Partial<GEvalOptions> = {}) {
  return new GEval({
    name: 'Friendliness',
    evaluationSteps: ['Judge the tone.'],
    evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
    rubric,
    model: serverJudge(server.baseURL),
    ...options,
  } as GEvalOptions)
}

describe('metrics under a VerdictNode', () => {
  it('scores the DAG with the G-Eval child’s rubric and its own model, its trace nested under the verdict', async () => {
    const { metric, judge } = dagWith(tone())

    const result = await metric.measure(testCase)

    expect(result.error).toBeUndefined()
    expect(result.score).toBe(0.75)
    expect(judge.requests).toHaveLength(1)
    expect(server.requests.map(schemaOf)).toEqual(['geval_score'])
    const verdict = result.trace.nodes.find((node) => node.role === 'verdict' && node.status === 'ran')
    expect(verdict?.metric).toMatchObject({ name: 'Friendliness', score: 0.75 })
    expect(verdict?.metric?.trace.nodes.map((node) => node.label)).toEqual(['Evaluation steps', 'Score'])
    expect(result.verboseLogs).toContain('metric Friendliness: score 0.75 (threshold 0.5)')
    expect(result.verboseLogs).toContain('Step "Score": rubric 0–1, 2–4 → 3')
    expect(result.usage.judgeCalls).toBe(2)
  })

  it('keeps the child’s strict mode', async () => {
    const { metric } = dagWith(tone({ strictMode: true }))

    const result = await metric.measure(testCase)

    expect(result.score).toBe(0)
    expect(result.trace.nodes.find((node) => node.metric)?.metric).toMatchObject({ strictMode: true, threshold: 1 })
  })

  it('shares the child’s generated steps across DAG measurements', async () => {
    const { metric } = dagWith(tone({ evaluationSteps: undefined, criteria: 'Is the tone friendly?' }))

    const results = await Promise.all([metric.measure(testCase), metric.measure(testCase), metric.measure(testCase)])

    expect(results.map((result) => result.score)).toEqual([0.75, 0.75, 0.75])
    expect(server.requests.filter((request) => schemaOf(request) === 'geval_steps')).toHaveLength(1)
    expect(server.requests.filter((request) => schemaOf(request) === 'geval_score')).toHaveLength(3)
  })

  it('runs a conversational metric under a ConversationalVerdictNode on the whole conversation', async () => {
    server.respondWith(() => ({ json: { reason: 'On topic.', relevant: true } }))
    const relevancy = new ConversationRelevancyMetric({ model: serverJudge(server.baseURL), windowSize: 1 })
    const polite = new ConversationalBinaryJudgementNode({
      criteria: 'Is the assistant polite?',
      evaluationParams: [TurnParams.ROLE, TurnParams.CONTENT],
      children: [
        new ConversationalVerdictNode({ verdict: true, child: relevancy }),
        new ConversationalVerdictNode({ verdict: false, score: 0 }),
      ],
    })
    const metric = new ConversationalDAGMetric({
      name: 'Polite and relevant',
      dag: new DeepAcyclicGraph({ rootNodes: [polite] }),
      model: scriptedJudge({ rules: [{ match: 'polite', answer: { reason: 'Yes.', verdict: true } }] }),
    })
    const turns = [
      { role: 'user' as const, content: 'Hi' },
      { role: 'assistant' as const, content: 'Hello!' },
      { role: 'user' as const, content: 'Bye' },
      { role: 'assistant' as const, content: 'Goodbye!' },
    ]

    const result = await metric.measure({ turns })

    expect(result.score).toBe(1)
    expect(server.requests).toHaveLength(2)
    expect(result.trace.nodes.find((node) => node.metric)?.metric?.trace.nodes).toHaveLength(2)
  })
})
