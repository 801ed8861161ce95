/** How long one attempt of a default OpenAIJudge call may take before it is abandoned and retried. */
export const DEFAULT_JUDGE_TIMEOUT_MS = 60_000

/** Retries of a default OpenAIJudge call (timeouts, 5xx and resets by the SDK; 429s by the judge runtime). */
export const DEFAULT_JUDGE_MAX_RETRIES = 3

/** The SDK's longest wait between two attempts (0.5 s doubling, capped). */
const LONGEST_BACKOFF_MS = 8_000

/**
 * The longest a default OpenAIJudge spends on one call that never answers before it reports its own timeout: every
 * attempt and the waits between them (264 s). A test runner's default timeout must outlast it, or a hung judge
 * shows as the runner's "Test timed out" with no judge call recorded instead of the judge's own error.
 */
export const DEFAULT_JUDGE_CALL_BUDGET_MS =
  (DEFAULT_JUDGE_MAX_RETRIES + 1) * DEFAULT_JUDGE_TIMEOUT_MS + DEFAULT_JUDGE_MAX_RETRIES * LONGEST_BACKOFF_MS
