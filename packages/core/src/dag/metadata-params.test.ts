// DAG nodes naming SingleTurnParams.METADATA or TAGS show them to the judge as data, through the real OpenAI SDK.
import { jsonReply, useOpenAIServer } from '@judgetree/test-support'
import { expect, test } from 'vitest'
import { dataOf, serverJudge } from '../../test/support/server-judge.js'
import { MissingTestCaseParamError } from '../errors.js'
import { DAGMetric } from '../metrics/dag-metric.js'
import { SingleTurnParams } from '../test-case/params.js'
import { DeepAcyclicGraph } from './graph.js'
import { BinaryJudgementNode } from './nodes/binary-judgement-node.js'

const server = useOpenAIServer(() => jsonReply({ reason: 'The reply fits a gold customer.', verdict: true }))

function metric() {
  const fits = new BinaryJudgementNode({
    criteria: 'Does the reply fit the customer described in the metadata and tags?',
    evaluationParams: [SingleTurnParams.ACTUAL_OUTPUT, SingleTurnParams.METADATA, SingleTurnParams.TAGS],
  })
  fits.addVerdict(true, { score: 10 })
  fits.addVerdict(false, { score: 0 })
  return new DAGMetric({
    name: 'Fit',
    dag: new DeepAcyclicGraph({ rootNodes: [fits] }),
    model: serverJudge(server.baseURL),
  })
}

test('a judgement naming METADATA and TAGS is shown both, as data', async () => {
  const metadata = { tier: 'gold', locale: 'de-DE' }
  const result = await metric().measure({ input: 'Hi', actualOutput: 'Guten Tag!', metadata, tags: ['vip'] })

  expect(result.error).toBeUndefined()
  expect(result.score).toBe(1)
  expect(dataOf(server.requests[0] as never)).toEqual({
    'Actual Output': 'Guten Tag!',
    Metadata: metadata,
    Tags: ['vip'],
  })
})

test('a case without them fails before any judge call, naming both', async () => {
  const result = await metric().measure({ input: 'Hi', actualOutput: 'Guten Tag!' })

  expect(result.error).toBeInstanceOf(MissingTestCaseParamError)
  expect(result.error?.message).toContain("'metadata', 'tags'")
  expect(server.requests).toHaveLength(0)
})
