import { describe, expect, test } from 'vitest'
import { withJudgetree } from '../jest/index.js'
import JestReporter from '../jest/reporter.js'
import { judgetree } from '../vitest/index.js'
import JudgetreeReporter from '../vitest/reporter.js'

// `null` is a value, not "leave it out": every option of the runner integrations refuses it with a
// CONFIGURATION_INVALID error naming the option, as core's option bags do; `undefined` keeps the default.

const shared = ['timeout', 'reporter', 'concurrency', 'requestsPerMinute', 'baseline', 'failOnRegression']
const reporterKeys = ['outputFile', 'githubSummary', 'baseline', 'failOnRegression']
const builders: Record<string, { build: (options: Record<string, unknown>) => unknown; keys: readonly string[] }> = {
  'judgetree(options)': { build: (options) => judgetree(options as never), keys: [...shared, 'annotatePassing'] },
  'withJudgetree(config, options)': { build: (options) => withJudgetree({}, options as never), keys: shared },
  'judgetree({ reporter })': { build: (reporter) => judgetree({ reporter } as never), keys: reporterKeys },
  'withJudgetree(config, { reporter })': {
    build: (reporter) => withJudgetree({}, { reporter } as never),
    keys: reporterKeys,
  },
  'the Vitest reporter': { build: (options) => new JudgetreeReporter(options as never), keys: reporterKeys },
  'the Jest reporter': {
    build: (options) => new JestReporter({ rootDir: process.cwd() }, options as never),
    keys: reporterKeys,
  },
}

describe.each(Object.entries(builders))('%s', (_, { build, keys }) => {
  test('takes undefined for every option as "the default"', () => {
    expect(() => build(Object.fromEntries(keys.map((key) => [key, undefined])))).not.toThrow()
  })
  test.each(keys)('%s: null is a CONFIGURATION_INVALID error naming it', (key) => {
    expect(() => build({ [key]: null })).toThrow(expect.objectContaining({ code: 'CONFIGURATION_INVALID' }))
    expect(() => build({ [key]: null })).toThrow(new RegExp(`\`${key}\`[^\\n]*null`))
  })
})
