/**
 * JUDGETREE_JUDGE=ai-sdk-loopback (judgetree's own CI): each example's offline answers are served over HTTP by a
 * local OpenAI-compatible server started in the test worker, and judged through @judgetree/ai-sdk and the AI SDK's
 * OpenAI provider, so the whole suite runs through a real HTTP provider without any model or key.
 */
export const usingLoopback = process.env.JUDGETREE_JUDGE === 'ai-sdk-loopback'

/** True when a real (or OpenAI-compatible) judge is configured in the environment. */
export const usingRealJudge = !usingLoopback && Boolean(process.env.OPENAI_API_KEY || process.env.OPENAI_BASE_URL)

/** JUDGETREE_JUDGE=ai-sdk: the real judge goes through @judgetree/ai-sdk and the AI SDK's OpenAI provider instead. */
export const usingAiSdk = usingLoopback || (usingRealJudge && process.env.JUDGETREE_JUDGE === 'ai-sdk')
