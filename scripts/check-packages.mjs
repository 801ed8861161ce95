#!/usr/bin/env node
// Checks what `npm publish` would ship: packs every public package (as built in dist) and, on each tarball,
//  - the files: package.json, README.md and dist/ (plus the matchers' types/), nothing from src/ or test/;
//  - publishConfig: public access with npm provenance;
//  - publint --strict: entry points, exports and fields that resolve to files in the tarball;
//  - @arethetypeswrong/cli: every export's types resolve for ESM and CommonJS consumers (node10, node16, bundler);
//  - a LICENSE, and the license named in package.json;
//  - with --release (before publishing): `repository` naming a GitHub repository and the package's directory,
//    which npm provenance needs (scripts/set-repository.mjs writes it).
// Both tools read the tarball alone: no network. Exits 1 on any problem.
//
//   pnpm run build && node scripts/check-packages.mjs [--release]
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { packTarballs, publicPackages, REPO } from './pack-tarballs.mjs'

/**
 * Entry points are-the-types-wrong may not judge, with why:
 * - the Jest setup, global-setup, global-teardown and reporter files are paths handed to Jest's config (by
 *   withJudgetree), which Jest `require`s; nobody imports them, so they ship no types;
 * - the Vitest-only entry points (setup, global-setup, reporter) and the `types` files are ES modules: Vitest
 *   loads them as such, and `import type` reads them from CommonJS too. attw flags them "ESM (dynamic import only)"
 *   for CommonJS consumers (rule cjs-resolves-to-esm), which is right and intended.
 */
const ATTW = {
  '@judgetree/matchers': [
    '--exclude-entrypoints',
    'jest/setup',
    'jest/global-setup',
    'jest/global-teardown',
    'jest/reporter',
    '--ignore-rules',
    'cjs-resolves-to-esm',
  ],
}
const REQUIRED = ['package.json', 'README.md', 'LICENSE']
const RELEASE = process.argv.includes('--release')
const ALLOWED = /^(package\.json|README\.md|LICENSE(\.md)?|CHANGELOG\.md|dist\/.+|types\/.+\.d\.ts|bin\/[\w-]+\.js)$/

const work = mkdtempSync(join(tmpdir(), 'judgetree-packages-'))
const problems = []
try {
  const packed = packTarballs(join(work, 'packs'))
  const expected = publicPackages().map(({ name }) => name)
  for (const { name, tarball } of packed) {
    const manifest = publicPackages().find((pkg) => pkg.name === name)
    const files = run('tar', ['-tzf', tarball])
      .stdout.split('\n')
      .filter(Boolean)
      .map((file) => file.replace(/^package\//, ''))
    for (const file of REQUIRED) if (!files.includes(file)) problems.push(`${name}: the tarball has no ${file}`)
    const stray = files.filter((file) => !ALLOWED.test(file))
    if (stray.length > 0) problems.push(`${name}: the tarball ships files users do not need: ${stray.join(', ')}`)
    if (!files.some((file) => file.startsWith('dist/'))) problems.push(`${name}: the tarball has no dist/`)

    const pkg = JSON.parse(run('tar', ['-xzOf', tarball, 'package/package.json']).stdout)
    if (pkg.publishConfig?.access !== 'public' || pkg.publishConfig?.provenance !== true)
      problems.push(`${name}: package.json needs "publishConfig": { "access": "public", "provenance": true }`)
    if (typeof pkg.license !== 'string') problems.push(`${name}: package.json names no license`)
    const repository = pkg.repository
    if (
      RELEASE &&
      !(/^git\+https:\/\/github\.com\/[^/]+\/[^/]+\.git$/.test(repository?.url ?? '') && repository?.directory)
    ) {
      problems.push(
        `${name}: package.json needs "repository": { "url": "git+https://github.com/<owner>/<name>.git", "directory" } ` +
          'for npm provenance: run node scripts/set-repository.mjs <owner>/<name>',
      )
    }
    const workspaceRanges = Object.entries({ ...pkg.dependencies, ...pkg.peerDependencies }).filter(([, range]) =>
      String(range).startsWith('workspace:'),
    )
    if (workspaceRanges.length > 0) problems.push(`${name}: packed with workspace: ranges: ${workspaceRanges}`)

    const publint = run('npx', ['--no-install', 'publint', 'run', tarball, '--strict'])
    report(name, 'publint', publint)
    const attw = run('npx', ['--no-install', 'attw', tarball, '--format', 'ascii', ...(ATTW[name] ?? [])])
    report(name, 'are-the-types-wrong', attw)
    console.log(`check-packages: ${name}@${manifest.version}: ${files.length} files, publint and attw run`)
  }
  const missing = expected.filter((name) => !packed.some((entry) => entry.name === name))
  if (missing.length > 0) problems.push(`not packed: ${missing.join(', ')}`)
} catch (error) {
  problems.push(error.message)
} finally {
  rmSync(work, { recursive: true, force: true })
}

if (problems.length > 0) {
  console.error(`\ncheck-packages: ${problems.length} problem(s):\n${problems.map((p) => `- ${p}`).join('\n')}`)
  process.exitCode = 1
} else {
  console.log('check-packages: every public package packs, lints and resolves its types for ESM and CommonJS')
}

function report(name, tool, result) {
  if (result.status === 0) return
  problems.push(`${name}: ${tool} failed:\n${`${result.stdout}${result.stderr}`.trim()}`)
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: REPO, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } })
  if (result.error) throw result.error
  return result
}
