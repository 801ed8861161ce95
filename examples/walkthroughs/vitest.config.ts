import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['./src/banner.ts'],
    // A real judge takes seconds per call; the scripted one answers at once.
    testTimeout: 60_000,
  },
})
