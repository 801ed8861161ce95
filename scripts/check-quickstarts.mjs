#!/usr/bin/env node
// The fresh-folder check of docs/quickstart.md: for each section marked `<!-- quickstart: NAME -->` (Vitest and
// Jest, ES module and CommonJS, and both with an AI SDK judge) it makes an empty temporary folder and does what the
// section says, in order: runs its shell lines (`npm init -y`, `npm install -D …`) and writes each code block to the file its first line
// names (`// chatbot.test.ts`), exactly as written. The only change: the install lines get the packed tarballs
// (scripts/pack-tarballs.mjs) in place of `@judgetree/core`, `@judgetree/matchers` and `@judgetree/ai-sdk`, which
// are not on the registry yet; the runners come from the npm registry. The last shell block (the test command) then runs against
// a local OpenAI-compatible server on 127.0.0.1 (bench/server.mjs, through OPENAI_BASE_URL, no key, cache off),
// and must pass having made judge calls. Installs run side by side, test runs one at a time. Exits 1 on a failure.
//
//   pnpm run build && node scripts/check-quickstarts.mjs [name…]      KEEP=1 keeps the temporary folders
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { startBenchServer } from '../bench/server.mjs'
import { AI_SDK_PEERS, packTarballs, REPO } from './pack-tarballs.mjs'

const DOC = join(REPO, 'docs', 'quickstart.md')

/** The quickstart sections of a markdown text: `{ name, steps }`, a step being `{ shell: [lines] }` or `{ file, text }`. */
export function extractQuickstarts(markdown) {
  const sections = []
  const markers = [...markdown.matchAll(/<!-- quickstart: ([\w-]+) -->/g)]
  for (const [index, marker] of markers.entries()) {
    const start = marker.index + marker[0].length
    const next = markers[index + 1]?.index ?? markdown.indexOf('<!-- /quickstart -->', start)
    const body = markdown.slice(start, next === -1 ? undefined : next)
    const steps = []
    for (const block of body.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)) {
      const [, lang, text] = block
      if (lang === 'sh') {
        steps.push({ shell: text.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#')) })
        continue
      }
      const file = /^\/\/ ([\w./-]+)/.exec(text)?.[1]
      if (file === undefined) throw new Error(`quickstart ${marker[1]}: a ${lang} block does not start with // <file>`)
      steps.push({ file, text })
    }
    sections.push({ name: marker[1], steps })
  }
  return sections
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()

async function main() {
  const started = Date.now()
  const wanted = process.argv.slice(2)
  const sections = extractQuickstarts(readFileSync(DOC, 'utf8')).filter(
    (section) => wanted.length === 0 || wanted.includes(section.name),
  )
  if (sections.length === 0) throw new Error(`no quickstart sections in ${DOC}`)
  // The AI SDK sections install what `pnpm run pack-tarballs` tells a user to install with the ai-sdk tarball.
  for (const section of sections) {
    const lines = section.steps.flatMap((step) => step.shell ?? [])
    const install = lines.find((line) => line.startsWith('npm install') && line.includes('@judgetree/ai-sdk'))
    if (install !== undefined && !install.includes(AI_SDK_PEERS)) {
      throw new Error(`quickstart ${section.name} installs @judgetree/ai-sdk without \`${AI_SDK_PEERS}\`: ${install}`)
    }
  }
  const work = mkdtempSync(join(tmpdir(), 'judgetree-quickstarts-'))
  const results = []
  let server
  try {
    const tarballs = new Map(packTarballs(join(work, 'packs')).map(({ name, tarball }) => [name, tarball]))
    const prepared = await Promise.all(sections.map((section) => prepare(section, join(work, section.name), tarballs)))
    server = await startBenchServer()
    for (const { section, home, error } of prepared) {
      if (error) {
        results.push({ name: section.name, ok: false, detail: error })
        continue
      }
      const before = server.stats().requests
      const at = Date.now()
      const commands = section.steps.at(-1).shell
      const env = { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: '', JUDGETREE_CACHE: 'off', NO_COLOR: '1' }
      try {
        for (const command of commands) await sh(command, home, join(home, 'run.log'), env)
        const calls = server.stats().requests - before
        const ok = calls > 0
        results.push({
          name: section.name,
          ok,
          detail: `${seconds(at)}s, ${calls} judge calls${ok ? '' : ' (none: the test did not reach the judge)'}`,
          log: join(home, 'run.log'),
        })
      } catch (error) {
        results.push({ name: section.name, ok: false, detail: error.message, log: join(home, 'run.log') })
      }
    }
  } finally {
    await server?.close()
    for (const result of results) {
      console.log(`quickstart ${result.name.padEnd(11)} ${result.ok ? 'ok' : 'FAILED'}  ${result.detail}`)
      if (!result.ok && result.log) console.log(tail(result.log))
    }
    console.log(`check-quickstarts: ${seconds(started)}s in all`)
    if (process.env.KEEP) console.log(`kept ${work}`)
    else rmSync(work, { recursive: true, force: true })
  }
  if (results.length < sections.length || results.some((result) => !result.ok)) process.exitCode = 1
}

/** Runs every step but the last (the test command) in an empty folder. */
async function prepare(section, home, tarballs) {
  mkdirSync(home, { recursive: true })
  const log = join(home, 'setup.log')
  try {
    for (const step of section.steps.slice(0, -1)) {
      if (step.file !== undefined) {
        mkdirSync(dirname(join(home, step.file)), { recursive: true })
        writeFileSync(join(home, step.file), step.text)
        continue
      }
      for (const line of step.shell) {
        const command = line.startsWith('npm install')
          ? line.replace(/@judgetree\/[\w-]+/g, (name) => {
              const tarball = tarballs.get(name)
              if (tarball === undefined) throw new Error(`${section.name}: ${name} is not a packed package`)
              return tarball
            })
          : line
        await sh(command, home, log)
      }
    }
    return { section, home }
  } catch (error) {
    return { section, home, error: `${error.message}\n${tail(log)}` }
  }
}

/** Runs one shell line in `home`, appending its output to `log`; rejects on a non-zero exit or after 5 minutes. */
function sh(command, home, log, env = {}) {
  return new Promise((resolve, reject) => {
    writeFileSync(log, `$ ${command}\n`, { flag: 'a' })
    const child = spawn('sh', ['-c', command], {
      cwd: home,
      env: {
        ...process.env,
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_update_notifier: 'false',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000)
    child.stdout.on('data', (chunk) => writeFileSync(log, chunk, { flag: 'a' }))
    child.stderr.on('data', (chunk) => writeFileSync(log, chunk, { flag: 'a' }))
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      if (code === 0) resolve()
      else reject(new Error(`\`${command}\` exited with ${code}`))
    })
  })
}

function tail(file, lines = 40) {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n')
  } catch {
    return ''
  }
}

function seconds(since) {
  return Math.round((Date.now() - since) / 1000)
}
