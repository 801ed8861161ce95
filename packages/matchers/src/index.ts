// @judgetree/matchers: the data toPassMetric records and the reporters write. The runner integrations live in
// '@judgetree/matchers/vitest' and '@judgetree/matchers/jest'; the matcher types in '/vitest/types',
// '/vitest/types-v5' and '/jest/types'.
export type { AgreementExpectation } from './internal/agreement.js'
export type {
  BaselineChange,
  BaselineComparison,
  BaselineEntry,
  BaselineFile,
  BaselineStatus,
} from './internal/baseline.js'
export type { ToPassMetricOptions } from './internal/evaluate.js'
export type { JudgetreeReportBaseline } from './internal/publish-baseline.js'
export type {
  JudgetreeRecord,
  PlainError,
  PlainMetricResult,
  PlainTrace,
  PlainTraceNode,
  PlainUsage,
} from './internal/record.js'
export { DEFAULT_REPORT_FILE, type JudgetreeReporterOptions } from './internal/reporter-options.js'
export type { JudgetreeReport, JudgetreeReportTest, JudgetreeRunSummary } from './internal/run-report.js'
export { META_KEY } from './internal/vitest-task.js'
