import { defineConfig, type Options } from 'tsup'

const shared: Options = {
  entry: { index: 'src/index.ts', runtime: 'src/runtime.ts', testing: 'src/testing.ts' },
  dts: true,
  sourcemap: true,
  target: 'node20',
  splitting: true,
  treeshake: true,
}

export default defineConfig([
  // Both formats in one config: their declarations (.d.ts and .d.cts) come from one declaration build, not two.
  { ...shared, format: ['esm', 'cjs'] },
  // The `judgetree` command line (package.json "bin"): ES module only, no types.
  { ...shared, entry: { cli: 'src/cli.ts' }, format: ['esm'], dts: false },
])
