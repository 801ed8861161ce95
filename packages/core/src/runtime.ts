// @judgetree/core/runtime: the plumbing behind judge calls, for the few who wire it by hand (a test-runner
// integration, a benchmark, a custom cache directory per run). Test files need only the root entry.

export type { CacheMode } from './runtime/cache.js'
export {
  type Coordinator,
  type CoordinatorOptions,
  type CoordinatorStats,
  startCoordinator,
} from './runtime/coordinator.js'
export {
  createJudgeRuntime,
  defaultJudgeRuntime,
  type JudgeRuntime,
  type JudgeRuntimeOptions,
  type JudgeRuntimeStats,
} from './runtime/judge-runtime.js'
