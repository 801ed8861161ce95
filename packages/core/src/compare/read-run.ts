// What `judgetree compare` reads: a run's evaluations from a runner's JSON report (Vitest or Jest, one file or the
// shards of one run), evaluate()'s JSON report, or a baseline file. Only the fields compare needs are read, so
// reports written by older or newer versions compare too.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { z } from 'zod'
import { ConfigurationError } from '../errors.js'
import { addDetail, tokenDetails } from '../judge/tokens.js'
import type { MetricUsage } from '../metric/types.js'

/** A DAG judgement's outcome in one evaluation: its verdict (`true`, `false`, a choice), `not reached` or `failed`. */
export type NodeOutcome = string

/** One evaluation of a run as compare sees it. */
export interface RunEvaluation {
  /** Identifies the evaluation across runs: project, file, test (with its ordinal) and assertion; or case and metric. */
  readonly key: string
  /** How reports name it: `|web| tests/a.test.ts > greets #1 · Playful`, `case 3 · Playful`. */
  readonly label: string
  readonly metric: string
  /** Null when the metric errored. */
  readonly score: number | null
  readonly threshold: number
  /** Whether the metric passed (its score reached its threshold), whatever a `.not` made of it; null when it errored. */
  readonly passed: boolean | null
  /** The chance of passing (`passProbability.p`), where the run had one. */
  readonly passProbability?: number | undefined
  /** Each DAG judgement's outcome by node id; undefined where the source keeps no trace (a baseline). */
  readonly nodes: ReadonlyMap<string, { readonly label: string; readonly outcome: NodeOutcome }> | undefined
}

/**
 * Judge calls, tokens and cost of a run, where its source records them (a baseline does not): a measurement's usage
 * summed, its cost null when no call had a price.
 */
export interface RunTotals extends Omit<MetricUsage, 'costUsd'> {
  /** USD over the calls with a known price; null when none had one. */
  readonly costUsd: number | null
}

/** One side of a comparison. */
export interface ComparedRun {
  /** The files it was read from. */
  readonly files: readonly string[]
  readonly kind: 'report' | 'evaluate' | 'baseline'
  readonly evaluations: readonly RunEvaluation[]
  readonly totals: RunTotals | null
}

const traceNode = z.looseObject({
  id: z.string(),
  role: z.string(),
  label: z.string().nullish(),
  text: z.string().nullish(),
  status: z.string(),
  verdict: z.union([z.string(), z.boolean()]).nullish(),
})
const result = z.looseObject({
  name: z.string(),
  score: z.number(),
  threshold: z.number(),
  success: z.boolean(),
  error: z.unknown().nullish(),
  trace: z.looseObject({ nodes: z.array(traceNode) }).nullish(),
  passProbability: z.looseObject({ p: z.number() }).nullish(),
})
const totals = z.looseObject({
  judgeCalls: z.number(),
  cachedCalls: z.number(),
  promptTokens: z.number(),
  completionTokens: z.number(),
  cachedPromptTokens: z.number().optional(),
  reasoningTokens: z.number().optional(),
  costUsd: z.number().nullish(),
})
const runnerReport = z.looseObject({
  summary: totals,
  tests: z.array(
    z.looseObject({
      project: z.string(),
      file: z.string(),
      name: z.string(),
      ordinal: z.number().int().positive().optional(),
      evaluations: z.array(result.extend({ assertion: z.number().int().positive() })),
    }),
  ),
})
const evaluateReport = z.looseObject({
  summary: totals,
  results: z.array(z.looseObject({ index: z.number().int().nonnegative(), metric: z.string(), result })),
})
const baselineFile = z.looseObject({
  version: z.literal(1),
  entries: z.array(
    z.looseObject({
      project: z.string(),
      file: z.string(),
      test: z.string(),
      ordinal: z.number().int().positive().optional(),
      assertion: z.number().int().positive(),
      metric: z.string(),
      score: z.number().nullable(),
      threshold: z.number(),
      passed: z.boolean(),
      negated: z.boolean(),
      passProbability: z.number().optional(),
    }),
  ),
})

type Parsed =
  | { readonly kind: 'report'; readonly value: z.infer<typeof runnerReport> }
  | { readonly kind: 'evaluate'; readonly value: z.infer<typeof evaluateReport> }
  | { readonly kind: 'baseline'; readonly value: z.infer<typeof baselineFile> }

/**
 * Reads one side of a comparison: a report or baseline file, or a directory holding one run's report (its
 * `report.json`, or the `report.shard-<i>-of-<n>.json` files of a sharded run). Throws a JudgetreeError naming
 * the file and what is wrong with it.
 */
export function readRun(path: string): ComparedRun {
  const files = filesOf(path)
  const parsed = files.map((file) => parseFile(file))
  const kinds = new Set(parsed.map((entry) => entry.kind))
  if (kinds.size > 1) {
    throw new ConfigurationError(
      `${path} mixes ${[...kinds].join(' and ')} files; compare one run's reports (or one baseline) with another's.`,
    )
  }
  const evaluations = new Map<string, { readonly file: string; readonly evaluation: RunEvaluation }>()
  for (const [index, entry] of parsed.entries()) {
    const file = files[index] as string
    for (const evaluation of evaluationsOf(entry)) {
      const earlier = evaluations.get(evaluation.key)
      if (earlier !== undefined) {
        throw new ConfigurationError(
          `${evaluation.label} appears in both ${earlier.file} and ${file}: they are not parts of one run. ` +
            'Compare one run (or its shards) with another.',
        )
      }
      evaluations.set(evaluation.key, { file, evaluation })
    }
  }
  return {
    files,
    kind: (parsed[0] as Parsed).kind,
    evaluations: [...evaluations.values()].map((entry) => entry.evaluation),
    totals: sumTotals(parsed),
  }
}

/** A file as it is; a directory as its report.json, else its shard reports. */
function filesOf(path: string): string[] {
  let directory: boolean
  try {
    directory = statSync(path).isDirectory()
  } catch {
    throw new ConfigurationError(
      `${path} does not exist. Pass a report.json, a baseline file, or a folder holding one run's reports.`,
    )
  }
  if (!directory) return [path]
  const names = readdirSync(path)
  if (names.includes('report.json')) return [join(path, 'report.json')]
  const shards = names.filter((name) => /^report\.shard-\d+-of-\d+\.json$/.test(name)).sort(byShard)
  if (shards.length === 0) {
    throw new ConfigurationError(
      `${path} holds no report.json and no report.shard-<i>-of-<n>.json; pass the report file itself.`,
    )
  }
  const counts = new Set(shards.map((name) => name.match(/-of-(\d+)\.json$/)?.[1]))
  if (counts.size > 1) {
    throw new ConfigurationError(
      `${path} holds shard reports of runs split differently (${shards.join(', ')}); keep one run's.`,
    )
  }
  return shards.map((name) => join(path, name))
}

function byShard(a: string, b: string): number {
  return Number(a.match(/shard-(\d+)/)?.[1]) - Number(b.match(/shard-(\d+)/)?.[1])
}

function parseFile(file: string): Parsed {
  let json: unknown
  try {
    json = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    const why =
      error instanceof SyntaxError ? `is not JSON (${error.message})` : `cannot be read (${(error as Error).message})`
    throw new ConfigurationError(`${file} ${why}.`)
  }
  const shape = json as Record<string, unknown> | null
  const kind =
    shape === null || typeof shape !== 'object'
      ? undefined
      : 'tests' in shape
        ? 'report'
        : 'results' in shape
          ? 'evaluate'
          : 'entries' in shape
            ? 'baseline'
            : undefined
  if (kind === undefined) {
    throw new ConfigurationError(
      `${file} is not a judgetree report or baseline: it has none of \`tests\` (a Vitest or Jest report), ` +
        '`results` (evaluate()) or `entries` (a baseline).',
    )
  }
  const schema = kind === 'report' ? runnerReport : kind === 'evaluate' ? evaluateReport : baselineFile
  const parsed = schema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue?.path.length ? issue.path.join('.') : 'the top level'
    throw new ConfigurationError(
      `${file} is a judgetree ${kind} file, but ${where} is not what one holds: ${issue?.message}.`,
    )
  }
  return { kind, value: parsed.data } as Parsed
}

function evaluationsOf(parsed: Parsed): RunEvaluation[] {
  switch (parsed.kind) {
    case 'report':
      return parsed.value.tests.flatMap((test) =>
        test.evaluations.map((record) =>
          fromResult(
            record,
            runnerKey(test.project, test.file, test.name, test.ordinal ?? 1, record.assertion, record.name),
          ),
        ),
      )
    case 'evaluate':
      return parsed.value.results.map(({ index, metric, result: record }) =>
        fromResult(record, { key: `case ${index} · ${metric}`, label: `case ${index} · ${metric}` }),
      )
    case 'baseline':
      return parsed.value.entries.map((entry) => ({
        ...runnerKey(entry.project, entry.file, entry.test, entry.ordinal ?? 1, entry.assertion, entry.metric),
        metric: entry.metric,
        score: entry.score,
        threshold: entry.threshold,
        // `passed` is whether the assertion held; under `.not` the metric failed when it did.
        passed: entry.score === null ? null : entry.passed !== entry.negated,
        ...(entry.passProbability === undefined ? {} : { passProbability: entry.passProbability }),
        nodes: undefined,
      }))
  }
}

function fromResult(record: z.infer<typeof result>, where: { key: string; label: string }): RunEvaluation {
  const errored = record.error !== null && record.error !== undefined
  const nodes = new Map<string, { label: string; outcome: NodeOutcome }>()
  for (const node of record.trace?.nodes ?? []) {
    const outcome = outcomeOf(node)
    if (outcome !== undefined) nodes.set(node.id, { label: node.label ?? node.text ?? node.id, outcome })
  }
  return {
    ...where,
    metric: record.name,
    score: errored ? null : record.score,
    threshold: record.threshold,
    passed: errored ? null : record.success,
    ...(errored || !record.passProbability ? {} : { passProbability: record.passProbability.p }),
    nodes,
  }
}

/** A judgement's verdict, or that it did not give one; nothing for other entries (tasks, verdict leaves, steps). */
function outcomeOf(node: z.infer<typeof traceNode>): NodeOutcome | undefined {
  if (node.role !== 'judgement') return undefined
  if (node.verdict !== null && node.verdict !== undefined) return String(node.verdict)
  return node.status === 'failed' ? 'failed' : 'not reached'
}

function runnerKey(project: string, file: string, test: string, ordinal: number, assertion: number, metric: string) {
  const prefix = project === '' ? '' : `|${project}| `
  const nth = ordinal === 1 ? '' : ` [${ordinal}]`
  return {
    key: JSON.stringify([project, file, test, ordinal, assertion]),
    label: `${prefix}${file} > ${test}${nth} #${assertion} · ${metric}`,
  }
}

function sumTotals(parsed: readonly Parsed[]): RunTotals | null {
  let sum: RunTotals | null = null
  for (const entry of parsed) {
    if (entry.kind === 'baseline') return null
    const { judgeCalls, cachedCalls, promptTokens, completionTokens, cachedPromptTokens, reasoningTokens } =
      entry.value.summary
    const own: RunTotals = {
      judgeCalls,
      cachedCalls,
      promptTokens,
      completionTokens,
      ...tokenDetails(cachedPromptTokens, reasoningTokens),
      costUsd: entry.value.summary.costUsd ?? null,
    }
    sum =
      sum === null
        ? own
        : {
            judgeCalls: sum.judgeCalls + judgeCalls,
            cachedCalls: sum.cachedCalls + cachedCalls,
            promptTokens: sum.promptTokens + promptTokens,
            completionTokens: sum.completionTokens + completionTokens,
            ...tokenDetails(
              addDetail(sum.cachedPromptTokens, cachedPromptTokens),
              addDetail(sum.reasoningTokens, reasoningTokens),
            ),
            costUsd: sum.costUsd === null && own.costUsd === null ? null : (sum.costUsd ?? 0) + (own.costUsd ?? 0),
          }
  }
  return sum
}

/** The name a file is shown by in the comparison. */
export function shortName(files: readonly string[]): string {
  return files.length === 1
    ? (files[0] as string)
    : `${files.length} shard reports (${files.map((file) => basename(file)).join(', ')})`
}
