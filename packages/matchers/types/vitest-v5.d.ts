// Types of toPassMetric for Vitest 5, whose Matchers interface takes the assertion's return type first.
// Load them once, from any .d.ts file of your project: import type {} from '@judgetree/matchers/vitest/types-v5'
import type { Metric } from '@judgetree/core'
import type { AgreementExpectation, JudgetreeRecord, ToPassMetricOptions } from '@judgetree/matchers'
// Without an import of 'vitest' itself, TypeScript does not merge TaskMeta, which Vitest re-exports.
import type {} from 'vitest'

declare module 'vitest' {
  interface Matchers<R extends void | Promise<void> = void | Promise<void>, T = unknown> {
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

  interface TaskMeta {
    /** The evaluations toPassMetric recorded on this test, for reporters (`testCase.meta().judgetree`). */
    judgetree?: JudgetreeRecord[]
  }
}
