// The types of `expect(...).toPassMetric(metric)` for Vitest 3.2 and 4 (Vitest 5: '@judgetree/matchers/vitest/types-v5').
import type {} from '@judgetree/matchers/vitest/types'
