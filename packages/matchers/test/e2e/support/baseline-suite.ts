// What the Vitest and Jest baseline tests share: the scores of the run that writes the baseline and of the one that
// drifts from it, and how they read a run's judgetree lines and step summary.
import { readFileSync, writeFileSync } from 'node:fs'
import type { RunResult } from './runner.js'

export const BEFORE = { 'a steady': 0.8, 'a drifts': 0.9, 'b retired': 0.7 }
/** "a drifts" falls from 0.9 to 0.6 (still above the threshold 0.5), "b retired" is gone, "b added" is new. */
export const AFTER = { 'a steady': 0.8, 'a drifts': 0.6, 'b added': 0.7 }
/** BEFORE with "a drifts" fallen, and every test still there: for runs that filter some out. */
export const DRIFTED = { 'a steady': 0.8, 'a drifts': 0.6, 'b retired': 0.7 }

/** The [test, score] pairs of a baseline file, in its order. */
export function baselineScores(file: string): [string, number | null][] {
  const entries = JSON.parse(readFileSync(file, 'utf8')).entries as { test: string; score: number | null }[]
  return entries.map((entry) => [entry.test, entry.score])
}

/** A baseline entry of the fixtures' metric, as the file holds it. */
export function baselineEntry(file: string, test: string, score: number, fields: Record<string, unknown> = {}) {
  return {
    project: '',
    file,
    test,
    assertion: 1,
    metric: 'Written Score',
    score,
    threshold: 0.5,
    passed: score >= 0.5,
    negated: false,
    ...fields,
  }
}

/** Writes a baseline file of these entries. */
export function writeBaseline(file: string, entries: readonly object[]): void {
  writeFileSync(file, `${JSON.stringify({ version: 1, entries }, null, 2)}\n`)
}

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
