// The engine scenario against other builds of packages/core in one run: builds take turns, round after round, so
// that whatever else loads the machine falls on all of them alike. Prints each run, then medians and ratios.
// Usage: node bench/engine-ab.mjs [--rounds N] [--in-flight 8,64] [--per-run 20000] name=/path/to/checkout …
// This checkout is always measured, as "this"; each name=path is another checkout with packages/core built, e.g. a
// worktree of an older commit (`git worktree add --detach /tmp/jt-f0cee59 f0cee59`, install, build core). Each
// build runs its own checkout's bench/scenarios/engine.mjs: the scenario's DAG had to change with the DAG rules.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median } from './lib.mjs'

const args = process.argv.slice(2)
const option = (name, fallback) => {
  const at = args.indexOf(name)
  if (at === -1) return fallback
  const [value] = args.splice(at, 2).slice(1)
  return value
}
const rounds = Number(option('--rounds', '4'))
const inFlights = option('--in-flight', '8,64').split(',').map(Number)
const perRun = option('--per-run', '20000')
const builds = [['this', fileURLToPath(new URL('..', import.meta.url))]]
for (const arg of args) {
  const at = arg.indexOf('=')
  if (at < 1) throw new Error(`expected name=/path/to/checkout, got '${arg}'`)
  builds.push([arg.slice(0, at), arg.slice(at + 1)])
}
for (const [name, root] of builds) {
  if (!existsSync(join(root, 'packages/core/dist/index.js')))
    throw new Error(`${name}: packages/core is not built in ${root}`)
}

/** One process of a checkout's engine scenario, 3 timed runs of `perRun` measurements; resolves to their rates. */
function engineRates(root, inFlight) {
  return new Promise((resolve, reject) => {
    const engine = join(root, 'bench/scenarios/engine.mjs')
    const child = spawn(process.execPath, [engine, '3', perRun, String(inFlight)], {
      env: { ...process.env, JUDGETREE_BENCH_CORE: join(root, 'packages/core/dist/index.js') },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
    })
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`${engine} exited with ${code}`))
      resolve(JSON.parse(out.trim().split('\n').at(-1)).rates)
    })
  })
}

const fmt = (value) => Math.round(value).toLocaleString('en-US')
/** Per in-flight count and build: the median of each process's runs, one per round. */
const medians = new Map(inFlights.map((inFlight) => [inFlight, new Map(builds.map(([name]) => [name, []]))]))
for (let round = 0; round < rounds; round++) {
  for (const inFlight of inFlights) {
    // The order turns each round, so no build always runs first (or right after another).
    const order = builds.map((_, i) => builds[(i + round) % builds.length])
    for (const [name, root] of order) {
      const rates = await engineRates(root, inFlight)
      medians.get(inFlight).get(name).push(median(rates))
      process.stderr.write(`round ${round + 1}, ${inFlight} in flight, ${name}: ${rates.map(fmt).join(', ')}/s\n`)
    }
  }
}

console.log(
  `| in flight | ${builds.map(([name]) => `${name} (median/s)`).join(' | ')} | ${builds
    .slice(1)
    .map(([name]) => `this ÷ ${name}`)
    .join(' | ')} |`,
)
console.log(
  `| --- | ${builds.map(() => '---').join(' | ')} | ${builds
    .slice(1)
    .map(() => '---')
    .join(' | ')} |`,
)
for (const inFlight of inFlights) {
  const byBuild = medians.get(inFlight)
  const mine = median(byBuild.get('this'))
  const cells = builds.map(([name]) => `${fmt(median(byBuild.get(name)))} (${byBuild.get(name).map(fmt).join(', ')})`)
  // The ratio of the medians, and in brackets the median of each round's own ratio (the load shifts between rounds).
  const ratios = builds.slice(1).map(([name]) => {
    const theirs = byBuild.get(name)
    const paired = median(byBuild.get('this').map((rate, round) => rate / theirs[round]))
    return `${(mine / median(theirs)).toFixed(2)}× (${paired.toFixed(2)}×)`
  })
  console.log(`| ${inFlight} | ${cells.join(' | ')} | ${ratios.join(' | ')} |`)
}
