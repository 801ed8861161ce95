// Building one judgement with many verdicts: addVerdict, then the DeepAcyclicGraph that checks and plans it.
// Usage: node bench/scenarios/wide-judgement.mjs [runs] [widths…]   (defaults: 3 runs of 1,000 2,000 4,000 10,000)
// Construction must grow linearly with the width: doubling the verdicts about doubles the time.
import { core, median } from '../lib.mjs'

const [runs = 3, ...widths] = process.argv.slice(2).map(Number)
const rows = []
for (const width of widths.length > 0 ? widths : [1_000, 2_000, 4_000, 10_000]) {
  const times = []
  for (let run = 0; run < runs; run++) {
    const started = performance.now()
    const judgement = new core.NonBinaryJudgementNode({ criteria: 'Which one?', evaluationParams: ['actualOutput'] })
    for (let index = 0; index < width; index++) judgement.addVerdict(`option ${index}`, { score: index % 11 })
    new core.DeepAcyclicGraph({ rootNodes: [judgement] })
    times.push(performance.now() - started)
  }
  rows.push({ width, ms: Math.round(median(times)), runs: times.map(Math.round) })
  process.stderr.write(`wide judgement: ${width} verdicts, ${Math.round(median(times))} ms (median of ${runs})\n`)
}
console.log(JSON.stringify({ rows }))
