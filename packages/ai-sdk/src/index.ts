// @judgetree/ai-sdk: any Vercel AI SDK language model as a judgetree judge. Everything exported is listed by name.

export { AiSdkJudge, type AiSdkJudgeOptions, aiSdkJudge } from './ai-sdk-judge.js'
