// @judgetree/test-support: helpers the packages' tests share, used from source (never built or published).

export {
  type DecisionAnswerScript,
  type DecisionBody,
  type DecisionQuestionBody,
  type DecisionReply,
  type DecisionResponder,
  decideEach,
  mostProbable,
  type RecordedDecisionRequest,
} from './decision-server.js'
export { withDirLock } from './dir-lock.js'
export { judgeProtocolSuite, type ProtocolJudgeFactory } from './judge-protocol-suite.js'
export { type MermaidChart, mermaidBlocks, readMermaid } from './mermaid-checks.js'
export {
  type ChatCompletionBody,
  jsonReply,
  lastUserMessage,
  type ModelList,
  type OpenAIServer,
  type OpenAIServerOptions,
  type ReasoningModelMode,
  type RecordedRequest,
  type RefusedParameter,
  type Responder,
  type ScriptedReply,
  startOpenAIServer,
} from './openai-server.js'
export { ciLogProblems, HOSTILE_TEXT, xmlProblems } from './output-checks.js'
export {
  bearerKey,
  concurrencyProbe,
  decisionReply,
  ln,
  logprobsIfAsked,
  schemaOf,
  scoreReply,
  scoreSevenWithRawLogprobs,
  unicodeEscaped,
} from './replies.js'
export { useOpenAIServer } from './use-openai-server.js'
