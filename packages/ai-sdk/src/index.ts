// @judgetree/ai-sdk: any Vercel AI SDK language model as a judgetree judge. Everything exported is listed by name.

export {
  type AiSdkDecisionJudgeOptions,
  aiSdkDecisionJudge,
  type DecisionModelObject,
} from './ai-sdk-decision-judge.js'
export { AiSdkJudge, type AiSdkJudgeOptions, aiSdkJudge } from './ai-sdk-judge.js'
