// Preloaded (`node --import`) by engine-ab.mjs into each build's engine scenario: prints the process's CPU time at
// exit, so that a run on a machine busy with other work can be judged by the work it took, not only by the wall
// time the scheduler gave it. All threads count (V8's GC helpers too).
process.on('exit', () => {
  const { user, system } = process.cpuUsage()
  process.stdout.write(`${JSON.stringify({ cpuSeconds: (user + system) / 1e6 })}\n`)
})
