// Every schema the package can send must be one OpenAI's strict structured outputs accept (DESIGN.md §5). The
// schemas are not listed by hand: every node kind and every built-in metric runs, with its option variants, through
// the real OpenAIJudge against a local server that records what arrives and answers from the schema it was sent.
import { jsonReply, lastUserMessage, type Responder, useOpenAIServer } from '@judgetree/test-support'
import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { NODE_KINDS } from '../../src/dag/nodes/registry.js'
import * as core from '../../src/index.js'
import {
  BaseMetric,
  BinaryJudgementNode,
  CodeNode,
  ConversationalBinaryJudgementNode,
  ConversationalCodeNode,
  ConversationalDAGMetric,
  ConversationalGEval,
  ConversationalNonBinaryJudgementNode,
  ConversationalTaskNode,
  type ConversationalTestCase,
  ConversationalToolCallNode,
  ConversationalVerdictNode,
  ConversationRelevancyMetric,
  DAGMetric,
  DeepAcyclicGraph,
  GEval,
  type LLMTestCase,
  LLMTestCaseParams,
  type Metric,
  type MetricContext,
  NonBinaryJudgementNode,
  OpenAIJudge,
  TaskNode,
  ToolCallNode,
  TurnContextualRelevancyMetric,
  TurnParams,
  TurnRelevancyMetric,
  VerdictNode,
} from '../../src/index.js'
import { strictSchemaViolations } from '../../src/judge/strict-schema.js'

interface Sent {
  readonly name: string
  readonly schema: unknown
}

const sent: Sent[] = []
const answerFromSchema: Responder = ({ body }) => {
  const format = body.response_format
  if (format?.type !== 'json_schema') throw new Error(`expected a json_schema request, got ${JSON.stringify(format)}`)
  sent.push({ name: format.json_schema.name, schema: format.json_schema.schema })
  return jsonReply(sampleOf(format.json_schema.schema))
}
const server = useOpenAIServer(answerFromSchema)

/** The smallest answer a schema allows; array items count up from `minimum`, so numbered entries come in order. */
function sampleOf(schema: unknown, position = 0): unknown {
  const node = schema as Record<string, unknown>
  if (Array.isArray(node.enum)) return node.enum[position % node.enum.length]
  if ('const' in node) return node.const
  if (Array.isArray(node.anyOf)) return sampleOf(node.anyOf[0], position)
  switch (node.type) {
    case 'object':
      return Object.fromEntries(
        Object.entries(node.properties as Record<string, unknown>).map(([key, value]) => [
          key,
          sampleOf(value, position),
        ]),
      )
    case 'array':
      return Array.from({ length: Math.max(1, Number(node.minItems ?? 1)) }, (_, index) => sampleOf(node.items, index))
    case 'integer':
    case 'number':
      return Math.min(Number(node.minimum ?? 0) + position, Number(node.maximum ?? Number.MAX_SAFE_INTEGER))
    case 'boolean':
      return true
    default:
      return 'A sample answer.'
  }
}

const conversation: ConversationalTestCase = {
  scenario: 'A customer asks about refunds.',
  turns: [
    { role: 'user', content: 'Can I get a refund?' },
    {
      role: 'assistant',
      content: 'Yes, within 30 days.',
      retrievalContext: ['All customers get a 30-day refund.', 'Our CEO enjoys hiking.'],
      toolsCalled: [{ name: 'lookup_policy' }],
    },
  ],
}
const testCase: LLMTestCase = {
  input: 'Can I get a refund?',
  actualOutput: 'Yes, within 30 days.',
  expectedOutput: 'Refunds are possible within 30 days.',
  toolsCalled: [{ name: 'lookup_policy' }],
}

/** One DAG per mode holding every node kind; every judgement is a root, so every one runs on the sample answers. */
function singleTurnDag() {
  const verdicts = () => [new VerdictNode({ verdict: true, score: 10 }), new VerdictNode({ verdict: false, score: 0 })]
  return new DeepAcyclicGraph({
    rootNodes: [
      new TaskNode({
        instructions: 'List the promises the answer makes.',
        outputLabel: 'Promises',
        evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
        children: [new BinaryJudgementNode({ criteria: 'Is any promise made?', children: verdicts() })],
      }),
      new NonBinaryJudgementNode({
        criteria: 'How polite is the answer?',
        evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
        children: [
          new VerdictNode({ verdict: 'Polite', score: 10 }),
          new VerdictNode({ verdict: 'Neutral, "plain"', score: 5 }),
          new VerdictNode({ verdict: 'Rude', score: 0 }),
        ],
      }),
      new ToolCallNode({ required: ['lookup_policy'], children: verdicts() }),
      new CodeNode({
        name: 'Short',
        check: () => true,
        evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
        children: verdicts(),
      }),
    ],
  })
}

function conversationalDag() {
  const verdicts = () => [
    new ConversationalVerdictNode({ verdict: true, score: 10 }),
    new ConversationalVerdictNode({ verdict: false, score: 0 }),
  ]
  return new DeepAcyclicGraph({
    rootNodes: [
      new ConversationalTaskNode({
        instructions: 'Summarize the conversation.',
        outputLabel: 'Summary',
        evaluationParams: [TurnParams.CONTENT],
        children: [new ConversationalBinaryJudgementNode({ criteria: 'Was the user helped?', children: verdicts() })],
      }),
      new ConversationalNonBinaryJudgementNode({
        criteria: 'How did the assistant sound?',
        evaluationParams: [TurnParams.ROLE, TurnParams.CONTENT],
        turnWindow: [-2, -1],
        children: [
          new ConversationalVerdictNode({ verdict: 'Warm', score: 10 }),
          new ConversationalVerdictNode({ verdict: 'Cold', score: 3 }),
        ],
      }),
      new ConversationalToolCallNode({ required: ['lookup_policy'], children: verdicts() }),
      new ConversationalCodeNode({
        name: 'Answered',
        check: () => true,
        evaluationParams: [TurnParams.CONTENT],
        children: verdicts(),
      }),
    ],
  })
}

/** A custom metric, so that calls through BaseMetric's `ctx.judge` are covered too. */
class PromisesMetric extends BaseMetric<LLMTestCase> {
  readonly kind = 'single-turn'
  protected async score(testCase: LLMTestCase, ctx: MetricContext) {
    const { promises } = await ctx.judge({
      label: 'Promises',
      messages: [{ role: 'user', content: `List the promises in: ${testCase.actualOutput}` }],
      schema: z.object({ promises: z.array(z.string()) }),
      schemaName: 'promises',
      promptVersion: 'promises@1',
    })
    return promises.length === 0 ? 1 : 0
  }
}

function metrics(model: OpenAIJudge) {
  const gevalBase = {
    name: 'Correctness',
    criteria: 'Is the actual output correct given the expected output?',
    evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT, LLMTestCaseParams.EXPECTED_OUTPUT],
    model,
  }
  const conversationalBase = { name: 'Empathy', criteria: 'Does the assistant acknowledge the user?', model }
  const rubric = [
    { scoreRange: [0, 3] as [number, number], expectedOutcome: 'Wrong.' },
    { scoreRange: [4, 7] as [number, number], expectedOutcome: 'Partly right.' },
    { scoreRange: [8, 10] as [number, number], expectedOutcome: 'Right.' },
  ]
  const single: Metric<LLMTestCase>[] = [
    new DAGMetric({ name: 'Every node', dag: singleTurnDag() as never, model }),
    new DAGMetric({ name: 'Summarized', dag: singleTurnDag() as never, model, summarizeReason: true }),
    new GEval(gevalBase),
    new GEval({ ...gevalBase, strictMode: true }),
    new GEval({ ...gevalBase, rubric }),
    new GEval({ ...gevalBase, rubric: [{ scoreRange: [1, 5], expectedOutcome: 'Graded by hand.' }] }),
    new GEval({ ...gevalBase, criteria: undefined, evaluationSteps: ['Compare the facts.'] } as never),
  ]
  const conversational: Metric<ConversationalTestCase>[] = [
    new ConversationalDAGMetric({ name: 'Every node', dag: conversationalDag() as never, model }),
    new ConversationalDAGMetric({
      name: 'Summarized',
      dag: conversationalDag() as never,
      model,
      summarizeReason: true,
    }),
    new ConversationalGEval(conversationalBase),
    new ConversationalGEval({ ...conversationalBase, rubric }),
    new ConversationalGEval({ ...conversationalBase, strictMode: true }),
    new ConversationRelevancyMetric({ model }),
    new TurnRelevancyMetric({ model }),
    new TurnContextualRelevancyMetric({ model }),
  ]
  return { single, conversational }
}

describe('schemas sent to a judge', () => {
  it('stay inside the strict structured-outputs subset, for every node kind, metric and variant', async () => {
    const model = new OpenAIJudge({
      model: 'gpt-4.1',
      baseURL: server.baseURL,
      apiKey: 'test-key',
      maxRetries: 0,
      structuredOutputs: 'json_schema',
    })
    const { single, conversational } = metrics(model)
    const results = [
      ...(await Promise.all(single.map((metric) => metric.measure(testCase)))),
      ...(await Promise.all(conversational.map((metric) => metric.measure(conversation)))),
    ]
    // A metric that failed stopped early and sent fewer schemas than it can; every one must have run through.
    expect(results.map((result) => result.error?.message ?? 'ok')).toEqual(results.map(() => 'ok'))

    expect([...new Set(sent.map(({ name }) => name))].sort()).toEqual([
      'binary_verdict',
      'context_statements',
      'geval_score',
      'geval_steps',
      'geval_strict',
      'non_binary_verdict',
      'reason_summary',
      'reply_relevancy',
      'task_output',
    ])
    const violations = sent.flatMap(({ name, schema }) =>
      strictSchemaViolations(schema).map(({ path, message }) => `${name} ${path}: ${message}`),
    )
    expect([...new Set(violations)]).toEqual([])

    const kinds = results.flatMap((result) => result.trace.nodes.map((node) => node.kind))
    expect(NODE_KINDS.map((kind) => kind.kind).filter((kind) => !kinds.includes(kind))).toEqual([])
  })

  it('when the server refuses every strict schema, every metric still scores and every result says so', async () => {
    const refusal = {
      status: 400,
      error: { message: "Invalid schema for response_format: 'strict' is not supported." },
    }
    server.respondWith((request) => {
      const format = request.body.response_format
      if (format?.type === 'json_schema') return refusal
      // In JSON mode the schema travels in the prompt, as its last line.
      return jsonReply(sampleOf(JSON.parse(lastUserMessage(request).split('\n').at(-1) ?? '')))
    })
    const warn = vi.fn()
    const model = new OpenAIJudge({
      model: 'gpt-4.1',
      baseURL: server.baseURL,
      apiKey: 'test-key',
      maxRetries: 0,
      warn,
    })
    const { single, conversational } = metrics(model)
    const results = [
      ...(await Promise.all(
        [...single, new PromisesMetric({ name: 'Promises', model })].map((metric) => metric.measure(testCase)),
      )),
      ...(await Promise.all(conversational.map((metric) => metric.measure(conversation)))),
    ]

    expect(results.map((result) => result.error?.message ?? 'ok')).toEqual(results.map(() => 'ok'))
    const unmarked = results.filter(
      (result) => !result.trace.notes.some((note) => note.startsWith('answer checked locally only: the judge model')),
    )
    expect(unmarked.map((result) => result.name)).toEqual([])
    // One warning per schema, however many metrics and calls used it.
    const warned = warn.mock.calls.map(([message]) => /refused the strict JSON schema "(\w+)"/.exec(message)?.[1])
    expect(warned.sort()).toEqual([
      'binary_verdict',
      'context_statements',
      'geval_score',
      'geval_steps',
      'geval_strict',
      'non_binary_verdict',
      'promises',
      'reason_summary',
      'reply_relevancy',
      'task_output',
    ])
  })

  it('runs every exported metric class', () => {
    const model = new OpenAIJudge({ model: 'gpt-4.1', baseURL: server.baseURL, apiKey: 'test-key' })
    const { single, conversational } = metrics(model)
    const covered = new Set<unknown>([...single, ...conversational].map((metric) => metric.constructor))
    // BaseMetric sends only the schemas its subclasses pass, which are the user's own.
    const missing = Object.entries(core)
      .filter(([, value]) => typeof value === 'function' && typeof value.prototype?.measure === 'function')
      .filter(([name, value]) => name !== 'BaseMetric' && !covered.has(value))
      .map(([name]) => name)
    expect(missing).toEqual([])
  })
})
