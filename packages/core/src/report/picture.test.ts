// The picture the HTML report and the UI attach to an evaluation: the DAG alone, its walk coloured by the outcome,
// and for the relevancy metrics each window's verdict, rendered with Graphviz as those reports show it.
import { HOSTILE_TEXT, jsonReply, useOpenAIServer, xmlProblems } from '@judgetree/test-support'
import { describe, expect, test } from 'vitest'
import { serverJudge } from '../../test/support/server-judge.js'
import { DeepAcyclicGraph } from '../dag/graph.js'
import { BinaryJudgementNode } from '../dag/nodes/binary-judgement-node.js'
import { VerdictNode } from '../dag/nodes/verdict-node.js'
import { ConversationRelevancyMetric } from '../metrics/conversation-relevancy.js'
import { DAGMetric } from '../metrics/dag-metric.js'
import { LLMTestCaseParams } from '../test-case/params.js'
import { resultPicture } from './picture.js'

const server = useOpenAIServer((request) => {
  const prompt = request.body.messages.map((message) => String(message.content)).join('\n')
  const yes = !prompt.includes('sneakers') && !prompt.includes('Read the FAQ')
  return jsonReply({ reason: yes ? `Yes ${HOSTILE_TEXT}` : 'No.', verdict: yes, relevant: yes })
})

/** The fill and stroke of the Graphviz node whose text contains `text`. */
function nodeColours(svg: string, text: string): { fill: string | undefined; stroke: string | undefined } {
  const group = svg.split('<g id="node').find((part) => part.includes(text) && part.includes('class="node"'))
  const shape = /<(?:polygon|path)[^>]*fill="([^"]+)"[^>]*stroke="([^"]+)"/.exec(group ?? '')
  return { fill: shape?.[1], stroke: shape?.[2] }
}

function resolution(): DAGMetric {
  return new DAGMetric({
    name: 'Resolution',
    model: serverJudge(server.baseURL),
    threshold: 0.5,
    dag: new DeepAcyclicGraph({
      rootNodes: [
        new BinaryJudgementNode({
          criteria: 'Did it offer help?',
          evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
          children: [new VerdictNode({ verdict: true, score: 10 }), new VerdictNode({ verdict: false, score: 2 })],
        }),
      ],
    }),
  })
}

describe('resultPicture', () => {
  test('a failed DAG evaluation: the DAG alone, its decisive verdict and the path into it red', async () => {
    const metric = resolution()
    const result = await metric.measure({ input: 'My blender broke.', actualOutput: 'Read the FAQ.' })
    expect(result.success).toBe(false)
    const svg = (await resultPicture(metric, result)) as string
    expect(xmlProblems(svg)).toEqual([])
    expect(nodeColours(svg, 'false → 2')).toEqual({ fill: '#fee2e2', stroke: '#b91c1c' })
    expect(svg).toMatch(/<title>n1&#45;&gt;n3<\/title>\s*<path fill="none" stroke="#b91c1c" stroke-width="3"/)
    // Only the drawing: the text tree is shown beside it by every report.
    expect(svg).not.toContain('score 0.2 (threshold')
  })

  test('a passed DAG evaluation: the walk green', async () => {
    const metric = resolution()
    const result = await metric.measure({ input: 'My blender broke.', actualOutput: 'I will refund it.' })
    expect(result.success).toBe(true)
    const svg = (await resultPicture(metric, result)) as string
    expect(nodeColours(svg, 'true → 10')).toEqual({ fill: '#dcfce7', stroke: '#15803d' })
    expect(svg).not.toContain('#b91c1c')
  })

  test('a relevancy metric: one node per window with its verdict, red where irrelevant; any text makes XML', async () => {
    const metric = new ConversationRelevancyMetric({ model: serverJudge(server.baseURL), threshold: 0.9 })
    const result = await metric.measure({
      turns: [
        { role: 'user', content: `Can I get a refund? ${HOSTILE_TEXT}` },
        { role: 'assistant', content: 'Yes, a refund within 30 days.' },
        { role: 'user', content: 'Thanks <b>&</b>' },
        { role: 'assistant', content: 'Our sneakers come in blue.' },
      ],
    })
    const svg = (await resultPicture(metric, { ...result, name: `${result.name} ${HOSTILE_TEXT}` })) as string
    expect(xmlProblems(svg)).toEqual([])
    expect(nodeColours(svg, 'turn 1: relevant')).toEqual({ fill: '#dcfce7', stroke: '#15803d' })
    expect(nodeColours(svg, 'turn 3: irrelevant')).toEqual({ fill: '#fee2e2', stroke: '#b91c1c' })
    expect(nodeColours(svg, 'score 0.5 (threshold 0.9)')).toEqual({ fill: '#fee2e2', stroke: '#b91c1c' })
  })
})
