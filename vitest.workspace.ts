import type { TestProjectInlineConfiguration } from 'vitest/config'

/** The one list of test projects; vitest.config.ts reads it (Vitest >= 4 ignores a workspace file on its own). */
export const projects: TestProjectInlineConfiguration[] = [
  {
    extends: true,
    test: {
      name: 'core',
      root: './packages/core',
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    },
  },
]
