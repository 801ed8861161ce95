import { afterEach, describe, expect, test, vi } from 'vitest'
import { ConfigurationError } from '../errors.js'
import { checkEnvironment } from './environment.js'

afterEach(() => {
  vi.unstubAllEnvs()
})

describe('checkEnvironment: the JUDGETREE_* variables and OPENAI_BASE_URL, checked once before a run', () => {
  test('unset, blank and well-formed values pass', () => {
    vi.stubEnv('JUDGETREE_CACHE', 'replay')
    vi.stubEnv('JUDGETREE_CONCURRENCY', ' ')
    vi.stubEnv('JUDGETREE_RPM', '600')
    expect(() => checkEnvironment()).not.toThrow()
  })

  test('one malformed value is named, with what it expects', () => {
    vi.stubEnv('JUDGETREE_CACHE', 'bogus')
    expect(() => checkEnvironment()).toThrow(
      new ConfigurationError(
        "JUDGETREE_CACHE must be one of 'read-write', 'read-only', 'replay', 'off'; got 'bogus'. Fix it, or unset it " +
          'for the default.',
      ),
    )
  })

  test('a malformed OPENAI_BASE_URL is named with the form it needs; a well-formed one passes', () => {
    vi.stubEnv('OPENAI_BASE_URL', '127.0.0.1:11434/v1')
    expect(() => checkEnvironment()).toThrow(
      new ConfigurationError(
        'OPENAI_BASE_URL is not an http(s) URL: got "127.0.0.1:11434/v1". Set OPENAI_BASE_URL to the API root of an ' +
          'OpenAI-compatible server, such as `http://localhost:11434/v1`. Fix it, or unset it for the default.',
      ),
    )
    vi.stubEnv('OPENAI_BASE_URL', 'http://127.0.0.1:11434/v1')
    expect(() => checkEnvironment()).not.toThrow()
  })

  test('every malformed value is listed in one error, so one run finds them all', () => {
    vi.stubEnv('JUDGETREE_CACHE', 'bogus')
    vi.stubEnv('JUDGETREE_CONCURRENCY', 'eight')
    vi.stubEnv('JUDGETREE_RPM', '-1')
    const error = (() => {
      try {
        checkEnvironment()
      } catch (caught) {
        return caught as ConfigurationError
      }
      return undefined
    })()
    expect(error).toBeInstanceOf(ConfigurationError)
    expect(error?.message.split('\n')).toEqual([
      '3 environment variables are malformed; fix them, or unset them for their defaults:',
      "  - JUDGETREE_CACHE must be one of 'read-write', 'read-only', 'replay', 'off'; got 'bogus'.",
      "  - JUDGETREE_CONCURRENCY must be a whole number from 1 and up; got 'eight'.",
      expect.stringMatching(/^ {2}- JUDGETREE_RPM must be a number of requests per minute from .*; got '-1'\.$/),
    ])
  })
})
