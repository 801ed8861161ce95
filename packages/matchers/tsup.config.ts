import { defineConfig, type Options } from 'tsup'

const shared: Options = {
  target: 'node20',
  sourcemap: true,
  treeshake: true,
  // `build` empties dist first; configs build in parallel, so none of them may clean.
  clean: false,
  external: ['@judgetree/core', 'vitest', '@jest/globals'],
}

const importedEntries = {
  index: 'src/index.ts',
  'vitest/index': 'src/vitest/index.ts',
  'jest/index': 'src/jest/index.ts',
}
const vitestEntries = {
  'vitest/setup': 'src/vitest/setup.ts',
  'vitest/global-setup': 'src/vitest/global-setup.ts',
  'vitest/reporter': 'src/vitest/reporter.ts',
}

export default defineConfig([
  {
    // Imported from config files, which may be ESM or CommonJS.
    ...shared,
    entry: importedEntries,
    format: ['esm', 'cjs'],
    // Every declaration file, the Vitest-only entries' too, comes from this one pass: each pass type-checks the
    // whole source again, and a second one was a third of the package's build time.
    dts: { entry: { ...importedEntries, ...vitestEntries } },
    // The plugin and withJudgetree find their setup and reporter files next to themselves, in both formats.
    shims: true,
  },
  {
    // Loaded by Vitest, which imports ESM.
    ...shared,
    entry: vitestEntries,
    format: ['esm'],
  },
  {
    // Loaded by Jest, which requires CommonJS for setup files, global hooks and reporters (no transform is
    // applied to them).
    ...shared,
    entry: {
      'jest/setup': 'src/jest/setup.ts',
      'jest/global-setup': 'src/jest/global-setup.ts',
      'jest/global-teardown': 'src/jest/global-teardown.ts',
      'jest/reporter': 'src/jest/reporter.ts',
    },
    format: ['cjs'],
  },
])
