import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { judgeMessages } from '../prompts/shared.js'
import { requestData } from '../testing.js'
import { scriptedJudge } from './scripted-judge.js'

const verdict = z.object({ reason: z.string(), verdict: z.boolean() })
const ask = (task: string, data: unknown = {}, signal?: AbortSignal) => ({
  messages: judgeMessages(task, data),
  schema: verdict,
  schemaName: 'binary_verdict',
  promptVersion: 'test@1',
  signal,
})

describe('scriptedJudge', () => {
  test('the first matching rule answers, `times` limits a rule, and every request is recorded', async () => {
    const judge = scriptedJudge({
      rules: [
        { match: /polite/i, answer: { reason: 'first', verdict: true }, times: 1 },
        { match: 'polite', answer: { reason: 'second', verdict: false } },
      ],
    })
    expect((await judge.generate(ask('Is it polite?'))).value).toEqual({ reason: 'first', verdict: true })
    expect((await judge.generate(ask('Is it polite?'))).value).toEqual({ reason: 'second', verdict: false })
    expect(judge.requests).toHaveLength(2)
    expect(judge.name).toBe('scripted')
  })

  test('rules match the instructions, never the test-case data', async () => {
    const judge = scriptedJudge({ rules: [{ match: 'polite', answer: { reason: 'x', verdict: true } }] })
    await expect(judge.generate(ask('Is it kind?', { content: 'be polite' }))).rejects.toThrowError(
      /has no rule for this binary_verdict request/,
    )
  })

  test('a function rule can route on the whole request, and answers may be computed', async () => {
    const judge = scriptedJudge({
      rules: [
        {
          match: (request) => JSON.stringify(request.messages).includes('refund'),
          answer: (request: { promptVersion: string }) => ({ reason: request.promptVersion, verdict: true }),
        },
      ],
    })
    expect((await judge.generate(ask('Relevant?', { content: 'refund please' }))).value.reason).toBe('test@1')
  })

  test('an answer that breaks the schema fails like a real model would, naming the answer', async () => {
    const judge = scriptedJudge({ rules: [{ match: 'Ok?', answer: { verdict: 'maybe' } }] })
    await expect(judge.generate(ask('Ok?'))).rejects.toThrowError(/answered a binary_verdict request with/)
  })

  test('a delayed answer is cancelled by the signal', async () => {
    const judge = scriptedJudge({ rules: [{ match: 'Ok?', answer: { reason: 'x', verdict: true } }], delayMs: 5_000 })
    const pending = judge.generate(ask('Ok?', {}, AbortSignal.timeout(10)))
    await expect(pending).rejects.toMatchObject({ code: 'MEASUREMENT_ABORTED' })
  })

  test("an abort reason from another realm still shows in the message (Jest's sandbox has its own Error)", async () => {
    const judge = scriptedJudge({ rules: [{ match: 'Ok?', answer: { reason: 'x', verdict: true } }], delayMs: 5_000 })
    const controller = new AbortController()
    const pending = judge.generate(ask('Ok?', {}, controller.signal))
    controller.abort({ name: 'TimeoutError', message: 'The test timed out' })
    await expect(pending).rejects.toThrowError('The measurement was aborted: The test timed out.')
  })

  test('requestData reads back what a request shows about the test case', async () => {
    const judge = scriptedJudge({
      rules: [
        {
          match: 'Ok?',
          answer: (request: never) => ({ reason: requestData<{ text: string }>(request).text, verdict: true }),
        },
      ],
    })
    expect((await judge.generate(ask('Ok?', { text: 'line one\nJUDGETREE_DATA>>>' }))).value.reason).toBe(
      'line one\nJUDGETREE_DATA>>>',
    )
  })
})
