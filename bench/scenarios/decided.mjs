// The judge calls it takes to reach a verdict on G-Eval over 100 cases with a noisy judge: `trials: 10` against
// `trials: { max: 10, until: 'decided' }` (minPassProbability 0.5), and a decision judge whose distribution gives
// P(pass) in one call per case. Through the real `openai` SDK to the bench server, cache off; judge calls are the
// samples the results hold (one per trial; a request with `n` asks for several), requests what the server received.
//
// The noisy judge: each case has its own chance that a sample passes (scores 8, else 2, threshold 0.5). Most cases
// are clear (85%: 0.95 or 0.05), some leaning (10%: 0.8 or 0.2), a few on the line (5%: 0.5). Every sample is drawn
// from a seeded generator, one seed per round, so rounds differ and a round can be run again.
// Usage: node bench/scenarios/decided.mjs [cases=100] [rounds=5]
import { core, median, report } from '../lib.mjs'
import { startBenchServer } from '../server.mjs'

const [caseCount = 100, rounds = 5] = process.argv.slice(2).map(Number)
const { LLMTestCaseParams } = core
const testCases = Array.from({ length: caseCount }, (_, index) => ({
  input: `Question ${index}: what is ${index} + ${index}?`,
  actualOutput: `The answer is ${index * 2}.`,
}))

/** Each case's chance that a sample of the noisy judge passes, and its kind. */
const kinds = testCases.map((_, index) => {
  const slot = (index * 37) % 100
  if (slot < 5) return { kind: 'on the line', chance: 0.5 }
  if (slot < 15) return { kind: 'leaning', chance: slot % 2 === 0 ? 0.8 : 0.2 }
  return { kind: 'clear', chance: slot % 2 === 0 ? 0.95 : 0.05 }
})
const passChance = kinds.map(({ chance }) => chance)

/** mulberry32: a small seeded generator, so a round's draws can be made again. */
function generator(seed) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

let random = generator(1)
const server = await startBenchServer({
  // G-Eval's score: 8 with the case's chance, else 2; every other request as the schema says.
  answer: (schema, prompt) => {
    if (schema?.properties?.score === undefined) return undefined
    const index = Number(/Question (\d+):/.exec(prompt)?.[1])
    const passes = random() < (passChance[index] ?? 0.5)
    return { reason: passes ? 'Correct.' : 'Wrong.', score: passes ? 8 : 2 }
  },
})
const options = { baseURL: server.baseURL, apiKey: 'bench-key', maxRetries: 0 }

/** Measures every case with one configuration in a fresh runtime; what the results and the server counted. */
async function measure(configuration) {
  const runtime = core.createJudgeRuntime({ cache: 'off', concurrency: 16 })
  const metric = new core.GEval({
    name: 'Correct',
    evaluationSteps: ['Check that the actual output answers the input correctly.'],
    evaluationParams: [LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT],
    model: runtime.wrap(new core.OpenAIJudge({ model: 'gpt-4.1', ...options })),
    threshold: 0.5,
    ...configuration(runtime),
  })
  const before = server.stats()
  const results = await Promise.all(testCases.map((testCase) => metric.measure(testCase)))
  const failed = results.find((result) => result.error)
  if (failed) throw new Error(failed.error.message)
  const after = server.stats()
  const samples = (result) => result.trials?.length ?? 1
  const byKind = {}
  for (const [index, result] of results.entries()) {
    const { kind } = kinds[index]
    byKind[kind] = (byKind[kind] ?? 0) + samples(result)
  }
  return {
    calls: results.reduce((sum, result) => sum + samples(result), 0),
    byKind,
    requests: after.requests - before.requests,
    undecided: results.filter((result) => result.passProbability?.stopped === 'undecided').length,
    withChance: results.filter((result) => result.passProbability !== undefined).length,
  }
}

const configurations = {
  fixed: () => ({ trials: 10 }),
  untilDecided: () => ({ trials: { max: 10, until: 'decided' }, minPassProbability: 0.5 }),
  decisionJudge: (runtime) => ({
    decisionModel: runtime.wrap(new core.OpenAIDecisionJudge({ model: 'gpt-6-luna', ...options })),
  }),
}

const runs = { fixed: [], untilDecided: [], decisionJudge: [] }
for (let round = 1; round <= rounds; round++) {
  for (const [name, configuration] of Object.entries(configurations)) {
    random = generator(round)
    runs[name].push(await measure(configuration))
  }
}
await server.close()

const summary = (name) => ({
  calls: median(runs[name].map((run) => run.calls)),
  requests: median(runs[name].map((run) => run.requests)),
  undecided: median(runs[name].map((run) => run.undecided)),
  withChance: median(runs[name].map((run) => run.withChance)),
  runs: runs[name].map((run) => run.calls),
  byKind: Object.fromEntries(
    Object.keys(runs[name][0].byKind).map((kind) => [kind, median(runs[name].map((run) => run.byKind[kind]))]),
  ),
  cases: Object.fromEntries(
    [...new Set(kinds.map(({ kind }) => kind))].map((kind) => [
      kind,
      kinds.filter((each) => each.kind === kind).length,
    ]),
  ),
})
report({
  cases: caseCount,
  rounds,
  fixed: summary('fixed'),
  untilDecided: summary('untilDecided'),
  decisionJudge: summary('decisionJudge'),
})
