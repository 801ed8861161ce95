// Types of toPassMetric for Jest 29 and 30, for both styles: `import { expect } from '@jest/globals'` (the
// 'expect' module) and the global `expect` of @types/jest (the `jest` namespace). Load them once, from any .d.ts
// file of your project: import type {} from '@judgetree/matchers/jest/types'
import type { Metric } from '@judgetree/core'
import type { AgreementExpectation, ToPassMetricOptions } from '@judgetree/matchers'

declare module 'expect' {
  interface Matchers<R extends void | Promise<void>, T = unknown> {
    /**
     * Measures the test case (a conversation or a single-turn case) with the metric; passes when the score
     * reaches the threshold. Always `await` it.
     *
     * @example
     * await expect(conversation).toPassMetric(playfulChatbot, { threshold: 0.7 })
     */
    toPassMetric(metric: Metric, options?: ToPassMetricOptions): Promise<void>
    /**
     * Passes when a calibration (what `calibrate()` resolves to) reaches every bound named: `kappa`,
     * `agreement` and `spearman` at least, `meanAbsoluteError` at most.
     *
     * @example
     * expect(await calibrate(politeness, labelled)).toAgreeWith({ kappa: 0.6 })
     */
    toAgreeWith(expected: AgreementExpectation): R
  }
}

declare global {
  namespace jest {
    // biome-ignore lint/complexity/noBannedTypes: must match @types/jest's own declaration exactly
    interface Matchers<R, T = {}> {
      /**
       * Measures the test case (a conversation or a single-turn case) with the metric; passes when the score
       * reaches the threshold. Always `await` it.
       */
      toPassMetric(metric: Metric, options?: ToPassMetricOptions): Promise<R>
      /** Passes when a calibration reaches every bound named (`meanAbsoluteError` is a maximum). */
      toAgreeWith(expected: AgreementExpectation): R
    }
  }
}
