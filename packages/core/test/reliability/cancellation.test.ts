import { getEventListeners } from 'node:events'
import { type ScriptedReply, useOpenAIServer } from '@judgetree/test-support'
import { describe, expect, test, vi } from 'vitest'
import {
  CodeNode,
  ConversationalDAGMetric,
  DAGMetric,
  DeepAcyclicGraph,
  evaluate,
  LLMTestCaseParams,
  MeasurementAbortedError,
  OpenAIJudge,
  VerdictNode,
} from '../../src/index.js'
import { createJudgeRuntime } from '../../src/runtime.js'
import { scriptedJudge } from '../../src/testing.js'
import { PLAYFUL, playfulChatbotDag, playfulConversation } from '../support/walkthroughs.js'

// Work that must stop: evaluate() after it has rejected, and listeners on a signal shared by many measurements.

function answer(prompt: string): ScriptedReply {
  if (prompt.includes(PLAYFUL.summary)) return { json: { output: 'The assistant teased but answered.' }, delayMs: 20 }
  if (prompt.includes(PLAYFUL.satisfied)) return { json: { reason: 'Answered.', verdict: true }, delayMs: 20 }
  return { json: { reason: 'Cheeky.', verdict: 'Neutral' }, delayMs: 20 }
}

const server = useOpenAIServer((request) =>
  answer(request.body.messages.find((message) => message.role === 'user')?.content ?? ''),
)
const runtime = createJudgeRuntime({ cache: 'off', concurrency: 8 })
const metric = () =>
  new ConversationalDAGMetric({
    name: 'Playful',
    dag: playfulChatbotDag(),
    model: runtime.wrap(new OpenAIJudge({ baseURL: server.baseURL, apiKey: 'sk-test-cancel', maxRetries: 0 })),
  })
const conversations = Array.from({ length: 200 }, (_, at) => ({ ...playfulConversation, name: `c${at}` }))
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('evaluate() stops all its work when it rejects', () => {
  test('a throwing onProgress rejects evaluate() and cancels the rest: no judge request after the rejection', async () => {
    let calls = 0
    const run = evaluate(conversations, [metric()], {
      concurrency: 4,
      summary: false,
      progress: false,
      onProgress() {
        calls += 1
        if (calls === 3) throw new Error('the progress handler broke')
      },
    })
    await expect(run).rejects.toThrow('the progress handler broke')
    // Requests already on the wire may still arrive just after; after that, nothing more ever does.
    await settle(100)
    const settled = server.requests.length
    await settle(400)
    expect(server.requests.length).toBe(settled)
    // 3 measurements done (3 calls each) and at most 4 in flight: the other 193 conversations are never judged.
    expect(settled).toBeLessThanOrEqual(3 * 3 + 4 * 3)
    expect(calls).toBe(3)
  })
})

describe('a signal shared by many measurements', () => {
  test('50 measurements on one AbortSignal print no MaxListenersExceededWarning, and an abort still reaches all', async () => {
    const warnings: string[] = []
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`)
    process.on('warning', onWarning)
    const emit = vi.spyOn(process, 'emitWarning')
    try {
      const controller = new AbortController()
      const playful = metric()
      const done = await Promise.all(
        Array.from({ length: 50 }, () => playful.measure(playfulConversation, { signal: controller.signal })),
      )
      expect(done.every((result) => result.error === undefined)).toBe(true)
      const pending = Array.from({ length: 20 }, () =>
        playful.measure(playfulConversation, { signal: controller.signal }),
      )
      await settle(10)
      // Node warns past 10 listeners on one target, once per target: the count is what is pinned.
      expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1)
      controller.abort(new Error('user cancelled'))
      const aborted = await Promise.all(pending)
      expect(aborted.map((result) => result.error?.code)).toEqual(Array(20).fill('MEASUREMENT_ABORTED'))
      await settle(0)
      expect(emit.mock.calls.map((call) => String(call[0]))).not.toContainEqual(
        expect.stringMatching(/MaxListeners|memory leak/i),
      )
      expect(warnings.filter((warning) => /MaxListeners|memory leak/i.test(warning))).toEqual([])
    } finally {
      process.off('warning', onWarning)
      emit.mockRestore()
    }
  })
})

describe('a CodeNode check that never settles (issue 24, R10)', () => {
  const hangingMetric = (seen: AbortSignal[]) =>
    new DAGMetric({
      name: 'Hangs',
      dag: new DeepAcyclicGraph({
        rootNodes: [
          new CodeNode({
            name: 'Never answers',
            evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
            check: (_view, { signal }) => {
              seen.push(signal)
              return new Promise<boolean>(() => {})
            },
            children: [new VerdictNode({ verdict: true, score: 10 }), new VerdictNode({ verdict: false, score: 0 })],
          }),
        ],
      }),
      model: scriptedJudge({ rules: [] }),
    })
  const testCase = { input: 'hi', actualOutput: 'hello' }

  test('measure() ends when its signal times out, says MEASUREMENT_ABORTED, and the check saw the abort', async () => {
    const seen: AbortSignal[] = []
    const started = performance.now()
    const result = await hangingMetric(seen).measure(testCase, { signal: AbortSignal.timeout(150) })
    expect(performance.now() - started).toBeLessThan(2_000)
    expect(result.error?.code).toBe('MEASUREMENT_ABORTED')
    expect(result.error?.message).toMatch(/^The measurement was aborted: .*timeout/)
    expect(seen).toHaveLength(1)
    expect(seen[0]?.aborted).toBe(true)
  })

  test('evaluate() rejects promptly on its signal while checks hang', async () => {
    const seen: AbortSignal[] = []
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('stopped by the caller')), 150)
    const run = evaluate(
      Array.from({ length: 5 }, () => testCase),
      [hangingMetric(seen)],
      { signal: controller.signal, summary: false, progress: false },
    )
    const started = performance.now()
    await expect(run).rejects.toThrow(MeasurementAbortedError)
    expect(performance.now() - started).toBeLessThan(2_000)
    expect(seen).toHaveLength(5)
    expect(seen.every((signal) => signal.aborted)).toBe(true)
  })
})
