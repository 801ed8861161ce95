// The types of `expect(...).toPassMetric(metric)` for Jest, with `import { expect } from '@jest/globals'`.
import type {} from '@judgetree/matchers/jest/types'
