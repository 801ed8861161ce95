// The reference walkthroughs with OpenAIDecisionJudge as the decision judge, through the real OpenAI SDK, against
// the local server's chat completions (the tasks) and /v1/decisions (every judgement).
import { type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll } from 'vitest'
import { OpenAIDecisionJudge, OpenAIJudge } from '../src/index.js'
import { describeDecisionWalkthroughs } from './support/decision-walkthrough-suite.js'

let server: OpenAIServer
let chat: OpenAIJudge
let decider: OpenAIDecisionJudge

beforeAll(async () => {
  server = await startOpenAIServer()
  const connection = { baseURL: server.baseURL, apiKey: 'sk-test-decision-walkthrough', maxRetries: 0 }
  chat = new OpenAIJudge({ model: 'gpt-4.1', ...connection })
  decider = new OpenAIDecisionJudge(connection)
})
afterAll(() => server.close())

describeDecisionWalkthroughs('OpenAIDecisionJudge', { server: () => server, chat: () => chat, decider: () => decider })
