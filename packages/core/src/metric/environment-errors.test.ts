import { expect, test, vi } from 'vitest'
import { ConfigurationError } from '../errors.js'
import { scriptedJudge } from '../judge/scripted-judge.js'
import { GEval } from '../metrics/geval.js'
import { LLMTestCaseParams } from '../test-case/params.js'

// Its own file: the process's judge runtime is built once, from the environment, by the first metric.
test('a bad JUDGETREE_CACHE is reported as the environment variable it is, not as the metric’s options', () => {
  vi.stubEnv('JUDGETREE_CACHE', 'replpay')
  const build = () =>
    new GEval({
      name: 'Polite',
      criteria: 'Is the answer polite?',
      evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
      model: scriptedJudge({ rules: [] }),
    })
  expect(build).toThrow(ConfigurationError)
  expect(build).toThrow(/^JUDGETREE_CACHE must be one of 'read-write', 'read-only', 'replay', 'off'; got 'replpay'\.$/)
  vi.unstubAllEnvs()
})
