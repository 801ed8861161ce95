// The engine scenario against other builds of packages/core in one run: builds take turns, round after round, so
// that whatever else loads the machine falls on all of them alike. Prints each run, then medians and ratios, and
// the CPU time each process took for the same work (warm-up and 3 runs): on a loaded machine the wall-time rates
// also measure the scheduler's share, the CPU time only the work.
// Usage: node bench/engine-ab.mjs [--rounds N] [--in-flight 8,64] [--per-run 20000] name=/path/to/checkout …
// This checkout is always measured, as "this"; each name=path is another checkout with packages/core built, e.g. a
// worktree of an older commit (`git worktree add --detach /tmp/jt-f0cee59 f0cee59`, install, build core). Each
// build runs its own checkout's bench/scenarios/engine.mjs: the scenario's DAG had to change with the DAG rules.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
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

const cpuUsage = pathToFileURL(fileURLToPath(new URL('cpu-usage.mjs', import.meta.url))).href

/**
 * One process of a checkout's engine scenario, 3 timed runs of `perRun` measurements; resolves to their rates and
 * the CPU seconds the whole process took.
 */
function engineRun(root, inFlight) {
  return new Promise((resolve, reject) => {
    const engine = join(root, 'bench/scenarios/engine.mjs')
    const child = spawn(process.execPath, ['--import', cpuUsage, engine, '3', perRun, String(inFlight)], {
      env: { ...process.env, JUDGETREE_BENCH_CORE: join(root, 'packages/core/dist/index.js') },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
    })
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`${engine} exited with ${code}`))
      const lines = out.trim().split('\n')
      resolve({ rates: JSON.parse(lines.at(-2)).rates, cpuSeconds: JSON.parse(lines.at(-1)).cpuSeconds })
    })
  })
}

const fmt = (value) => Math.round(value).toLocaleString('en-US')
/** Per in-flight count and build: the median of each process's runs, one per round; and each process's CPU time. */
const medians = new Map(inFlights.map((inFlight) => [inFlight, new Map(builds.map(([name]) => [name, []]))]))
const cpu = new Map(inFlights.map((inFlight) => [inFlight, new Map(builds.map(([name]) => [name, []]))]))
for (let round = 0; round < rounds; round++) {
  for (const inFlight of inFlights) {
    // The order turns each round, so no build always runs first (or right after another).
    const order = builds.map((_, i) => builds[(i + round) % builds.length])
    for (const [name, root] of order) {
      const { rates, cpuSeconds } = await engineRun(root, inFlight)
      medians.get(inFlight).get(name).push(median(rates))
      cpu.get(inFlight).get(name).push(cpuSeconds)
      process.stderr.write(
        `round ${round + 1}, ${inFlight} in flight, ${name}: ${rates.map(fmt).join(', ')}/s, ` +
          `${cpuSeconds.toFixed(1)} s of CPU\n`,
      )
    }
  }
}

/** A Markdown table's head: the in-flight count, a column per build, then one per other build against this one. */
function printHead(perBuild, perOther) {
  const others = builds.slice(1)
  console.log(
    `| in flight | ${builds.map(([name]) => perBuild(name)).join(' | ')} | ${others.map(([name]) => perOther(name)).join(' | ')} |`,
  )
  console.log(`| --- | ${builds.map(() => '---').join(' | ')} | ${others.map(() => '---').join(' | ')} |`)
}

printHead(
  (name) => `${name} (median/s)`,
  (name) => `this ÷ ${name}`,
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

// The same work's CPU time: the median per build (each round's in brackets), and this build's share of the other's
// (below 1: this one took less), as the median of each round's own ratio.
console.log('')
printHead(
  (name) => `${name} (CPU s)`,
  (name) => `this ÷ ${name} (CPU)`,
)
for (const inFlight of inFlights) {
  const byBuild = cpu.get(inFlight)
  const seconds = (values) => values.map((value) => value.toFixed(1)).join(', ')
  const cells = builds.map(([name]) => `${median(byBuild.get(name)).toFixed(1)} (${seconds(byBuild.get(name))})`)
  const ratios = builds.slice(1).map(([name]) => {
    const theirs = byBuild.get(name)
    return `${median(byBuild.get('this').map((value, round) => value / theirs[round])).toFixed(2)}×`
  })
  console.log(`| ${inFlight} | ${cells.join(' | ')} | ${ratios.join(' | ')} |`)
}
