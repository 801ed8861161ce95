// Jest global setup: says once per run which judge the example uses, how to switch, and how to see a failure. Jest
// loads this file without its moduleNameMapper, so it imports nothing from the project.
export default function banner(): void {
  const real = Boolean(process.env.OPENAI_API_KEY || process.env.OPENAI_BASE_URL)
  const judge = real
    ? `judging with ${process.env.JUDGETREE_MODEL ?? 'gpt-6-luna'} via ${process.env.OPENAI_BASE_URL ?? 'the OpenAI API'}.`
    : 'no OPENAI_API_KEY (or OPENAI_BASE_URL) is set, so the judge is SCRIPTED: its answers are written in the\n' +
      'example file. Set OPENAI_API_KEY (or OPENAI_BASE_URL for a compatible server) to judge with a real model.'
  const failure =
    process.env.JUDGETREE_SHOW_FAILURE === '1'
      ? 'JUDGETREE_SHOW_FAILURE=1: tests/show-failure.test.ts fails on purpose, to show a failure report.'
      : 'To see a failure report with its trace tree: JUDGETREE_SHOW_FAILURE=1 pnpm run eval'
  console.info(`\njudgetree Jest example: ${judge}\n${failure}\n`)
}
