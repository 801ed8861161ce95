import { usingAiSdk, usingLoopback, usingRealJudge } from './mode.js'

/** Vitest global setup: says once per run which judge the examples use, how to switch, and how to see a failure. */
export default function banner(): void {
  const judge = usingLoopback
    ? 'the offline answers, served over HTTP on 127.0.0.1 and judged through the AI SDK (@judgetree/ai-sdk).'
    : usingRealJudge
      ? `judging with ${process.env.JUDGETREE_MODEL ?? 'gpt-6-luna'} via ${process.env.OPENAI_BASE_URL ?? 'the OpenAI API'}` +
        `${usingAiSdk ? ' through the AI SDK (@judgetree/ai-sdk)' : ''}.`
      : 'no OPENAI_API_KEY (or OPENAI_BASE_URL) is set, so the judge is SCRIPTED: its answers are written in each\n' +
        'example file. Set OPENAI_API_KEY (or OPENAI_BASE_URL for a compatible server) to judge with a real model.'
  const failure =
    process.env.JUDGETREE_SHOW_FAILURE === '1'
      ? 'JUDGETREE_SHOW_FAILURE=1: tests/show-failure.test.ts fails on purpose, to show a failure report.'
      : 'To see a failure report with its trace tree: JUDGETREE_SHOW_FAILURE=1 pnpm run examples'
  console.info(`\njudgetree examples: ${judge}\n${failure}\n`)
}
