/** Stable codes carried by every judgetree error, for programs that branch on them. */
export type JudgetreeErrorCode =
  | 'DAG_INVALID'
  | 'CONFIGURATION_INVALID'
  | 'TEST_CASE_INVALID'
  | 'TEST_CASE_PARAM_MISSING'
  | 'TURN_WINDOW_OUT_OF_RANGE'
  | 'JUDGE_OUTPUT_INVALID'
  | 'JUDGE_CALL_FAILED'
  | 'METRIC_FAILED'
  | 'NO_VERDICT_REACHED'
  | 'MEASUREMENT_ABORTED'
  | 'CACHE_MISS'

/** The root of every error judgetree throws or reports on a result. */
export class JudgetreeError extends Error {
  readonly code: JudgetreeErrorCode
  /**
   * The DAG node the error happened at, as messages name it: its label, else its kind and criteria (a verdict's
   * path for a child metric). Undefined for errors raised outside a DAG walk.
   */
  readonly node: string | undefined
  /**
   * Set when the problem lies in the run's environment, not in one evaluation (no API key, a key the server
   * refuses, a malformed base URL), so that every evaluation of the run meets it: how to fix it, the
   * last sentences of the message. Test runners print the message without it in each failed test and the whole
   * message once per run (see {@link withoutAdvice}).
   */
  readonly advice: string | undefined

  constructor(
    code: JudgetreeErrorCode,
    message: string,
    options?: { cause?: unknown; node?: string | undefined; advice?: string | undefined },
  ) {
    super(options?.advice === undefined ? message : `${message} ${options.advice}`, options)
    this.name = 'JudgetreeError'
    this.code = code
    this.node = options?.node
    this.advice = options?.advice
  }
}

/**
 * A text that holds an environment problem's message, with the problem's advice (see {@link JudgetreeError.advice})
 * taken out wherever it appears: for the reports of one evaluation, when the advice is said once for the whole run.
 *
 * @example
 * withoutAdvice('Node "A" failed: No API key. Set OPENAI_API_KEY.', 'Set OPENAI_API_KEY.') // 'Node "A" failed: No API key.'
 */
export function withoutAdvice(text: string, advice: string): string {
  return advice === '' ? text : text.split(` ${advice}`).join('')
}

/**
 * The same error, said again with where it happened in front: `<where> failed: <message>`. Locating never changes
 * what the error is: judgetree errors keep their class, code and fields (a judge's raw output, an HTTP status).
 * Anything else was thrown by code, not by a judge (judge calls classify their own failures, see
 * {@link toJudgeCallError}), so it becomes a METRIC_FAILED error caused by it. The original is left untouched:
 * judge runtimes share one failure between identical calls.
 */
export function errorAt(error: unknown, where: string, fields: { node?: string } = {}): JudgetreeError {
  const original = error instanceof Error ? error.message : String(error)
  const message = `${where} failed: ${original}`
  if (!(error instanceof JudgetreeError)) {
    return new JudgetreeError('METRIC_FAILED', message, { cause: error, node: fields.node })
  }
  const located = Object.create(Object.getPrototypeOf(error)) as JudgetreeError
  Object.defineProperties(located, Object.getOwnPropertyDescriptors(error))
  Object.defineProperty(located, 'message', { value: message, writable: true, configurable: true })
  if (typeof error.stack === 'string') {
    Object.defineProperty(located, 'stack', {
      value: error.stack.replace(original, message),
      writable: true,
      configurable: true,
    })
  }
  if (fields.node !== undefined) {
    Object.defineProperty(located, 'node', { value: fields.node, enumerable: true, configurable: true })
  }
  return located
}

/**
 * Any thrown value as a judgetree error: judgetree errors pass unchanged; anything else (a bug in a metric's own
 * code, a `TypeError`) becomes a METRIC_FAILED error caused by it, its message `<context>: <original message>`, so
 * it is never mistaken for a judge failure.
 *
 * @example
 * toJudgetreeError(new TypeError('x is undefined'), 'The metric "No Promises" failed').code // 'METRIC_FAILED'
 */
export function toJudgetreeError(error: unknown, context: string): JudgetreeError {
  if (error instanceof JudgetreeError) return error
  const message = error instanceof Error ? error.message : String(error)
  return new JudgetreeError('METRIC_FAILED', `${context}: ${message}`, { cause: error })
}

/** A judge's failure as a judgetree error: judgetree errors pass unchanged; anything else becomes JUDGE_CALL_FAILED. */
export function toJudgeCallError(error: unknown): JudgetreeError {
  if (error instanceof JudgetreeError) return error
  return new JudgetreeError('JUDGE_CALL_FAILED', error instanceof Error ? error.message : String(error), {
    cause: error,
  })
}

/** One broken rule found while validating a DAG: what, where and how to fix it. */
export interface DagIssue {
  /** Stable rule identifier, e.g. `binary-verdicts`. */
  readonly rule: string
  /** The node the rule was broken at, as a readable path such as `BinaryJudgementNode "Satisfied?"`. */
  readonly node: string
  readonly message: string
}

/** A DAG broke one or more construction rules; `issues` lists every one of them. */
export class DagValidationError extends JudgetreeError {
  readonly issues: readonly DagIssue[]

  constructor(issues: readonly DagIssue[]) {
    const lines = issues.map((issue, index) => `  ${index + 1}. [${issue.rule}] ${issue.node}: ${issue.message}`)
    const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`
    super('DAG_INVALID', `Invalid DAG (${count}):\n${lines.join('\n')}`)
    this.name = 'DagValidationError'
    this.issues = issues
  }
}

/**
 * An option passed to a metric, judge or helper is not acceptable, or the environment is not (no API key, a
 * malformed `JUDGETREE_*` variable; those a whole run meets carry {@link JudgetreeError.advice}).
 */
export class ConfigurationError extends JudgetreeError {
  constructor(message: string, options?: { advice?: string | undefined }) {
    super('CONFIGURATION_INVALID', message, options)
    this.name = 'ConfigurationError'
  }
}

/** A test case does not have the shape judgetree expects (wrong types, no turns, …). */
export class TestCaseError extends JudgetreeError {
  constructor(message: string, code: 'TEST_CASE_INVALID' | 'TURN_WINDOW_OUT_OF_RANGE' = 'TEST_CASE_INVALID') {
    super(code, message)
    this.name = 'TestCaseError'
  }
}

/** A test case lacks a parameter that a metric (or one of its nodes) needs. */
export class MissingTestCaseParamError extends JudgetreeError {
  readonly params: readonly string[]
  readonly metric: string

  /** `fix`: how to add what is missing, for metrics whose fields have no `evaluationParams` to drop them from. */
  constructor(metric: string, params: readonly string[], where?: string, fix?: string) {
    const names = params.map((param) => `'${param}'`).join(', ')
    const place = where ? ` (needed by ${where})` : ''
    super(
      'TEST_CASE_PARAM_MISSING',
      `The test case has no ${names} but the metric "${metric}" needs it${place}. ` +
        (fix ?? `Add ${names} to the test case, or remove it from the metric's evaluationParams.`),
    )
    this.name = 'MissingTestCaseParamError'
    this.params = params
    this.metric = metric
  }
}

/** The judge answered, but not with what was asked for, even after being asked again. */
export class JudgeOutputError extends JudgetreeError {
  /** The judge's raw answer text, for debugging the prompt or the model. */
  readonly rawOutput: string

  constructor(message: string, rawOutput: string, options?: { cause?: unknown }) {
    super('JUDGE_OUTPUT_INVALID', message, options)
    this.name = 'JudgeOutputError'
    this.rawOutput = rawOutput
  }
}

/** The judge could not be reached or refused the request, after the SDK's retries. */
export class JudgeCallError extends JudgetreeError {
  /** HTTP status when the server answered, undefined for network errors and timeouts. */
  readonly status: number | undefined
  /** How long the server asked callers to wait (its Retry-After), when it said; judge runtimes pause for it. */
  readonly retryAfterMs: number | undefined

  constructor(
    message: string,
    options?: {
      cause?: unknown
      status?: number | undefined
      retryAfterMs?: number | undefined
      /** For a refusal every call of the run will meet (a 401: the key is wrong): how to fix it. */
      advice?: string | undefined
    },
  ) {
    super('JUDGE_CALL_FAILED', message, options)
    this.name = 'JudgeCallError'
    this.status = options?.status
    this.retryAfterMs = options?.retryAfterMs
  }
}

/** The measurement was cancelled through its AbortSignal. */
export class MeasurementAbortedError extends JudgetreeError {
  constructor(reason?: unknown) {
    // Duck-typed: a reason from another realm (Jest's sandbox, a worker) is not `instanceof Error` here.
    const message = typeof reason === 'object' && reason !== null ? (reason as { message?: unknown }).message : reason
    const detail = typeof message === 'string' && message.length > 0 ? `: ${message}` : ''
    // A reason that ends its own sentence ("… configure it globally with "testTimeout".") gets no second period.
    const end = /[.!?]["'”’)]?$/.test(detail) ? '' : '.'
    super('MEASUREMENT_ABORTED', `The measurement was aborted${detail}${end}`, { cause: reason })
    this.name = 'MeasurementAbortedError'
  }
}

/** A DAG walk ended without reaching any verdict, so there is no score. */
export class NoVerdictReachedError extends JudgetreeError {
  constructor(message: string) {
    super('NO_VERDICT_REACHED', message)
    this.name = 'NoVerdictReachedError'
  }
}

/** The judge cache is in replay mode and has no answer for a judge call, so the call is not made. */
export class CacheMissError extends JudgetreeError {
  /** The cache key (a sha256) the answer would be stored under. */
  readonly key: string

  constructor(message: string, key: string) {
    super('CACHE_MISS', message)
    this.name = 'CacheMissError'
    this.key = key
  }
}
