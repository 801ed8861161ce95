import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { init } from './init.js'

const made: string[] = []
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A project folder with this package.json and, for each `installed` runner, a node_modules/<runner>/package.json. */
function project(pkg: object, installed: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'judgetree-init-'))
  made.push(dir)
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg))
  for (const [name, version] of Object.entries(installed)) {
    mkdirSync(join(dir, 'node_modules', name), { recursive: true })
    writeFileSync(join(dir, 'node_modules', name, 'package.json'), JSON.stringify({ name, version }))
  }
  return dir
}

function run(dir: string, ...args: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = init(
    dir,
    args,
    (line) => out.push(line),
    (line) => err.push(line),
  )
  return { code, out: out.join('\n'), err: err.join('\n') }
}

const files = (dir: string) => readdirSync(dir).filter((name) => name !== 'node_modules' && name !== 'package.json')
const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8')

describe('judgetree init', () => {
  it('sets up a Vitest ES module project: config, types and a first test', () => {
    const dir = project({ type: 'module', devDependencies: { vitest: '^4.1.0' } }, { vitest: '4.1.2' })
    const { code, out } = run(dir)
    expect(code).toBe(0)
    expect(files(dir).sort()).toEqual(['chatbot.test.ts', 'judgetree-env.d.ts', 'vitest.config.ts'])
    expect(read(dir, 'vitest.config.ts')).toContain('plugins: [judgetree()]')
    expect(read(dir, 'judgetree-env.d.ts')).toContain("'@judgetree/matchers/vitest/types'")
    expect(read(dir, 'chatbot.test.ts')).toContain("import { expect, test } from 'vitest'")
    expect(out).toContain('a vitest project (ES module)')
    expect(out).toContain('npx vitest run')
  })

  it('gives Vitest 5 its own types entry and a CommonJS project a .mts config', () => {
    const dir = project({ devDependencies: { vitest: '^5.0.0' } }, { vitest: '5.0.1' })
    expect(run(dir).code).toBe(0)
    expect(files(dir)).toContain('vitest.config.mts')
    expect(read(dir, 'judgetree-env.d.ts')).toContain("'@judgetree/matchers/vitest/types-v5'")
  })

  it('sets up Jest: plain JavaScript in CommonJS, TypeScript through @swc/jest in an ES module project', () => {
    const cjs = project({ devDependencies: { jest: '^30.0.0' } })
    expect(run(cjs).code).toBe(0)
    expect(files(cjs).sort()).toEqual(['chatbot.test.js', 'jest.config.js'])
    expect(read(cjs, 'chatbot.test.js')).toContain("} = require('@judgetree/core')")
    expect(read(cjs, 'jest.config.js')).toContain('withJudgetree({})')

    const esm = project({ type: 'module', devDependencies: { jest: '^29.7.0' } })
    const { out } = run(esm)
    expect(files(esm).sort()).toEqual(['chatbot.test.ts', 'jest.config.cjs', 'judgetree-env.d.ts'])
    expect(read(esm, 'jest.config.cjs')).toContain(`'^.+\\\\.ts$': '@swc/jest'`)
    expect(read(esm, 'chatbot.test.ts')).toContain("from '@jest/globals'")
    expect(out).toContain('npm install -D @jest/globals @swc/core @swc/jest')
  })

  it('never overwrites: an existing config is kept and what it needs is printed; a second run writes nothing', () => {
    const dir = project({ type: 'module', devDependencies: { vitest: '^4.1.0' } })
    writeFileSync(join(dir, 'vitest.config.js'), 'export default {}\n')
    const first = run(dir)
    expect(read(dir, 'vitest.config.js')).toBe('export default {}\n')
    expect(files(dir)).not.toContain('vitest.config.ts')
    expect(first.out).toContain('kept vitest.config.js (it exists); make sure it has what judgetree needs:')
    expect(first.out).toContain('      export default defineConfig({ plugins: [judgetree()] })')

    const test = read(dir, 'chatbot.test.ts')
    writeFileSync(join(dir, 'chatbot.test.ts'), `${test}// mine\n`)
    const second = run(dir)
    expect(second.out).not.toContain('wrote')
    expect(read(dir, 'chatbot.test.ts')).toBe(`${test}// mine\n`)
  })

  it('says what is wrong and how to fix it', () => {
    const empty = mkdtempSync(join(tmpdir(), 'judgetree-init-'))
    made.push(empty)
    expect(run(empty)).toMatchObject({ code: 2, err: expect.stringContaining('no package.json in') })
    expect(run(empty).err).toContain('npm init -y')

    const neither = project({})
    expect(run(neither).err).toContain('found neither vitest nor jest in package.json')
    const both = project({ devDependencies: { vitest: '4', jest: '30' } })
    expect(run(both).err).toContain('--runner vitest or --runner jest')
    expect(run(both, '--runner', 'jest').code).toBe(0)

    expect(run(neither, '--runner', 'vitets').err).toBe(
      'judgetree init: --runner takes vitest or jest; got "vitets" (did you mean vitest?).',
    )
    expect(run(neither, '--runner').err).toContain('got nothing')
    expect(run(neither, '--force').err).toContain('unknown option --force')

    const broken = project({})
    writeFileSync(join(broken, 'package.json'), '{ "name": ')
    expect(run(broken).err).toContain('package.json is not valid JSON')
    expect(files(neither)).toEqual([])
  })
})
