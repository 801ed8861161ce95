// What the Vitest and Jest baseline tests share: the scores of the run that writes the baseline and of the one that
// drifts from it, and how they read a run's judgetree lines and step summary.
import { readFileSync } from 'node:fs'
import type { RunResult } from './runner.js'

export const BEFORE = { 'a steady': 0.8, 'a drifts': 0.9, 'b retired': 0.7 }
/** "a drifts" falls from 0.9 to 0.6 (still above the threshold 0.5), "b retired" is gone, "b added" is new. */
export const AFTER = { 'a steady': 0.8, 'a drifts': 0.6, 'b added': 0.7 }

/** The judgetree lines of a run's output, the scratch directory masked. */
export function judgetreeLines(result: RunResult, scratch: string): string {
  return result.output
    .split('\n')
    .filter((line) => line.startsWith('judgetree') || (line.startsWith('  ') && /^ {2}[▼▲✗✓+−] /.test(line)))
    .filter((line) => !line.startsWith('judgetree: JSON report in '))
    .join('\n')
    .replaceAll(scratch, '<scratch>')
}

/** A step summary file, the scratch directory masked. */
export function stepSummary(file: string, scratch: string): string {
  return readFileSync(file, 'utf8').replaceAll(scratch, '<scratch>')
}
