import { jsonReply, lastUserMessage, useOpenAIServer } from '@judgetree/test-support'
import { expect, test } from 'vitest'
import {
  BinaryJudgementNode,
  CodeNode,
  DAGMetric,
  DeepAcyclicGraph,
  LLMTestCaseParams,
  OpenAIJudge,
  ToolCallNode,
  VerdictNode,
} from '../src/index.js'

// Through the real openai SDK against a local Chat Completions server: code and tool-call nodes cost no request,
// and the server sees exactly the judge calls on the walked path.
const server = useOpenAIServer(() => jsonReply({ verdict: true, reason: 'Cites the search result.' }))

function bookingMetric() {
  const grounded = new BinaryJudgementNode({
    criteria: 'Does the reply state the restaurant the search found?',
    evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
    children: [new VerdictNode({ verdict: true, score: 10 }), new VerdictNode({ verdict: false, score: 3 })],
  })
  const brief = new CodeNode({
    name: 'At most 20 words',
    evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
    check: (view) => (view.actualOutput ?? '').split(/\s+/).length <= 20,
    children: [new VerdictNode({ verdict: true, child: grounded }), new VerdictNode({ verdict: false, score: 1 })],
  })
  const tools = new ToolCallNode({
    required: ['search', 'book'],
    inOrder: true,
    forbidden: ['cancel'],
    children: [new VerdictNode({ verdict: true, child: brief }), new VerdictNode({ verdict: false, score: 0 })],
  })
  const model = new OpenAIJudge({ model: 'gpt-4.1', baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0 })
  return new DAGMetric({ name: 'Booking', dag: new DeepAcyclicGraph({ rootNodes: [tools] }), model })
}

const reply = { input: 'Book me a table at a quiet place', actualOutput: 'Booked: Chez Anna, 8 pm.' }

test('a failed tool gate ends the walk without a single request', async () => {
  const result = await bookingMetric().measure({ ...reply, toolsCalled: [{ name: 'book' }, { name: 'search' }] })
  expect(result.score).toBe(0)
  expect(result.error).toBeUndefined()
  expect(server.requests).toHaveLength(0)
  expect(result.usage.judgeCalls).toBe(0)
  expect(result.trace.nodes[0]?.reason).toBe(
    'Required tools were not called in order search → book. Tools called: book, search.',
  )
})

test('past the tool gate and the code check, the judgement is the only request', async () => {
  const result = await bookingMetric().measure({ ...reply, toolsCalled: [{ name: 'search' }, { name: 'book' }] })
  expect(result.error).toBeUndefined()
  expect(result.score).toBe(1)
  expect(server.requests).toHaveLength(1)
  expect(lastUserMessage(server.requests[0] as never)).toContain(
    'Does the reply state the restaurant the search found?',
  )
  expect(lastUserMessage(server.requests[0] as never)).toContain('Booked: Chez Anna, 8 pm.')
  expect(result.usage.judgeCalls).toBe(1)
  expect(result.verboseLogs).toMatchInlineSnapshot(`
    "[1] Tool calls: required search → book; forbidden cancel → true
    │    reason: Every required tool was called in order (search, book) and no forbidden tool was called (cancel). Tools called: search, book.
    ├─ ● true
    │  └─ [2] Code: At most 20 words → true
    │     │    reason: the check returned true
    │     ├─ ● true
    │     │  └─ [3] Judgement: Does the reply state the restaurant the search found? → true · 1 judge call
    │     │     │    reason: Cites the search result.
    │     │     ├─ ● true → 10  ◀ score 1
    │     │     └─ ○ false → 3
    │     └─ ○ false → 1
    └─ ○ false → 0"
  `)
})
