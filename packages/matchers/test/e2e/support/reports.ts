import { readFileSync } from 'node:fs'
import type { JudgetreeRecord, JudgetreeReport } from '../../../src/index.js'

/** One `<testcase>` of a JUnit XML file. */
export interface JUnitCase {
  readonly name: string
  readonly classname: string
  /** The `<failure>` element's text, if the test failed. */
  readonly failure: string | undefined
  /** The `<failure message="…">` attribute. */
  readonly failureMessage: string | undefined
  /** `<property name value>` pairs: Vitest writes test annotations here. */
  readonly properties: readonly { readonly name: string; readonly value: string }[]
}

/** Reads the test cases of a JUnit XML file; enough XML for what the runners write. */
export function readJUnit(file: string): JUnitCase[] {
  const xml = readFileSync(file, 'utf8')
  return [...xml.matchAll(/<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)].map(
    ([, attributes = '', body = '']) => {
      const failure = /<failure\b([^>]*?)(?:\/>|>([\s\S]*?)<\/failure>)/.exec(body)
      return {
        name: attribute(attributes, 'name') ?? '',
        classname: attribute(attributes, 'classname') ?? '',
        failure: failure ? decode(failure[2] ?? '') : undefined,
        failureMessage: failure ? attribute(failure[1] ?? '', 'message') : undefined,
        properties: [...body.matchAll(/<property\s+name="([^"]*)"\s+value="([^"]*)"/g)].map(
          ([, name = '', value = '']) => ({
            name: decode(name),
            value: decode(value),
          }),
        ),
      }
    },
  )
}

/** The JUnit test case with this name; fails loudly when there is none. */
export function junitCase(cases: readonly JUnitCase[], name: string): JUnitCase {
  const found = cases.find((testCase) => testCase.name === name)
  if (found === undefined)
    throw new Error(`No <testcase name="${name}"> among: ${cases.map((c) => c.name).join(' | ')}`)
  return found
}

/** Reads a judgetree JSON report. */
export function readReport(file: string): JudgetreeReport {
  return JSON.parse(readFileSync(file, 'utf8')) as JudgetreeReport
}

/** The evaluations the report lists for the test with this name (a suffix of its full name). */
export function evaluationsOf(report: JudgetreeReport, testName: string): readonly JudgetreeRecord[] {
  const test = report.tests.find((candidate) => candidate.name.endsWith(testName))
  return test?.evaluations ?? []
}

function attribute(attributes: string, name: string): string | undefined {
  const match = new RegExp(`\\b${name}="([^"]*)"`).exec(attributes)
  return match ? decode(match[1] ?? '') : undefined
}

function decode(text: string): string {
  return text
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1')
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, decimal: string) => String.fromCodePoint(Number(decimal)))
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&apos;', "'")
    .replaceAll('&amp;', '&')
}
