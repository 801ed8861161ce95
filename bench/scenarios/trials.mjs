// Judge requests and prompt tokens for 5 trials of G-Eval over 100 cases, with `n` (one request for all five
// samples) and without (a judge that declares no generateSamples: one request per trial), against one trial.
// Counted at the bench server: HTTP requests and the prompt tokens it billed. Cache off.
import { core, report, serverStats } from '../lib.mjs'

const [baseURL, url, cases = '100', trials = '5'] = process.argv.slice(2)
const { LLMTestCaseParams } = core
const testCases = Array.from({ length: Number(cases) }, (_, index) => ({
  input: `Question ${index}: what is ${index} + ${index}?`,
  actualOutput: `The answer is ${index * 2}.`,
}))

/** Runs the 100 cases through one G-Eval (its steps generated once) and returns what the server counted. */
async function measure(label, judge, options) {
  const runtime = core.createJudgeRuntime({ cache: 'off', concurrency: 16 })
  const metric = new core.GEval({
    name: 'Correct',
    criteria: 'Is the actual output a correct answer to the input?',
    evaluationParams: [LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT],
    model: runtime.wrap(judge),
    ...options,
  })
  const before = await serverStats(url)
  const results = await Promise.all(testCases.map((testCase) => metric.measure(testCase)))
  const failed = results.find((result) => result.error)
  if (failed) throw new Error(`${label}: ${failed.error.message}`)
  const after = await serverStats(url)
  return { requests: after.requests - before.requests, promptTokens: after.promptTokens - before.promptTokens }
}

const openai = () => new core.OpenAIJudge({ model: 'gpt-4.1', baseURL, apiKey: 'sk-bench', maxRetries: 0 })
/** The same judge without generateSamples, as a user's own judge or aiSdkJudge is. */
const oneSample = () => {
  const judge = openai()
  return { name: judge.name, cacheIdentity: judge.cacheIdentity, generate: (request) => judge.generate(request) }
}

const one = await measure('one trial', openai(), {})
const withN = await measure('trials with n', openai(), { trials: Number(trials) })
const withoutN = await measure('trials without n', oneSample(), { trials: Number(trials) })
report({ one, withN, withoutN })
