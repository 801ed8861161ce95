// @judgetree/core/runtime: the plumbing behind judge calls, for the few who wire it by hand (a test-runner
// integration, a benchmark, a custom cache directory per run). Test files need only the root entry.

// For test-runner integrations: measure with any metric and always get a result, as evaluate() does.
export { type MeasureSafelyOptions, measureSafely } from './evaluate/measure-safely.js'
export { closestName } from './internal/closest-name.js'
// For the runners' option bags: one parser and the schemas they share with core, so one option is one rule with one
// wording everywhere.
export {
  checkOptions,
  describeGiven,
  type Expectation,
  expecting,
  flagSchema,
  listProblems,
  type OptionCheck,
  type OptionProblem,
  parseOptions,
} from './internal/options.js'
// For report writers: what judges and test cases wrote, made safe to print (terminals, CI logs) and to put in XML.
export { terminalSafe, xmlSafe } from './internal/safe-text.js'
export { type ScrubbableToken, type Secrets, scrubSecrets, scrubTokens, scrubValue } from './internal/scrub.js'
// For report writers (the runners' reporters): a whole file or none, and never a device replaced by a file.
export { writeFileAtomically } from './internal/write-file.js'
// For judges outside core (such as @judgetree/ai-sdk, or yours): read answers and scrub secrets exactly as OpenAIJudge.
export { answerExcerpt, type ParsedAnswer, parseJudgeAnswer, withSchemaInstruction } from './judge/answer.js'
// For judge transports (@judgetree/ai-sdk, or yours): retries and a timeout for an SDK that leaves them to you.
export { CallBudget, type CallBudgetOptions } from './judge/call-budget.js'
// For decision transports (@judgetree/ai-sdk's, or yours): the decision protocol, as OpenAIDecisionJudge speaks it.
export {
  createDecisionJudge,
  type DecisionAnswer,
  type DecisionCall,
  type DecisionCompletion,
  type DecisionJudge,
  type DecisionTransport,
  stateText,
} from './judge/decision-judge.js'
// For test-runner integrations: their default test timeout outlasts a default judge's own timeout and retries.
export { DEFAULT_JUDGE_CALL_BUDGET_MS } from './judge/default-timing.js'
// For judge transports (@judgetree/ai-sdk, or yours): the protocol and what a transport needs to speak it.
export { type FailureAdvice, retryAfterOf, type TransportFailure } from './judge/failures.js'
export { JudgeSecrets } from './judge/header-secrets.js'
// For judges' option bags (OpenAIJudge's, @judgetree/ai-sdk's, yours): the options they share, one rule each.
export {
  cacheNamespaceSchema,
  judgeOptionsSchema,
  maxRetriesSchema,
  pricingSchema,
  type SharedJudgeOptions,
  secretsSchema,
  temperatureSchema,
  timeoutMsSchema,
  warnSchema,
} from './judge/judge-option-schemas.js'
export { type PromptSchemaFallback, promptSchemaWording, refusalIn } from './judge/prompt-schema-fallback.js'
export {
  createStructuredJudge,
  type JudgeTransport,
  type LatchWording,
  type SamplingSetting,
  type SettingIgnored,
  StructuredJudge,
  type TransportCall,
  type TransportCompletion,
  type TransportSample,
} from './judge/structured-judge.js'
export { type ReadLogprobs, readTokenLogprobs } from './judge/token-logprobs.js'
export { type CallHistory, type RetryOptions, withRetries } from './judge/transport-retries.js'
export {
  aggregateSchema,
  minPassProbabilitySchema,
  signalSchema,
  thresholdSchema,
  trialsOptionSchema,
  trialsSchema,
} from './metric/measure-options.js'
// For the runners' toPassMetric: the gate on the chance of passing, as evaluate() and calibrate() apply it.
export { withMinPassProbability } from './metric/pass-gate.js'
// For the runners' reporters: whether their closing lines are coloured, decided as evaluate() decides it.
export {
  type ColourContext,
  colourEnabled,
  type Palette,
  PLAIN,
  paletteFor,
  type TerminalNote,
  type Tone,
} from './report/colour.js'
// For the runners' reporters: every surface of a run, which they iterate as evaluate() does.
export { SURFACES, type Surface, type SurfaceName, type SurfaceTarget } from './report/index.js'
// For report writers: a result's picture, the DAG's walk above its text, as every surface draws it; and the walk as
// a Mermaid flowchart, which the step summary draws.
export { dagMermaid, resultPicture } from './report/picture.js'
// For report writers (the runners' reporters): the one JSON form of a result, as evaluate() writes it.
export {
  ASSERTION_REJECTED,
  adviceOf,
  type PlainResult,
  type RecordError,
  type RecordTrace,
  type RecordTraceNode,
  type RecordTrial,
  type RecordUsage,
  type ResultRecord,
  toRecord,
} from './report/record.js'
export type { AssertionRecord, RunnerReport, RunnerRun, RunnerTest } from './report/run.js'
// For the baseline check: how a score moved between two runs, worded as `judgetree compare` words it.
export { chanceMove, scoreMove, scoreText } from './report/score-move.js'
// For report writers: one footer for every run, and the numbers as every report writes them.
export { plural, type RateLimitSummary, type RunSummary, renderFooter } from './report/summary.js'
export { renderMarkdown } from './report/surfaces/markdown.js'
export { renderRunOutput } from './report/surfaces/terminal.js'
export type { CacheMode } from './runtime/cache.js'
export { type CacheProblem, type CacheReport, verifyCache } from './runtime/cache-verify.js'
export {
  type Coordinator,
  type CoordinatorOptions,
  type CoordinatorStats,
  lastCoordinatorStats,
  startCoordinator,
} from './runtime/coordinator.js'
// For test-runner integrations: one check of the JUDGETREE_* variables before any test runs.
export { checkEnvironment } from './runtime/environment.js'
export {
  createJudgeRuntime,
  defaultJudgeRuntime,
  type JudgeRuntime,
  type JudgeRuntimeOptions,
  type JudgeRuntimeStats,
} from './runtime/judge-runtime.js'
export { concurrencySchema, MAX_TIMER_MS, requestsPerMinuteSchema, timerMsSchema } from './runtime/limits.js'
