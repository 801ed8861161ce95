import type { JudgeModel, JudgeRequest } from '@judgetree/core'
import { requestData, scriptedJudge } from '@judgetree/core/testing'

/** True when a real (or OpenAI-compatible) judge is configured in the environment. */
export const usingRealJudge = Boolean(process.env.OPENAI_API_KEY || process.env.OPENAI_BASE_URL)

// Offline, a word list stands in for the model: courteous phrases raise the score, dismissive ones lower it. It is
// a deliberately naive judge, so the calibration has something to find: it is fooled by sarcasm that says "thanks"
// and by an apology followed by blame, and it underrates replies that are polite without any courtesy phrase.
const COURTEOUS = ['sorry', 'apolog', 'thank', 'please', 'of course', "i'll", 'hi!']
const DISMISSIVE = [
  'obviously',
  'calm down',
  'rtfm',
  'rules are rules',
  'not ours',
  'should have',
  'as i already said',
  'per my last',
  'whatever',
  'like everyone else',
  'your phone',
  "don't talk",
]

/** The word-list score of a reply on G-Eval's 0–10 scale, with the words that decided it as the reason. */
export function wordListScore(reply: string): { score: number; reason: string } {
  const text = reply.toLowerCase()
  const courteous = COURTEOUS.filter((word) => text.includes(word))
  const dismissive = DISMISSIVE.filter((word) => text.includes(word))
  const score = Math.max(0, Math.min(10, 4 + 2 * courteous.length - 4 * dismissive.length))
  const found = [...courteous.map((word) => `"${word}"`), ...dismissive.map((word) => `"${word}" (dismissive)`)]
  return { score, reason: found.length === 0 ? 'No courtesy phrases found.' : `Found ${found.join(', ')}.` }
}

/**
 * The judge for this example: the real OpenAI judge when a key or base URL is set (undefined lets the metric use
 * it), otherwise the word-list judge above, scripted to answer G-Eval's two requests.
 */
export function politenessJudge(): JudgeModel | undefined {
  if (usingRealJudge) return undefined
  return scriptedJudge({
    name: 'word list (offline)',
    rules: [
      {
        match: 'Write the evaluation steps',
        answer: {
          steps: [
            'Read the customer message to see what the customer needs and how they feel.',
            'Read the reply for courtesy: greeting, apology where due, thanks, offers of help.',
            'Look for dismissive, blaming, sarcastic or mocking phrasing.',
            'Score high for a courteous reply, low for one a customer would find rude.',
          ],
        },
      },
      {
        match: 'Evaluate it by following these steps',
        answer: (request: JudgeRequest<unknown>) =>
          wordListScore(requestData<{ 'Actual Output': string }>(request)['Actual Output']),
      },
    ],
  })
}
