import { fileURLToPath } from 'node:url'
import type { TestProjectInlineConfiguration } from 'vitest/config'

/** The one list of test projects; vitest.config.ts reads it (Vitest >= 4 ignores a workspace file on its own). */
export const projects: TestProjectInlineConfiguration[] = [
  {
    extends: true,
    test: {
      name: 'core',
      root: './packages/core',
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      // Tests count requests at a local server, so the default runtime must not answer from a cache; cache tests
      // build their own runtime with a temporary directory.
      env: { JUDGETREE_CACHE: 'off' },
    },
  },
  {
    extends: true,
    test: {
      name: 'matchers',
      root: './packages/matchers',
      // test/fixtures holds the projects the e2e tests run with real Vitest and Jest; they are not tests here.
      include: ['src/**/*.test.ts', 'test/*.test.ts', 'test/e2e/*.test.ts'],
      // The e2e files each start runner processes; one at a time keeps a 2-core machine responsive.
      fileParallelism: false,
      testTimeout: 120_000,
      hookTimeout: 180_000,
    },
  },
  {
    extends: true,
    test: {
      name: 'ai-sdk',
      root: './packages/ai-sdk',
      include: ['test/**/*.test.ts'],
      // One copy of core in the tests, its source: they reuse core's walkthrough helpers (which build DAGs from
      // core's source), and a judge error must be the same class the metric checks it against.
      alias: [
        {
          find: /^@judgetree\/core$/,
          replacement: fileURLToPath(new URL('./packages/core/src/index.ts', import.meta.url)),
        },
        {
          find: /^@judgetree\/core\/(runtime|testing)$/,
          replacement: fileURLToPath(new URL('./packages/core/src/$1.ts', import.meta.url)),
        },
      ],
      // As in core: tests count requests at a local server, so only runtimes the tests build may cache.
      env: { JUDGETREE_CACHE: 'off' },
    },
  },
]
