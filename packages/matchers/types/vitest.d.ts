// Types of toPassMetric for Vitest 3.2 and 4. Load them once, from any .d.ts file of your project:
//   import type {} from '@judgetree/matchers/vitest/types'
// (or list "@judgetree/matchers/vitest/types" in tsconfig.json's compilerOptions.types).
// Vitest 5 changed the Matchers interface: use '@judgetree/matchers/vitest/types-v5' there.
import type { Metric } from '@judgetree/core'
import type { AgreementExpectation, JudgetreeRecord, ToPassMetricOptions } from '@judgetree/matchers'
// Without an import of 'vitest' itself, TypeScript does not merge TaskMeta, which Vitest re-exports.
import type {} from 'vitest'

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: must match Vitest's own declaration exactly
  interface Matchers<T = any> {
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
    toAgreeWith(expected: AgreementExpectation): void
  }

  interface TaskMeta {
    /** The evaluations toPassMetric recorded on this test, for reporters (`testCase.meta().judgetree`). */
    judgetree?: JudgetreeRecord[]
  }
}
