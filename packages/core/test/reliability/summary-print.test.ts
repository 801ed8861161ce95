import { execFileSync, spawn } from 'node:child_process'
import {
  closeSync,
  constants,
  createWriteStream,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Writable } from 'node:stream'
import { type ScriptedReply, useOpenAIServer } from '@judgetree/test-support'
import { afterAll, describe, expect, test, vi } from 'vitest'
import { ConversationalDAGMetric, calibrate, evaluate, OpenAIJudge } from '../../src/index.js'
import { createJudgeRuntime } from '../../src/runtime.js'
import { PLAYFUL, playfulChatbotDag, playfulConversation } from '../support/walkthroughs.js'

// Printing the summary is the last step of evaluate() and calibrate(): a stream that fails then must not cost the
// caller the results, nor the report files, and the failure must be said, not swallowed.

function answer(prompt: string): ScriptedReply {
  if (prompt.includes(PLAYFUL.summary)) return { json: { output: 'The assistant teased but answered.' } }
  if (prompt.includes(PLAYFUL.satisfied)) return { json: { reason: 'Answered.', verdict: true } }
  return { json: { reason: 'Cheeky.', verdict: 'Neutral' } }
}

const server = useOpenAIServer((request) =>
  answer(request.body.messages.find((message) => message.role === 'user')?.content ?? ''),
)
const runtime = createJudgeRuntime({ cache: 'off' })
const metric = () =>
  new ConversationalDAGMetric({
    name: 'Playful',
    dag: playfulChatbotDag(),
    model: runtime.wrap(new OpenAIJudge({ baseURL: server.baseURL, apiKey: 'sk-test-summary', maxRetries: 0 })),
  })
const conversations = Array.from({ length: 3 }, (_, at) => ({ ...playfulConversation, name: `c${at}` }))
const scratch = mkdtempSync(join(tmpdir(), 'judgetree-summary-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** A stream whose every write throws, as a closed custom sink would. */
const broken = (message: string) => ({
  write(): never {
    throw new Error(message)
  },
})
/** A stream that keeps what is written. */
function recorder() {
  const lines: string[] = []
  return { lines, write: (text: string) => lines.push(text) }
}

describe('evaluate() when its summary cannot be printed', () => {
  test('a stdout whose write throws: the results come back, the report files are written, stderr says why', async () => {
    const stderr = recorder()
    const outputFile = join(scratch, 'throws.json')
    const { results, summary } = await evaluate(conversations, [metric()], {
      outputFile,
      progress: false,
      stdout: broken('the sink is closed'),
      stderr,
    })
    expect(results).toHaveLength(3)
    expect(results.every((entry) => entry.result.error === undefined)).toBe(true)
    expect(summary.metrics).toBe(3)
    expect(JSON.parse(readFileSync(outputFile, 'utf8')).results).toHaveLength(3)
    expect(existsSync(join(scratch, 'throws.html'))).toBe(true)
    expect(stderr.lines).toEqual([
      `judgetree: evaluate() could not print its summary (the sink is closed); the results are returned as usual, ` +
        `and the report is in ${outputFile} and ${join(scratch, 'throws.html')}.\n`,
    ])
  })

  // A FIFO whose read end is closed: the write fails in the kernel with EPIPE, which a Node stream reports after
  // write() returned, through its callback and an 'error' event (with no listener, that event crashes the process).
  test.skipIf(process.platform === 'win32')(
    'a pipe whose reader is gone (EPIPE, after write() returned): no crash, and stderr says why',
    async () => {
      const fifo = join(scratch, 'summary.fifo')
      execFileSync('mkfifo', [fifo])
      const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK)
      const stdout = createWriteStream('', { fd: openSync(fifo, constants.O_WRONLY) })
      closeSync(reader)
      const stderr = recorder()
      const { results } = await evaluate(conversations, [metric()], { progress: false, stdout, stderr })
      expect(results).toHaveLength(3)
      await vi.waitFor(() => expect(stderr.lines).toHaveLength(1))
      expect(stderr.lines).toEqual([
        'judgetree: evaluate() could not print its summary (EPIPE: broken pipe, write); the results are returned as usual.\n',
      ])
      stdout.destroy()
    },
  )

  test('a stream that works keeps no error listener once its summary is flushed', async () => {
    const reader = spawn(process.execPath, ['-e', 'process.stdin.resume()'], { stdio: ['pipe', 'ignore', 'ignore'] })
    const stdout = reader.stdin as Writable
    try {
      await evaluate(conversations, [metric()], { progress: false, stdout, stderr: broken('unused') })
      await vi.waitFor(() => expect(stdout.writableLength).toBe(0))
      await new Promise((resolve) => setImmediate(resolve))
      expect(stdout.listenerCount('error')).toBe(0)
    } finally {
      reader.kill()
    }
  })

  test('stdout and stderr both failing: the results still come back, and a process warning says why', async () => {
    const warnings: Error[] = []
    const onWarning = (warning: Error) => warnings.push(warning)
    process.on('warning', onWarning)
    try {
      const { results } = await evaluate(conversations, [metric()], {
        progress: false,
        stdout: broken('stdout is gone'),
        stderr: broken('stderr is gone'),
      })
      expect(results).toHaveLength(3)
      await vi.waitFor(() => expect(warnings).toHaveLength(1))
      expect(warnings[0]).toMatchObject({
        code: 'JUDGETREE_SUMMARY_NOT_PRINTED',
        message:
          'judgetree: evaluate() could not print its summary (stdout is gone); the results are returned as usual.',
      })
    } finally {
      process.off('warning', onWarning)
    }
  })
})

describe('calibrate() when its summary cannot be printed', () => {
  test('a stdout whose write throws: the calibration comes back, and stderr says why', async () => {
    const stderr = recorder()
    const calibration = await calibrate(
      metric(),
      conversations.map((testCase, at) => ({ testCase, label: { pass: at !== 0 } })),
      { progress: false, stdout: broken('the sink is closed'), stderr },
    )
    expect(calibration.measured).toBe(3)
    expect(stderr.lines).toEqual([
      'judgetree: calibrate() could not print its summary (the sink is closed); the calibration is returned as usual.\n',
    ])
  })
})
