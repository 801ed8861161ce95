// The files `judgetree init` writes: the same as docs/quickstart.md's sections, so a project started either way looks
// the same (the quickstart check runs `init`'s output as it runs the docs' blocks).
import type { InitProject } from './init.js'

export function vitestConfig(): string {
  return `import { judgetree } from '@judgetree/matchers/vitest'
import { defineConfig } from 'vitest/config'

export default defineConfig({ plugins: [judgetree()] })
`
}

export function jestConfig(esm: boolean): string {
  const options = esm ? "{ transform: { '^.+\\\\.ts$': '@swc/jest' } }" : '{}'
  return `const { withJudgetree } = require('@judgetree/matchers/jest')

module.exports = withJudgetree(${options})
`
}

/** The matcher's types for the editor and tsc; Vitest 5 has its own entry. */
export function typesFile({ runner, major }: InitProject): string {
  const entry =
    runner === 'jest' ? 'jest/types' : major !== undefined && major >= 5 ? 'vitest/types-v5' : 'vitest/types'
  return `// The types of toPassMetric for your editor and tsc.
import type {} from '@judgetree/matchers/${entry}'
`
}

const DAG = `const answered = new ConversationalBinaryJudgementNode({
  criteria: "Do the assistant's replies answer the user's questions?",
  children: [
    new ConversationalVerdictNode({ verdict: false, score: 0 }),
    new ConversationalVerdictNode({ verdict: true, score: 10 }),
  ],
})
const summary = new ConversationalTaskNode({
  instructions: 'Summarize the conversation.',
  outputLabel: 'Summary',
  evaluationParams: [TurnParams.ROLE, TurnParams.CONTENT],
  children: [answered],
})
const helpful = new ConversationalDAGMetric({
  name: 'Helpful',
  dag: new DeepAcyclicGraph({ rootNodes: [summary] }),
})

test('the weather bot answers the question', async () => {
  await expect({
    turns: [
      { role: 'user', content: 'What is the weather in Paris?' },
      { role: 'assistant', content: 'Sunny and 24°C, no umbrella needed.' },
    ],
  }).toPassMetric(helpful, { threshold: 0.5 })
})
`

const NAMES = `  ConversationalBinaryJudgementNode, ConversationalDAGMetric, ConversationalTaskNode,
  ConversationalVerdictNode, DeepAcyclicGraph, TurnParams,`

/** A first test: one conversational DAG, two judge calls. */
export function firstTest({ runner, esm }: InitProject): string {
  const intro =
    '// Your first evaluation: replace the conversation with one from your chatbot, and the criteria with yours.\n'
  if (runner === 'vitest') {
    return `${intro}import {\n${NAMES}\n} from '@judgetree/core'\nimport { expect, test } from 'vitest'\n\n${DAG}`
  }
  if (esm) {
    return `${intro}import { expect, test } from '@jest/globals'\nimport {\n${NAMES}\n} from '@judgetree/core'\n\n${DAG}`
  }
  return `${intro}const {\n${NAMES}\n} = require('@judgetree/core')\n\n${DAG}`
}
