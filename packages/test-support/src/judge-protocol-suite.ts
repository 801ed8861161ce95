// The judge protocol's behaviour, as one suite every transport must pass (OpenAIJudge, aiSdkJudge, a test file's
// own): the same answers over the same local server, whichever transport carries them.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { ScriptedReply } from './openai-server.js'
import { ln } from './replies.js'
import { useOpenAIServer } from './use-openai-server.js'

/** What the suite reads of a judge (JudgeModel's shape, without importing core). */
export interface ProtocolJudge {
  generate(request: Record<string, unknown>): Promise<ProtocolResponse>
  generateSamples?(request: Record<string, unknown>, count: number): Promise<readonly ProtocolResponse[]>
}

export interface ProtocolResponse {
  readonly value: Record<string, unknown>
  readonly usage: { readonly promptTokens: number; readonly completionTokens: number; readonly costUsd?: number }
  readonly extraSample?: boolean
  readonly structuredOutputsUnavailable?: string
  readonly distribution?: Readonly<Record<string, number>>
}

/** How a suite builds its judge: model `gpt-4.1` at `baseURL` with `apiKey`, no retries, warnings to `warn`. */
export type ProtocolJudgeFactory = (setup: {
  readonly baseURL: string
  readonly apiKey: string
  readonly warn: (message: string) => void
}) => object

const KEY = 'local-judge-key-0123456789'
const verdictSchema = z.object({ reason: z.string(), verdict: z.boolean() })
const request = {
  messages: [{ role: 'user', content: 'Is the answer polite?' }],
  schema: verdictSchema,
  schemaName: 'binary_verdict',
  promptVersion: 'protocol-suite@1',
}
const verdict = (value: boolean): ScriptedReply => ({ json: { reason: 'Because.', verdict: value } })

/** Runs the protocol suite against the judges `make` builds. */
export function judgeProtocolSuite(name: string, make: ProtocolJudgeFactory): void {
  describe(`judge protocol: ${name}`, () => {
    const server = useOpenAIServer()
    const warnings: string[] = []
    const judge = () => {
      warnings.length = 0
      // A JudgeModel; read through the shape above, so this package needs no copy of core.
      return make({ baseURL: server.baseURL, apiKey: KEY, warn: (message) => warnings.push(message) }) as ProtocolJudge
    }

    it('reads a valid answer, with its usage and its cost by model name', async () => {
      server.respondWith(() => ({ ...verdict(true), usage: { promptTokens: 1000, completionTokens: 100 } }))
      const response = await judge().generate(request)
      expect(response.value).toEqual({ reason: 'Because.', verdict: true })
      expect(response.usage).toMatchObject({ promptTokens: 1000, completionTokens: 100 })
      expect(response.usage.costUsd).toBeGreaterThan(0)
      expect(server.requests).toHaveLength(1)
    })

    it('re-asks once with the validation error, and the answer costs both calls', async () => {
      server.respondWith(() => verdict(false))
      const single = (await judge().generate(request)).usage.costUsd ?? 0
      server.requests.length = 0
      server.respondWith(({ index }) => (index === 0 ? { content: 'Yes, it is polite.' } : verdict(false)))
      const response = await judge().generate(request)
      expect(response.value.verdict).toBe(false)
      expect(server.requests).toHaveLength(2)
      const reask = server.requests[1]?.body.messages.at(-1)?.content ?? ''
      expect(reask).toContain('Your previous answer could not be used: it is not valid JSON')
      expect(response.usage.promptTokens).toBe(20)
      expect(response.usage.costUsd).toBeCloseTo(single * 2, 12)
    })

    it('fails after one re-ask, quoting the last answer', async () => {
      server.respondWith(() => ({ content: 'Still not JSON.' }))
      const error = await judge()
        .generate(request)
        .catch((caught: unknown) => caught)
      expect(error).toMatchObject({ code: 'JUDGE_OUTPUT_INVALID' })
      expect((error as Error).message).toContain('did not answer with valid "binary_verdict" JSON, even after being')
      expect((error as Error).message).toContain('"Still not JSON."')
      expect(server.requests).toHaveLength(2)
    })

    it('asks in JSON mode once the server refuses the strict schema, warning once', async () => {
      server.respondWith(({ body }) =>
        body.response_format?.type === 'json_schema'
          ? { status: 400, error: { message: "Invalid schema for response_format 'binary_verdict': nope" } }
          : verdict(true),
      )
      const subject = judge()
      const first = await subject.generate(request)
      const second = await subject.generate(request)
      expect([first.value.verdict, second.value.verdict]).toEqual([true, true])
      expect(second.structuredOutputsUnavailable).toContain('binary_verdict')
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain('refused')
      // The refusal is remembered: the second answer was asked for in JSON mode at once.
      expect(server.requests.map(({ body }) => body.response_format?.type === 'json_schema')).toEqual([
        true,
        false,
        false,
      ])
    })

    it('classifies a 429 with its Retry-After', async () => {
      server.respondWith(() => ({ status: 429, headers: { 'retry-after': '7' }, error: { message: 'Slow down' } }))
      const error = await judge()
        .generate(request)
        .catch((caught: unknown) => caught)
      expect(error).toMatchObject({ code: 'JUDGE_CALL_FAILED', status: 429, retryAfterMs: 7000 })
      expect((error as Error).message).toMatch(/answered HTTP 429: .*Slow down\nStill rate limited/)
    })

    it('gives a 401 advice once per run, and never the key, even when the server echoes it', async () => {
      server.respondWith(({ headers }) => ({
        status: 401,
        error: { message: `Incorrect API key provided: ${String(headers.authorization).slice(7)}` },
      }))
      const error = await judge()
        .generate(request)
        .catch((caught: unknown) => caught)
      expect(error).toMatchObject({ code: 'JUDGE_CALL_FAILED', status: 401 })
      expect((error as { advice?: string }).advice).toMatch(/^Check /)
      const texts = [(error as Error).message, String((error as Error).cause), JSON.stringify(error)]
      for (const text of texts) expect(text).not.toContain(KEY)
      expect((error as Error).message).toContain('Incorrect API key provided: sk-***')
    })

    it('answers n samples in one call where the transport can, else one call each', async () => {
      server.respondWith(() => ({ ...verdict(true), samples: [verdict(true), verdict(false), verdict(true)] }))
      const subject = judge()
      if (subject.generateSamples === undefined) {
        await Promise.all([1, 2, 3].map(() => subject.generate(request)))
        expect(server.requests).toHaveLength(3)
        return
      }
      const samples = await subject.generateSamples(request, 3)
      expect(samples.map((sample) => sample.value.verdict)).toEqual([true, false, true])
      expect(samples.map((sample) => sample.extraSample ?? false)).toEqual([false, true, true])
      expect(samples.map((sample) => sample.usage.promptTokens)).toEqual([10, 0, 0])
      expect(server.requests.map(({ body }) => body.n)).toEqual([3])
    })

    it('reads a decision’s distribution from the answer token’s logprobs, and invents none without them', async () => {
      const question = { kind: 'predicate', instructions: 'Is it polite?', state: {}, field: 'verdict' }
      const logprobs = [
        { token: '{"reason":"Because.","verdict":', logprob: 0, top: {} },
        { token: 'true', logprob: Math.log(0.8), top: ln({ true: 0.8, false: 0.15 }) },
        { token: '}', logprob: 0, top: {} },
      ]
      server.respondWith(({ body }) => (body.logprobs ? { ...verdict(true), logprobs } : verdict(true)))
      const subject = judge()
      const read = await subject.generate({ ...request, question, topLogprobs: 5 })
      expect(read.distribution?.true).toBeCloseTo(0.8 / 0.95, 6)
      expect(read.distribution?.false).toBeCloseTo(0.15 / 0.95, 6)
      const none = await subject.generate({ ...request, question })
      expect(none.distribution).toBeUndefined()
    })
  })
}
