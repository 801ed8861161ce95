import { describe, expect, test } from 'vitest'

// The built entries, as users import them: the root holds what a test file needs, ./runtime the plumbing.
const root = await import('@judgetree/core')
const runtime = await import('@judgetree/core/runtime')

describe('package entries', () => {
  test('the root entry keeps the judge plumbing out; ./runtime has it', () => {
    for (const name of ['createJudgeRuntime', 'defaultJudgeRuntime', 'startCoordinator', 'resolveJudge']) {
      expect(Object.keys(root)).not.toContain(name)
    }
    expect(Object.keys(runtime).sort()).toEqual([
      'ASSERTION_REJECTED',
      'CallBudget',
      'DEFAULT_JUDGE_CALL_BUDGET_MS',
      'JudgeSecrets',
      'MAX_TIMER_MS',
      'PLAIN',
      'SURFACES',
      'StructuredJudge',
      'adviceOf',
      'aggregateSchema',
      'answerExcerpt',
      'cacheNamespaceSchema',
      'chanceMove',
      'checkEnvironment',
      'checkOptions',
      'closestName',
      'colourEnabled',
      'concurrencySchema',
      'createDecisionJudge',
      'createJudgeRuntime',
      'createStructuredJudge',
      'dagMermaid',
      'defaultJudgeRuntime',
      'describeGiven',
      'expecting',
      'flagSchema',
      'judgeOptionsSchema',
      'lastCoordinatorStats',
      'listProblems',
      'maxRetriesSchema',
      'measureSafely',
      'minPassProbabilitySchema',
      'paletteFor',
      'parseJudgeAnswer',
      'parseOptions',
      'plural',
      'pricingSchema',
      'promptSchemaWording',
      'readTokenLogprobs',
      'refusalIn',
      'renderFooter',
      'renderMarkdown',
      'renderRunOutput',
      'requestsPerMinuteSchema',
      'resultPicture',
      'retryAfterOf',
      'scoreMove',
      'scoreText',
      'scrubSecrets',
      'scrubTokens',
      'scrubValue',
      'secretsSchema',
      'signalSchema',
      'startCoordinator',
      'stateText',
      'temperatureSchema',
      'terminalSafe',
      'thresholdSchema',
      'timeoutMsSchema',
      'timerMsSchema',
      'toRecord',
      'trialsOptionSchema',
      'trialsSchema',
      'verifyCache',
      'warnSchema',
      'withMinPassProbability',
      'withRetries',
      'withSchemaInstruction',
      'writeFileAtomically',
      'xmlSafe',
    ])
    expect(Object.keys(root)).toContain('evaluate')
    expect(Object.keys(root)).toEqual(expect.arrayContaining(['OpenAIDecisionJudge', 'DEFAULT_DECISION_PRICES']))
    // A jury goes wherever a judge does, so it is in the root entry beside the judges.
    expect(Object.keys(root)).toContain('jury')
  })

  test('./runtime gives other judges the answer reading and secret scrubbing OpenAIJudge uses', () => {
    const { parseJudgeAnswer, scrubSecrets } = runtime
    const schema = root.llmTestCaseSchema.pick({ input: true })
    expect(parseJudgeAnswer('```json\n{"input":"hi"}\n```', schema)).toEqual({ ok: true, value: { input: 'hi' } })
    expect(parseJudgeAnswer('{"input":1}', schema)).toMatchObject({ ok: false })
    expect(scrubSecrets('keys sk-abcdefghijklmnop1234 and AIzaSyA1234567890abcdefghijklmnopqrs')).toBe(
      'keys sk-*** and sk-***',
    )
  })

  test('both entries share one process runtime', async () => {
    const { defaultJudgeRuntime } = runtime
    expect(defaultJudgeRuntime()).toBe(defaultJudgeRuntime())
    const testing = await import('@judgetree/core/testing')
    // A metric built from the root entry goes through the runtime the ./runtime entry hands out.
    const before = defaultJudgeRuntime().stats().requests
    const metric = new root.DAGMetric({
      name: 'Entry check',
      model: testing.scriptedJudge({ rules: [{ match: 'Ok?', answer: { reason: 'Yes.', verdict: true } }] }),
      dag: new root.DeepAcyclicGraph({
        rootNodes: [
          new root.BinaryJudgementNode({
            criteria: 'Ok?',
            evaluationParams: [root.LLMTestCaseParams.INPUT],
            children: [
              new root.VerdictNode({ verdict: true, score: 10 }),
              new root.VerdictNode({ verdict: false, score: 0 }),
            ],
          }),
        ],
      }),
    })
    const result = await metric.measure({ input: 'hello' })
    expect(result.score).toBe(1)
    expect(defaultJudgeRuntime().stats().requests).toBe(before + 1)
  })
})
