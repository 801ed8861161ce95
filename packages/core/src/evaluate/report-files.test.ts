// evaluate({ outputFile }) through the real OpenAI SDK against the local server: the JSON report and the HTML
// summary beside it, self-contained, with each failure's tree and walked-DAG picture.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { jsonReply, lastUserMessage, useOpenAIServer } from '@judgetree/test-support'
import { afterAll, describe, expect, it } from 'vitest'
import { PLAYFUL, playfulChatbotDag } from '../../test/support/walkthroughs.js'
import { ConfigurationError } from '../errors.js'
import { OpenAIJudge } from '../judge/openai-judge.js'
import type { ConversationalMetric } from '../metric/types.js'
import { ConversationalDAGMetric } from '../metrics/dag-metric.js'
import { createJudgeRuntime } from '../runtime/judge-runtime.js'
import { evaluate } from './evaluate.js'
import { writeEvaluationReport } from './report-files.js'

const server = useOpenAIServer((request) => {
  const prompt = lastUserMessage(request)
  if (prompt.includes(PLAYFUL.summary)) return jsonReply({ output: prompt.includes('MARK-rude') ? 'rude' : 'kind' })
  if (prompt.includes(PLAYFUL.satisfied)) return jsonReply({ reason: 'Answered.', verdict: true })
  return jsonReply({ reason: 'Tone <b>&</b> manners.', verdict: prompt.includes('"rude"') ? 'Rude' : 'Playful' })
})
const scratch = mkdtempSync(join(tmpdir(), 'judgetree-evaluate-report-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const runtime = createJudgeRuntime({ cache: 'off', concurrency: 4 })
const conversation = (mark: string, name: string) => ({
  name,
  turns: [
    { role: 'user' as const, content: `hello ${mark}` },
    { role: 'assistant' as const, content: 'hi!' },
  ],
})
const crasher: ConversationalMetric = {
  name: 'Crasher',
  kind: 'conversational',
  threshold: 0.5,
  measure: () => Promise.reject(new Error('metric bug')),
}

describe('evaluate({ outputFile })', () => {
  it('writes the JSON report and, beside it, an HTML summary with each failure’s tree and DAG picture', async () => {
    const model = runtime.wrap(new OpenAIJudge({ model: 'gpt-4.1', baseURL: server.baseURL, apiKey: 'sk-html-0123' }))
    const playful = new ConversationalDAGMetric({ name: 'Playful', dag: playfulChatbotDag(), model })
    const outputFile = join(scratch, 'out', 'evaluation.json')
    const stdout = { write: (text: string) => void lines.push(text) }
    const lines: string[] = []
    await evaluate([conversation('MARK-kind', 'kind'), conversation('MARK-rude', 'rude')], [playful, crasher], {
      outputFile,
      stdout,
    })
    const htmlFile = join(scratch, 'out', 'evaluation.html')
    expect(lines.join('')).toContain(`judgetree: report in ${outputFile} and ${htmlFile}`)

    const json = JSON.parse(readFileSync(outputFile, 'utf8'))
    expect(json.summary).toMatchObject({ evaluations: 4, metrics: 4, passed: 1, failed: 1, errored: 2 })
    expect(json.results.map((entry: { metric: string; result: { score: number } }) => entry.metric)).toEqual([
      'Playful',
      'Crasher',
      'Playful',
      'Crasher',
    ])
    expect(json.results[1].result.error).toEqual({
      name: 'JudgetreeError',
      code: 'METRIC_FAILED',
      message: 'The metric "Crasher" failed instead of returning a result: metric bug',
    })
    // The record every runner's report writes too: plain data, its summary line and its text.
    expect(json.results[2].result).toMatchObject({
      reason: expect.any(String),
      error: null,
      summary: 'FAIL Playful: score 0 (threshold 0.5) · judge gpt-4.1',
      text: expect.stringMatching(/^FAIL Playful: score 0 \(threshold 0\.5\) · judge gpt-4\.1\nreason: /),
      usage: { costUsd: expect.any(Number) },
      // The judge gave points, not probabilities: the report says which decision, and how to get a P(pass).
      passProbabilityUnavailable: expect.stringMatching(
        /^\[n\d+\] “.*” was answered without probabilities \(logprobs were not requested\); for P\(pass\), /,
      ),
    })

    const html = readFileSync(htmlFile, 'utf8')
    // Self-contained: nothing to fetch, so it opens offline (the SVG's xmlns URIs are names, not fetched).
    expect(html).not.toMatch(/<(script|link|img|iframe)\b|\b(src|href)=|url\(/i)
    expect(html).toContain('<div>25%<span>pass rate</span></div>')
    expect(html).toContain('<td>Playful</td><td>2</td><td>1</td><td>1</td><td>0</td><td>0.5</td>')
    expect(html).toContain('<h2 class="fail">Failures (3)</h2>')
    // The failing walk: its tree as text (escaped) and its picture, inline SVG.
    const rude = html.slice(html.indexOf('case 1 “rude” · Playful'))
    expect(rude).toMatch(/^case 1 “rude” · Playful<\/h3><figure><svg /)
    expect(rude.slice(0, rude.indexOf('</section>'))).toContain('reason: Tone &lt;b&gt;&amp;&lt;/b&gt; manners.')
    expect(html).not.toContain('sk-html-0123')
    // A failure without a DAG (the crashed metric) has its error, no picture.
    const crashed = html.slice(html.indexOf('case 0 “kind” · Crasher'))
    expect(crashed.slice(0, crashed.indexOf('</section>'))).toMatch(/<\/h3><pre>ERROR Crasher.*\nerror: The metric/)
  })

  it('writes /dev/null as a device: the JSON goes into it, no /dev/null.html is written, the results return', async () => {
    const htmlExisted = existsSync('/dev/null.html')
    const lines: string[] = []
    const errors: string[] = []
    const { results } = await evaluate([conversation('x', 'x')], [crasher], {
      outputFile: '/dev/null',
      stdout: { write: (text: string) => void lines.push(text) },
      stderr: { write: (text: string) => void errors.push(text) },
    })
    expect(results).toHaveLength(1)
    expect(lines.join('')).toContain('judgetree: report in /dev/null\n')
    expect(lines.join('')).not.toContain('.html')
    expect(errors).toEqual([])
    if (!htmlExisted) expect(existsSync('/dev/null.html')).toBe(false)
  })

  it('an outputFile it cannot write costs no result: evaluate() resolves and says on stderr which file and why', async () => {
    // A regular file where a folder should be: no user, root included, can write under it.
    const blocker = join(scratch, 'not-a-folder')
    writeFileSync(blocker, '')
    const outputFile = join(blocker, 'evaluation.json')
    const lines: string[] = []
    const errors: string[] = []
    const { results, summary } = await evaluate([conversation('x', 'x')], [crasher], {
      outputFile,
      stdout: { write: (text: string) => void lines.push(text) },
      stderr: { write: (text: string) => void errors.push(text) },
    })
    expect(results).toHaveLength(1)
    expect(summary.errored).toBe(1)
    expect(errors).toEqual([
      expect.stringMatching(
        new RegExp(
          `^judgetree: evaluate\\(\\) could not write the report ${outputFile} \\(ENOTDIR: not a directory.*\\); the results are returned as usual\\.\\n$`,
        ),
      ),
    ])
    expect(lines.join('')).not.toContain('judgetree: report in')
  })

  it.runIf(process.platform === 'linux')(
    'a named pipe no process reads ends in a line on stderr, not a hang; the results return',
    async () => {
      const fifo = join(scratch, 'report-pipe')
      execFileSync('mkfifo', [fifo])
      // Should evaluate() block in open(), this reader (another process) frees it after 3 s: the test then fails on
      // the time rather than hanging.
      const rescuer = spawn('sh', ['-c', `sleep 3; exec cat "${fifo}" > /dev/null`])
      try {
        const errors: string[] = []
        const started = performance.now()
        const { results } = await evaluate([conversation('x', 'x')], [crasher], {
          outputFile: fifo,
          summary: false,
          stderr: { write: (text: string) => void errors.push(text) },
        })
        expect(performance.now() - started).toBeLessThan(2_000)
        expect(results).toHaveLength(1)
        expect(errors).toEqual([
          `judgetree: evaluate() could not write the report ${fifo} (no process is reading the named pipe ${fifo}; start its reader first); the results are returned as usual.\n`,
        ])
      } finally {
        rescuer.kill()
      }
    },
  )

  it('a full disk: the JSON not written is one failure naming the file and the error, and no HTML is tried', async () => {
    const tried: string[] = []
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
    const { results } = await evaluate([conversation('x', 'x')], [crasher], { summary: false })
    const report = await writeEvaluationReport('/reports/eval.json', {} as never, results, (file) => {
      tried.push(file)
      throw full
    })
    expect(report).toEqual({
      written: [],
      failures: ['could not write the report /reports/eval.json (ENOSPC: no space left on device, write)'],
    })
    expect(tried).toEqual(['/reports/eval.json'])
  })

  it('rejects an outputFile that is not a path, before any judge call', async () => {
    await expect(evaluate([conversation('x', 'x')], [crasher], { outputFile: 42 as never })).rejects.toThrow(
      ConfigurationError,
    )
  })
})
