import { judgetree } from '@judgetree/matchers/vitest'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  // Registers toPassMetric, gives tests a 60 s timeout (a real judge takes seconds per call) and adds the judgetree
  // reporter: failed evaluations' trace trees and a summary line at the end of the run.
  plugins: [judgetree()],
  test: {
    include: ['tests/**/*.test.ts'],
    // Says once per run which judge the examples use.
    globalSetup: ['./src/banner.ts'],
  },
})
