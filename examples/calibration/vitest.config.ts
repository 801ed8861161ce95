import { judgetree } from '@judgetree/matchers/vitest'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  // Registers toPassMetric and toAgreeWith, and gives tests a 60 s timeout (a real judge takes seconds per call).
  plugins: [judgetree()],
  test: { include: ['tests/**/*.test.ts'] },
})
