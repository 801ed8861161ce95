// Jest global setup: says once per run which judge the example uses and how to switch. Jest loads this file
// without its moduleNameMapper, so it imports nothing from the project.
export default function banner(): void {
  const real = Boolean(process.env.OPENAI_API_KEY || process.env.OPENAI_BASE_URL)
  const judge = real
    ? `judging with ${process.env.JUDGETREE_MODEL ?? 'gpt-6-luna'} via ${process.env.OPENAI_BASE_URL ?? 'the OpenAI API'}.`
    : 'no OPENAI_API_KEY (or OPENAI_BASE_URL) is set, so the judge is SCRIPTED: its answers are written in the\n' +
      'example file. Set OPENAI_API_KEY (or OPENAI_BASE_URL for a compatible server) to judge with a real model.'
  console.info(`\njudgetree Jest example: ${judge}\n`)
}
