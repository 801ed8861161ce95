// Shared pieces of the benchmark scenarios: the built core, the playful-chatbot DAG, test data, a judge that answers
// instantly, and small helpers for timing and talking to the bench server.
import { existsSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { z } from 'zod'
import { answerFor, textFor } from './answers.mjs'

// run.mjs passes a snapshot of the build, so a rebuild during a long run cannot change or remove it mid-way.
const dist =
  process.env.JUDGETREE_BENCH_CORE ?? fileURLToPath(new URL('../packages/core/dist/index.js', import.meta.url))
if (!existsSync(dist)) {
  console.error('bench: packages/core is not built; run `pnpm --filter @judgetree/core build` first.')
  process.exit(1)
}
/** The root entry and the ./runtime entry (createJudgeRuntime) in one namespace, as the scenarios use both. */
export const core = { ...(await import(dist)), ...(await import(new URL('runtime.js', pathToFileURL(dist)).href)) }

/** The reference's playful-chatbot DAG as printed: summary task → satisfied? → behaviour (3 judge calls on the full path). */
export function playfulChatbotDag() {
  const { ConversationalTaskNode, ConversationalBinaryJudgementNode, ConversationalNonBinaryJudgementNode } = core
  const { ConversationalVerdictNode: Verdict, DeepAcyclicGraph, TurnParams } = core
  const behaviour = new ConversationalNonBinaryJudgementNode({
    criteria: "How was the assistant's behaviour towards user?",
    children: [
      new Verdict({ verdict: 'Rude', score: 0 }),
      new Verdict({ verdict: 'Neutral', score: 5 }),
      new Verdict({ verdict: 'Playful', score: 10 }),
    ],
  })
  const satisfied = new ConversationalBinaryJudgementNode({
    criteria: "Do the assistant's replies satisfy user's questions?",
    children: [new Verdict({ verdict: false, score: 0 }), new Verdict({ verdict: true, child: behaviour })],
  })
  const summary = new ConversationalTaskNode({
    instructions: "Summarize the conversation and explain assistant's behaviour overall.",
    outputLabel: 'Summary',
    evaluationParams: [TurnParams.ROLE, TurnParams.CONTENT],
    children: [satisfied],
  })
  return new DeepAcyclicGraph({ rootNodes: [summary] })
}

/** `count` different conversations shaped like the reference's playful-chatbot one (3 assistant replies each). */
export function conversations(count, { context = false } = {}) {
  const chunk = (text) => (context ? { retrievalContext: [text] } : {})
  return Array.from({ length: count }, (_, i) => ({
    turns: [
      { role: 'user', content: `what's the weather like today? (conversation ${i})` },
      { role: 'assistant', content: 'Where do you live bro? T~T', ...chunk('Users are asked for their city.') },
      { role: 'user', content: 'Just tell me the weather in Paris' },
      { role: 'assistant', content: 'The weather in Paris today is sunny and 24°C.', ...chunk('Paris: sunny, 24°C.') },
      { role: 'user', content: 'Should I take an umbrella?' },
      { role: 'assistant', content: "You trying to be stylish? I don't recommend it.", ...chunk('No rain expected.') },
    ],
  }))
}

/**
 * A judge in this process that answers every request at once with a valid answer, counting the requests.
 * `verdict` is the answer to every yes/no question (true walks the playful-chatbot DAG's longest path). With
 * `distinct`, text answers quote a hash of the prompt, so no two test cases share a prompt (as with a real model).
 */
export function instantJudge({ verdict = true, distinct = false } = {}) {
  const answers = new WeakMap()
  const judge = {
    name: 'instant',
    calls: 0,
    async generate(request) {
      judge.calls += 1
      if (distinct) {
        const answer = answerFor(z.toJSONSchema(request.schema), textFor(request.messages.at(-1)?.content ?? ''))
        if (request.schemaName === 'binary_verdict') answer.verdict = verdict
        return {
          value: request.schema.parse(answer),
          usage: { promptTokens: 0, completionTokens: 0, costUsd: 0 },
          cached: false,
        }
      }
      let answer = answers.get(request.schema)
      if (answer === undefined) {
        answer = answerFor(z.toJSONSchema(request.schema))
        if (request.schemaName === 'binary_verdict') answer.verdict = verdict
        answers.set(request.schema, answer)
      }
      return {
        value: request.schema.parse(answer),
        usage: { promptTokens: 0, completionTokens: 0, costUsd: 0 },
        cached: false,
      }
    },
  }
  return judge
}

/**
 * A decision judge in this process: it answers every decision at once, as the bench server's chat answers would
 * (yes to a predicate, the last option of a choice, the top level of a score) with probability 0.9, and counts its
 * requests (`calls`: one per batch) and the decisions they held.
 */
export function instantDecisionJudge() {
  const answer = (request, first) => {
    const { question } = request
    const [chosen, others] =
      question.kind === 'predicate'
        ? [true, [false]]
        : question.kind === 'choice'
          ? [question.options.at(-1), question.options.slice(0, -1)]
          : [question.levels.at(-1), question.levels.slice(0, -1)]
    const distribution = { [String(chosen)]: 0.9 }
    for (const other of others) distribution[String(other)] = 0.1 / others.length
    return {
      value: { [question.field]: chosen },
      distribution,
      usage: { promptTokens: 0, completionTokens: 0, costUsd: 0 },
      cached: false,
      ...(first ? {} : { extraSample: true }),
    }
  }
  const judge = {
    name: 'instant-decisions',
    decides: true,
    calls: 0,
    decisions: 0,
    async generate(request) {
      judge.calls += 1
      judge.decisions += 1
      return answer(request, true)
    },
    async generateMany(requests) {
      judge.calls += 1
      judge.decisions += requests.length
      return requests.map((request, index) => answer(request, index === 0))
    },
  }
  return judge
}

/** Measures every test case with `concurrency` measurements in flight; returns how many measurements failed. */
export async function measureAll(metric, testCases, concurrency) {
  let next = 0
  let errors = 0
  const worker = async () => {
    while (next < testCases.length) {
      const result = await metric.measure(testCases[next++])
      if (result.error) errors += 1
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return errors
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/** Prints a scenario's result for bench/run.mjs to read. */
export function report(result) {
  process.stdout.write(`${JSON.stringify(result)}\n`)
}

export async function serverStats(url) {
  return (await fetch(`${url}/stats`)).json()
}

export async function configureServer(url, latencyMs) {
  await fetch(`${url}/config`, { method: 'POST', body: JSON.stringify({ latencyMs }) })
}
