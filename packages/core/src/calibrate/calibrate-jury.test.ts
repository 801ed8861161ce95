// calibrate() on a jury of three decision judges over the example's labelled support replies, through the real
// openai SDK against the local server: each juror decides by a rule of its own (by model name), the jury's and each
// juror's kappa are checked against kappas computed here from those rules, and reading the jurors' own verdicts back
// makes no request.
import { readFileSync } from 'node:fs'
import { useOpenAIServer } from '@judgetree/test-support'
import { describe, expect, test } from 'vitest'
import { DeepAcyclicGraph } from '../dag/graph.js'
import { BinaryJudgementNode } from '../dag/nodes/binary-judgement-node.js'
import { VerdictNode } from '../dag/nodes/verdict-node.js'
import { jury } from '../judge/jury.js'
import { OpenAIDecisionJudge } from '../judge/openai-decision-judge.js'
import { DAGMetric } from '../metrics/dag-metric.js'
import { createJudgeRuntime } from '../runtime/judge-runtime.js'
import { SingleTurnParams } from '../test-case/params.js'
import type { LLMTestCase } from '../test-case/schemas.js'
import { calibrate } from './calibrate.js'
import type { LabelledCase } from './labels.js'

const labelled: LabelledCase<LLMTestCase>[] = readFileSync(
  new URL('../../../../examples/calibration/data/support-replies.jsonl', import.meta.url),
  'utf8',
)
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => {
    const { name, input, actualOutput, label } = JSON.parse(line)
    return { name, testCase: { input, actualOutput }, label }
  })

/** Each juror's rule: whether it finds the reply polite. */
const RULES: Readonly<Record<string, (reply: string) => boolean>> = {
  courteous: (reply) => /sorry|thank|please|happy to|of course/i.test(reply),
  specific: (reply) => /[0-9]/.test(reply),
  exclaims: (reply) => reply.includes('!'),
}
const JURORS = Object.keys(RULES)

const server = useOpenAIServer(undefined, {
  decisions: (request) => {
    const rule = RULES[request.body.model] as (reply: string) => boolean
    const reply = String(request.body.input)
    return { answers: request.body.questions.map(() => ({ answer: rule(reply), probability: 0.9 })) }
  },
})

function politeness(escalate: boolean) {
  const polite = new BinaryJudgementNode({
    criteria: 'Is the support reply courteous and respectful to the customer?',
    evaluationParams: [SingleTurnParams.ACTUAL_OUTPUT],
    children: [new VerdictNode({ verdict: true, score: 10 }), new VerdictNode({ verdict: false, score: 0 })],
  })
  const jurors = JURORS.map(
    (model) => new OpenAIDecisionJudge({ model, baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0 }),
  )
  return new DAGMetric({
    name: 'Politeness',
    dag: new DeepAcyclicGraph({ rootNodes: [polite] }),
    model: createJudgeRuntime({ cache: 'off' }).wrap(jury(jurors, { escalate })),
  })
}

/** Cohen's kappa of two pass/fail lists, computed from its definition. */
function kappa(judge: readonly boolean[], human: readonly boolean[]): number {
  const n = judge.length
  const observed = judge.filter((pass, at) => pass === human[at]).length / n
  const judgeRate = judge.filter(Boolean).length / n
  const humanRate = human.filter(Boolean).length / n
  const chance = judgeRate * humanRate + (1 - judgeRate) * (1 - humanRate)
  return (observed - chance) / (1 - chance)
}

const human = labelled.map(({ label }) => (label as { pass: boolean }).pass)
const ruled = (juror: string) =>
  labelled.map(({ testCase }) => (RULES[juror] as (r: string) => boolean)(testCase.actualOutput as string))

describe('calibrate() on a jury', () => {
  test("reports each juror's kappa beside the jury's, with no request beyond the jury's own", async () => {
    let out = ''
    const calibration = await calibrate(politeness(false), labelled, {
      progress: false,
      stdout: {
        write: (text: string) => {
          out += text
          return true
        },
      } as never,
    })

    // One decision request per juror per case, all made while the jury measured.
    expect(server.decisionRequests).toHaveLength(3 * labelled.length)
    const passes = JURORS.map(ruled)
    // Each juror's 0.9 for its own verdict: the mean's verdict is the majority's.
    const juryPasses = labelled.map((_, at) => passes.filter((own) => own[at]).length >= 2)
    expect(calibration.measured).toBe(36)
    expect(calibration.kappa).toBeCloseTo(kappa(juryPasses, human), 10)
    expect(calibration.jurors?.map(({ juror }) => juror)).toEqual(JURORS)
    for (const [at, juror] of (calibration.jurors ?? []).entries()) {
      expect(juror).toMatchObject({ measured: 36, leftOut: 0 })
      expect(juror.kappa).toBeCloseTo(kappa(passes[at] as boolean[], human), 10)
    }
    // The rules are different enough to make different kappas.
    expect(new Set(calibration.jurors?.map((juror) => juror.kappa?.toFixed(3))).size).toBe(3)
    expect(out).toContain('each juror alone (its own answers, no extra call):')
    expect(out).toMatch(/ {4}courteous {2}kappa -?\d\.\d{3} {2}agreement \d\.\d{3} {2}\(36 of 36 cases\)/)
  })

  test('with escalate, a juror spared a decision is left out of its own numbers rather than asked', async () => {
    const calibration = await calibrate(politeness(true), labelled, { progress: false, summary: false })

    const [first, second] = JURORS.map(ruled) as [boolean[], boolean[]]
    const disputed = first.filter((pass, at) => pass !== second[at]).length
    expect(server.decisionRequests).toHaveLength(2 * labelled.length + disputed)
    expect(calibration.jurors?.[0]).toMatchObject({ measured: 36, leftOut: 0 })
    expect(calibration.jurors?.[2]).toMatchObject({ measured: disputed, leftOut: 36 - disputed })
  })
})
