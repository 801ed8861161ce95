import { usingRealJudge } from './judge.js'

/** Vitest global setup: says once per run which judge the examples use and how to switch. */
export default function banner(): void {
  console.info(
    usingRealJudge
      ? `\njudgetree examples: judging with ${process.env.JUDGETREE_MODEL ?? 'gpt-4.1'} via ${process.env.OPENAI_BASE_URL ?? 'the OpenAI API'}.\n`
      : '\njudgetree examples: no OPENAI_API_KEY (or OPENAI_BASE_URL) is set, so the judge is SCRIPTED: its answers are\n' +
          'written in each example file. Set OPENAI_API_KEY (or OPENAI_BASE_URL for a compatible server) to judge with a real model.\n',
  )
}
