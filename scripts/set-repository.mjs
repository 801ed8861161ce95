#!/usr/bin/env node
// Writes where the code lives into every public package.json: `repository` (with the package's `directory`),
// `homepage` and `bugs`. npm provenance refuses to publish a package whose `repository.url` is not the GitHub
// repository the release workflow runs in, so the release workflow runs this first, with the repository it runs
// in (GITHUB_REPOSITORY); its "Version packages" commit then keeps the fields. Run by hand with owner/name to set
// them in a fork or before the first release.
//
//   node scripts/set-repository.mjs [owner/name]      (default: $GITHUB_REPOSITORY)
import { readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { publicPackages, REPO } from './pack-tarballs.mjs'

const repository = process.argv[2] ?? process.env.GITHUB_REPOSITORY
if (repository === undefined || !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repository)) {
  console.error(
    `set-repository: expected the GitHub repository as owner/name (an argument, or GITHUB_REPOSITORY); got ${JSON.stringify(repository ?? null)}.`,
  )
  process.exit(1)
}

for (const { name, dir } of publicPackages()) {
  const file = join(dir, 'package.json')
  const manifest = JSON.parse(readFileSync(file, 'utf8'))
  const directory = relative(REPO, dir).split('\\').join('/')
  manifest.repository = { type: 'git', url: `git+https://github.com/${repository}.git`, directory }
  manifest.homepage = `https://github.com/${repository}/tree/main/${directory}#readme`
  manifest.bugs = { url: `https://github.com/${repository}/issues` }
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`)
  console.log(`set-repository: ${name}: github.com/${repository}, ${directory}`)
}
