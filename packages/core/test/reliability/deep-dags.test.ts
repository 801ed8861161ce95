import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { xmlProblems } from '@judgetree/test-support'
import { describe, expect, test } from 'vitest'
import {
  BinaryJudgementNode,
  DAGMetric,
  DeepAcyclicGraph,
  evaluate,
  renderResult,
  VerdictNode,
} from '../../src/index.js'
import { scriptedJudge } from '../../src/testing.js'

// Deep graphs must not overflow the stack: every walk over a graph (building, validating, planning, serialising,
// drawing, running) is iterative, so depth is bounded by memory, not by the call stack.

/**
 * A chain `depth` judgements deep: each judgement's true verdict continues with the next. The last judgement's
 * true verdict scores `lastScore`.
 */
function chainInCode(depth: number, lastScore = 10) {
  let child: BinaryJudgementNode | undefined
  for (let level = depth; level >= 1; level--) {
    child = new BinaryJudgementNode({
      criteria: `Check ${level}?`,
      evaluationParams: ['actualOutput'],
      children: [
        new VerdictNode({ verdict: false, score: 0 }),
        child === undefined
          ? new VerdictNode({ verdict: true, score: lastScore })
          : new VerdictNode({ verdict: true, child }),
      ],
    })
  }
  return new DeepAcyclicGraph({ rootNodes: [child as BinaryJudgementNode] })
}

/** The same chain as JSON, written by hand (the way a generated or hostile file would arrive). */
function chainAsJson(depth: number) {
  const nodes: Record<string, unknown> = {}
  for (let level = 1; level <= depth; level++) {
    nodes[`j${level}`] = {
      type: 'BinaryJudgementNode',
      criteria: `Check ${level}?`,
      evaluationParams: ['actualOutput'],
      children: [`no${level}`, `yes${level}`],
    }
    nodes[`no${level}`] = { type: 'VerdictNode', verdict: false, score: 0 }
    nodes[`yes${level}`] =
      level === depth
        ? { type: 'VerdictNode', verdict: true, score: 10 }
        : { type: 'VerdictNode', verdict: true, children: [`j${level + 1}`] }
  }
  return { format: 'judgetree-dag', version: 1, roots: ['j1'], nodes }
}

describe('deep DAGs', () => {
  test('a 5,000-judgement chain built in code validates, serialises, reads back and draws', () => {
    const dag = chainInCode(5_000)
    const json = dag.toJSON()
    expect(Object.keys(json.nodes)).toHaveLength(15_000)
    const back = DeepAcyclicGraph.fromJSON(JSON.stringify(json))
    expect(back.toJSON()).toEqual(json)
    expect(dag.toMermaid().split('\n').length).toBeGreaterThan(15_000)
  })

  test('fromJSON of a 2,000-judgement chain (and 10,000) does not overflow the stack', () => {
    expect(() => DeepAcyclicGraph.fromJSON(chainAsJson(2_000))).not.toThrow()
    expect(() => DeepAcyclicGraph.fromJSON(chainAsJson(10_000))).not.toThrow()
  })

  test('a cycle in a deep JSON chain is still reported as a cycle', () => {
    const json = chainAsJson(3_000)
    ;(json.nodes.yes3000 as Record<string, unknown>) = { type: 'VerdictNode', verdict: true, children: ['j1'] }
    expect(() => DeepAcyclicGraph.fromJSON(json)).toThrow(/cycle/)
  })

  test('a 2,000-judgement chain runs to its last verdict', async () => {
    const judge = scriptedJudge({ rules: [{ match: 'Check', answer: { reason: 'ok', verdict: true } }] })
    const metric = new DAGMetric({ name: 'Deep', dag: chainInCode(2_000), model: judge })
    const result = await metric.measure({ input: 'q', actualOutput: 'a' })
    expect(result.error).toBeUndefined()
    expect(result.score).toBe(1)
    expect(judge.requests).toHaveLength(2_000)
  })

  test('the result of a 3,000-judgement chain renders, every level of it, in lines of bounded width', async () => {
    const judge = scriptedJudge({ rules: [{ match: 'Check', answer: { reason: 'ok', verdict: true } }] })
    const dag = chainInCode(3_000, 0)
    const metric = new DAGMetric({ name: 'Deep', dag, model: judge })
    const result = await metric.measure({ input: 'q', actualOutput: 'a' })
    expect(result.success).toBe(false)
    const text = renderResult(result)
    const lines = text.split('\n')
    for (const level of [1, 1_500, 3_000]) expect(text).toContain(`[${level}] Judgement: Check ${level}?`)
    expect(lines.at(-1)).toMatch(/● true → 0 {2}◀ score 0$/)
    // The tree's lines (the reason above it names every judgement on one line).
    const tree = lines.filter((line) => !line.startsWith('reason: '))
    expect(Math.max(...tree.map((line) => line.length))).toBeLessThan(200)
    // The pictures of the same walk draw too.
    expect(dag.toDot({ trace: result.trace }).split('\n').length).toBeGreaterThan(9_000)
    expect(dag.toMermaid({ trace: result.trace }).split('\n').length).toBeGreaterThan(9_000)
    expect(text).toMatch(
      /⋮ what is below \[\d+\] goes on at the left margin\n├─ ○ false → 0\n└─ ● true\n {3}└─ \[\d+\] Judgement/,
    )
  })

  test('evaluate() with an outputFile keeps the results of a 3,000-judgement chain, and its tree', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'judgetree-deep-'))
    try {
      const judge = scriptedJudge({ rules: [{ match: 'Check', answer: { reason: 'ok', verdict: true } }] })
      const metric = new DAGMetric({ name: 'Deep', dag: chainInCode(3_000, 0), model: judge })
      const outputFile = join(scratch, 'deep.json')
      const { results } = await evaluate([{ input: 'q', actualOutput: 'a' }], [metric], {
        outputFile,
        progress: false,
        summary: false,
      })
      expect(results.map((entry) => entry.result.score)).toEqual([0])
      expect(JSON.parse(readFileSync(outputFile, 'utf8')).results).toHaveLength(1)
      const html = readFileSync(join(scratch, 'deep.html'), 'utf8')
      expect(html).toContain('[3000] Judgement: Check 3000?')
      // Graphviz may give up on 9,000 nodes (then the page has the tree and no picture); a picture it drew is XML.
      const svg = /<svg[\s\S]*?<\/svg>/.exec(html)?.[0]
      if (svg !== undefined) expect(xmlProblems(svg)).toEqual([])
    } finally {
      rmSync(scratch, { recursive: true, force: true })
    }
  })
})
