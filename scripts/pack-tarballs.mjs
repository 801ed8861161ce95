#!/usr/bin/env node
// Packs every public package (as built in dist) into one folder, the way `npm publish` would pack them, and
// prints the `npm install` line that installs them into another project. Until the packages are on the npm
// registry this is how to try judgetree in your own project (README, "Install").
//
//   pnpm run build && node scripts/pack-tarballs.mjs [destination]     default destination: ./packs
//
// scripts/check-packages.mjs and scripts/check-quickstarts.mjs use `packTarballs` too, so the route the README
// gives is the one CI checks.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..')

const AI_SDK = '@judgetree/ai-sdk'
/** What @judgetree/ai-sdk is installed with: the `ai` major of its peer range, and the OpenAI provider of that major. */
export const AI_SDK_PEERS = 'ai@7 @ai-sdk/openai@4'

/** The packages published to npm, in dependency order, with their folder under packages/. */
export function publicPackages() {
  return readdirSync(join(REPO, 'packages'))
    .map((dir) => ({ dir: join(REPO, 'packages', dir), manifest: readManifest(join(REPO, 'packages', dir)) }))
    .filter(({ manifest }) => manifest !== undefined && manifest.private !== true)
    .sort((a, b) => dependsOn(a.manifest, b.manifest.name) - dependsOn(b.manifest, a.manifest.name))
    .map(({ dir, manifest }) => ({ name: manifest.name, version: manifest.version, dir }))
}

/** Packs every public package into `destination` (emptied first); returns `{ name, tarball }` per package. */
export function packTarballs(destination) {
  rmSync(destination, { recursive: true, force: true })
  mkdirSync(destination, { recursive: true })
  return publicPackages().map(({ name, version, dir }) => {
    if (!existsSync(join(dir, 'dist'))) throw new Error(`${name} has no dist folder: run \`pnpm run build\` first.`)
    execFileSync('pnpm', ['pack', '--pack-destination', destination], { cwd: dir, stdio: 'pipe' })
    const tarball = join(destination, `${name.replace('@', '').replace('/', '-')}-${version}.tgz`)
    if (!existsSync(tarball)) throw new Error(`pnpm pack did not write ${tarball}`)
    return { name, tarball }
  })
}

function readManifest(dir) {
  const file = join(dir, 'package.json')
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined
}

function dependsOn(manifest, name) {
  const all = { ...manifest.dependencies, ...manifest.peerDependencies }
  return name in all ? 1 : 0
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const destination = resolve(process.argv[2] ?? join(REPO, 'packs'))
  const packed = packTarballs(destination)
  for (const { name, tarball } of packed) console.log(`${name}: ${tarball}`)
  console.log(`\n${installLines(packed).join('\n')}`)
}

/**
 * The install lines for a project: the core and matchers with Vitest, then the AI SDK judge with the AI SDK majors
 * it needs (`ai` 7 declares Node.js 22, so on Node.js 20 a bare `npm install ai` picks ai 6, which it does not fit).
 */
export function installLines(packed) {
  const tarballOf = (name) => packed.find((entry) => entry.name === name)?.tarball
  const runner = packed.filter(({ name }) => name !== AI_SDK).map(({ tarball }) => tarball)
  const aiSdk = tarballOf(AI_SDK)
  return [
    'In your project:',
    `  npm install -D ${runner.join(' ')} vitest`,
    ...(aiSdk === undefined
      ? []
      : ['With an AI SDK judge (@judgetree/ai-sdk), also:', `  npm install -D ${aiSdk} ${AI_SDK_PEERS}`]),
  ]
}
