import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { JudgetreeRecord } from './record.js'

/**
 * Jest has no per-test metadata that reaches reporters, so each worker appends its evaluations to its own JSON
 * Lines file in this directory (named by the reporter through this variable, which workers inherit).
 */
export const SIDECAR_DIR_ENV = 'JUDGETREE_JEST_SIDECAR_DIR'

/** One line of a sidecar file: an evaluation and the test it belongs to. */
export interface SidecarLine {
  /** The project's `displayName` (see JEST_PROJECT_GLOBAL), `''` when unnamed. */
  readonly project: string
  /** Absolute path of the test file, as Jest reports it in `testResult.testFilePath`. */
  readonly testPath: string
  /** The test's full name, as in `assertionResult.fullName`. */
  readonly testName: string
  /**
   * Which of the file's tests with this name that ran it is, from 1 in the order they ran: tells apart tests that
   * share a name. Absent means 1.
   */
  readonly ran?: number | undefined
  readonly record: JudgetreeRecord
}

/** Appends an evaluation to this worker's sidecar file; does nothing when the judgetree reporter is not in use. */
export function appendSidecarLine(line: SidecarLine): void {
  const directory = sidecarDirectory()
  if (directory === undefined) return
  mkdirSync(directory, { recursive: true })
  // One file per process: appends from several processes to one file could interleave.
  const file = join(directory, `worker-${process.env.JEST_WORKER_ID ?? '1'}-${process.pid}.jsonl`)
  appendFileSync(file, `${JSON.stringify(line)}\n`)
}

/** Where this worker's evaluations go; undefined when the judgetree reporter is not in the run. */
export function sidecarDirectory(): string | undefined {
  const directory = process.env[SIDECAR_DIR_ENV]
  return directory ? directory : undefined
}

/** Every evaluation the workers recorded, grouped by test file, test name and which same-named test ran. */
export function readSidecarLines(directory: string): Map<string, JudgetreeRecord[]> {
  const byTest = new Map<string, JudgetreeRecord[]>()
  if (!existsSync(directory)) return byTest
  for (const name of readdirSync(directory)
    .filter((file) => file.endsWith('.jsonl'))
    .sort()) {
    for (const text of readFileSync(join(directory, name), 'utf8').split('\n')) {
      if (text.trim() === '') continue
      const line = JSON.parse(text) as SidecarLine
      const key = sidecarKey(line.project, line.testPath, line.testName, line.ran ?? 1)
      byTest.set(key, [...(byTest.get(key) ?? []), line.record])
    }
  }
  return byTest
}

/** How sidecar lines are joined with Jest's test results. */
export function sidecarKey(project: string, testPath: string, testName: string, ran: number): string {
  return `${project}\u0000${testPath}\u0000${testName}\u0000${ran}`
}
