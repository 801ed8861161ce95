// A provider that drops a sampling setting and says so (the AI SDK does, in its warnings, for reasoning models):
// the protocol warns once per setting, stops sending it, and marks every answer made without it.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  createStructuredJudge,
  type JudgeTransport,
  type SamplingSetting,
  type SettingIgnored,
  type TransportCall,
} from './structured-judge.js'
import type { JudgeRequest } from './types.js'

const verdictSchema = z.object({ verdict: z.boolean() })
const request: JudgeRequest<{ verdict: boolean }> = {
  messages: [{ role: 'user', content: 'Polite?' }],
  schema: verdictSchema,
  schemaName: 'binary_verdict',
  promptVersion: 'settings-ignored@1',
}

const IGNORED: Record<SamplingSetting, string> = {
  temperature: 'temperature is not supported for reasoning models',
  logprobs: 'logprobs are not supported by this model',
  n: 'n is not supported: one choice was returned',
}

/** A transport that answers one sample per call and says it ignored each setting in `ignores` that it was sent. */
function ignoring(ignores: readonly SamplingSetting[], words: Partial<Record<SamplingSetting, string>> = {}) {
  const calls: TransportCall[] = []
  const warnings: string[] = []
  const transport: JudgeTransport = {
    name: 'reasoner',
    structuredOutputs: 'auto',
    samplesPerCall: true,
    timeoutMs: 1_000,
    warn: (message) => warnings.push(message),
    label: 'The judge model "reasoner"',
    where: () => 'The judge model "reasoner" at provider.test',
    secrets: () => undefined,
    advice: {
      unreachable: '',
      cutShort: '',
      unauthorized: '',
      notFound: '',
      rateLimited: () => '',
      temperature: '',
      structuredOutputs: '',
    },
    wording: { schemaRefused: () => ({ reason: '', warning: '' }) },
    async complete(call) {
      calls.push(call)
      await new Promise((resolve) => setTimeout(resolve, 5))
      const sent: Record<SamplingSetting, boolean> = {
        temperature: !call.withheld.has('temperature'),
        logprobs: call.topLogprobs !== undefined,
        n: call.n > 1,
      }
      const settingsIgnored: SettingIgnored[] = ignores
        .filter((setting) => sent[setting])
        .map((setting) => ({ setting, detail: words[setting] ?? IGNORED[setting] }))
      return {
        samples: [{ text: '{"verdict":true}' }],
        promptTokens: 10,
        completionTokens: 2,
        servedModel: 'reasoner',
        settingsIgnored,
      }
    },
    classify: (error) => ({ kind: 'other', detail: String(error) }),
  }
  return { judge: createStructuredJudge(transport), calls, warnings }
}

describe('a sampling setting the provider ignored', () => {
  it('is warned once for many concurrent calls, sent no more, and every answer made without it says so', async () => {
    const { judge, calls, warnings } = ignoring(['temperature'])

    const answers = await Promise.all(Array.from({ length: 10 }, () => judge.generate(request)))
    const later = await judge.generate(request)

    expect(calls).toHaveLength(11) // ignored, not refused: no call is made again
    expect(warnings).toEqual([
      'judgetree: the judge model "reasoner" at provider.test ignored `temperature`: temperature is not supported ' +
        'for reasoning models\nIts calls leave `temperature` out from now on, so it samples at its own temperature, ' +
        'trials too; every result made that way says so.',
    ])
    expect(calls.at(-1)?.withheld.has('temperature')).toBe(true)
    for (const answer of [...answers, later]) {
      expect(answer.samplingNotApplied).toBe(
        'the judge model "reasoner" ignored `temperature` (temperature is not supported for reasoning models), so ' +
          'it sampled at its own temperature',
      )
    }
  })

  it('ignored logprobs say why there are none, and are asked for no more', async () => {
    const { judge, calls, warnings } = ignoring(['logprobs'])

    const first = await judge.generate({ ...request, topLogprobs: 5 })
    const second = await judge.generate({ ...request, topLogprobs: 5 })
    const without = await judge.generate(request)

    expect(calls.map((call) => call.topLogprobs)).toEqual([5, undefined, undefined])
    expect(first.logprobsUnavailable).toContain('ignored logprobs (logprobs are not supported by this model)')
    expect(second.logprobsUnavailable).toBe(first.logprobsUnavailable)
    expect(without).not.toHaveProperty('logprobsUnavailable')
    expect(first).not.toHaveProperty('samplingNotApplied')
    expect(warnings).toHaveLength(1)
  })

  it('an ignored `n` has the missing samples asked for alone, each saying so', async () => {
    const { judge, calls, warnings } = ignoring(['n'])
    if (judge.generateSamples === undefined) throw new Error('the judge answers samples through n')

    const samples = await judge.generateSamples(request, 3)

    expect(calls.map((call) => call.n)).toEqual([3, 1, 1])
    expect(samples.map((sample) => sample.samplingNotApplied)).toEqual(
      Array(3).fill(
        'the judge model "reasoner" ignored `n` (n is not supported: one choice was returned), so the samples were ' +
          'asked for one by one',
      ),
    )
    expect(warnings).toHaveLength(1)
  })

  it("quotes the provider's words in its warning as plain text: no CI command, no terminal escape", async () => {
    const { judge, warnings } = ignoring(['temperature'], {
      temperature: 'not supported\n::error file=app.ts::forged\u001b[2J ##[warning]forged too',
    })

    await judge.generate(request)

    expect(warnings).toHaveLength(1)
    const lines = (warnings[0] ?? '').split('\n')
    expect(lines.some((line) => /^\s*::/.test(line))).toBe(false)
    expect(warnings[0]).not.toContain('\u001b')
    expect(warnings[0]).not.toContain('##[')
    expect(warnings[0]).toContain('forged')
  })
})
