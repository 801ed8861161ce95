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
  { ...shared, format: ['esm'] },
  { ...shared, format: ['cjs'] },
])
