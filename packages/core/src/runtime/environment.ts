import { ConfigurationError } from '../errors.js'
import { readEnv } from '../internal/env.js'
import { checkBaseURL } from '../judge/openai-options.js'
import { envCacheMode, envConcurrency, envRequestsPerMinute } from './limits.js'

/**
 * Checks, all at once, the `JUDGETREE_*` variables that every judge call of a run reads (JUDGETREE_CACHE,
 * JUDGETREE_CONCURRENCY, JUDGETREE_RPM), and OPENAI_BASE_URL when it is set. The runners' global setups call it
 * before any test starts, so a malformed value stops the run with one message naming every bad variable, instead of
 * failing each test file. A missing OPENAI_API_KEY or OPENAI_BASE_URL is not a problem here: a run whose metrics use
 * another judge, or replay a recorded cache, does not need them; a judge reports them in each evaluation, and the
 * reporter says how to fix them once per run. A malformed OPENAI_BASE_URL, though, fails the default judge as soon as
 * a metric is built, replaying or not.
 *
 * @throws ConfigurationError listing each malformed variable with what it expects.
 */
export function checkEnvironment(): void {
  const problems: string[] = []
  for (const read of [envCacheMode, envConcurrency, envRequestsPerMinute, envBaseURL]) {
    try {
      read()
    } catch (error) {
      if (!(error instanceof ConfigurationError)) throw error
      problems.push(error.message)
    }
  }
  if (problems.length === 0) return
  if (problems.length === 1) {
    throw new ConfigurationError(`${problems[0]} Fix it, or unset it for the default.`)
  }
  throw new ConfigurationError(
    `${problems.length} environment variables are malformed; fix them, or unset them for their defaults:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`,
  )
}

/** OPENAI_BASE_URL, checked as the default judge checks it when it is built. */
function envBaseURL(): void {
  const baseURL = readEnv('OPENAI_BASE_URL')
  if (baseURL !== undefined) checkBaseURL(baseURL, 'OPENAI_BASE_URL')
}
