import { BaseMetric, type BaseMetricOptions, type LLMTestCase, type MetricContext } from '@judgetree/core'
import { z } from 'zod'

const promisesSchema = z.object({ promises: z.array(z.string()), reason: z.string() })

export interface NoPromisesOptions extends BaseMetricOptions {
  /** Words no promise may contain, e.g. 'refund'. */
  forbidden: readonly string[]
}

/** Passes when the reply promises nothing the policy forbids: the judge lists the promises, code checks them. */
export class NoPromisesMetric extends BaseMetric<LLMTestCase> {
  readonly kind = 'single-turn'
  readonly forbidden: readonly string[]

  constructor({ forbidden, ...options }: NoPromisesOptions) {
    super(options, { name: 'No Forbidden Promises' })
    this.forbidden = forbidden
  }

  protected async score(testCase: LLMTestCase, ctx: MetricContext) {
    const { promises } = await ctx.judge({
      label: 'Promises',
      text: 'list what the reply promises',
      messages: [
        { role: 'user', content: `List every promise this support reply makes.\n\nReply: ${testCase.actualOutput}` },
      ],
      schema: promisesSchema,
      schemaName: 'promises',
      promptVersion: 'no-promises@1',
    })
    const broken = promises.filter((promise) => this.forbidden.some((word) => promise.toLowerCase().includes(word)))
    ctx.step({ label: 'Policy', text: `no promise of: ${this.forbidden.join(', ')}`, verdict: broken.length === 0 })
    const reason =
      broken.length === 0 ? `No forbidden promise among ${promises.length}.` : `Forbidden: ${broken.join('; ')}.`
    return { score: broken.length === 0 ? 1 : 0, reason }
  }
}
