// What the stable-report tests share: the judge that records the suite, and the parts of a run's output that
// must be the same, byte for byte, on every replay of it.
import { readFileSync } from 'node:fs'
import { jsonReply, lastUserMessage, type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'

/** Answers the judge calls of test/fixtures/shared/stable.ts, with token counts so the report has a cost. */
export function startStableJudge(): Promise<OpenAIServer> {
  const usage = { usage: { promptTokens: 300, completionTokens: 40 } }
  return startOpenAIServer((request) => {
    const prompt = lastUserMessage(request)
    if (prompt.includes("Describe the assistant's tone")) {
      const output = prompt.includes('haha') ? 'The assistant jokes while answering.' : 'The assistant answers flatly.'
      return jsonReply({ output }, usage)
    }
    if (prompt.includes('Is the assistant playful')) {
      return prompt.includes('jokes')
        ? jsonReply({ reason: 'The assistant makes a joke about the weather.', verdict: true }, usage)
        : jsonReply({ reason: 'The assistant states a number and nothing else.', verdict: false }, usage)
    }
    return prompt.includes('Paris')
      ? jsonReply({ reason: 'Paris is the capital of France.', verdict: true }, usage)
      : jsonReply({ reason: 'The capital of France is Paris, not Lyon.', verdict: false }, usage)
  })
}

/**
 * A JSON report with its durations masked: the only fields that may differ between two runs of one suite.
 * Masks by key on the text itself, so everything else is still compared byte for byte.
 */
export function maskedReport(file: string): string {
  return readFileSync(file, 'utf8').replace(/"(durationMs|latencyMs)": \d+(\.\d+)?/g, '"$1": 0')
}

/**
 * What the judgetree reporter printed at the end of a run: failed evaluations' trees and the closing line, less
 * the line naming the JSON report's path, which each run of a test chooses.
 */
export function closingOutput(output: string): string {
  const lines = output.split('\n')
  const start = lines.findIndex((line) => /^judgetree: \d+ failed evaluations?$/.test(line))
  const end = lines.findLastIndex((line) => /^judgetree: \d+ evaluations?, /.test(line))
  if (start === -1 || end === -1) throw new Error(`No judgetree closing output in:\n${output}`)
  return lines
    .slice(start, end + 1)
    .filter((line) => !line.startsWith('judgetree: JSON report in '))
    .join('\n')
}
