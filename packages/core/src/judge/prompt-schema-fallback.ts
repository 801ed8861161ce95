// The words of a transport whose fallback, when a provider will not hold answers to the JSON schema, is the schema
// written into the prompt (as @judgetree/ai-sdk's): why results say so, the one warning, and the error instead when
// the user required structured outputs. A refusal the protocol can work around is told from the server's words here.
import { JudgeCallError } from '../errors.js'
import type { TransportFailure } from './failures.js'
import type { LatchWording, TransportCall } from './structured-judge.js'

/** Who the words are about and what they can advise. */
export interface PromptSchemaFallback {
  /** Names the judge, e.g. `The judge model "m" (AI SDK provider p)`. */
  readonly where: string
  /** The function the judge is built with, named in the advice, e.g. `aiSdkJudge`. */
  readonly factory: string
  /** Who said the provider takes no schema, e.g. `the AI SDK`. */
  readonly reporter: string
  readonly structuredOutputs: 'auto' | 'required' | undefined
  readonly schemaInPrompt: boolean | undefined
  /** How to get a provider setting that holds schemas, for the error when they are required. */
  readonly supportHint: string
}

/** The schema latches' wording for a prompt-schema fallback. */
export function promptSchemaWording(
  fallback: PromptSchemaFallback,
): Required<Pick<LatchWording, 'schemaRefused' | 'schemaIgnored'>> {
  const { where, factory, reporter } = fallback
  return {
    schemaRefused: (schemaName, words) => ({
      reason:
        `${where} refused the JSON schema "${schemaName}" (${words}), so it was asked for the answer as ` +
        'text with the schema in the prompt, and the answer was checked only against the local validation',
      warning:
        `judgetree: ${where} refused the JSON schema "${schemaName}": ${words}\nIts "${schemaName}" ` +
        'answers are asked for as text with the schema in the prompt from now on, and checked only against the ' +
        `local validation; every result made that way says so. Pass \`structuredOutputs: 'required'\` to ${factory} ` +
        'to make this an error instead.',
    }),
    schemaIgnored: (words) => {
      if (fallback.structuredOutputs === 'required') {
        throw new JudgeCallError(
          `${where} does not take a JSON schema for its answers (${reporter} says: ${words}), and ` +
            `\`structuredOutputs: 'required'\` was set. Use a provider setting that supports structured outputs ` +
            `${fallback.supportHint}, or leave \`structuredOutputs\` at 'auto'.`,
        )
      }
      return {
        reason:
          `${where} does not take a JSON schema (${reporter} says: ${words}), so the schema was written into ` +
          'the prompt and the answer was checked only against the local validation',
        // Said up front with schemaInPrompt: the results are still marked, but there is nothing new to warn about.
        warning: fallback.schemaInPrompt
          ? undefined
          : `judgetree: ${where} does not take a JSON schema for its answers (${reporter} says: ${words}).\n` +
            'The schema is written into the prompt from now on and answers are checked only against the local ' +
            `validation; every result made that way says so. Pass \`schemaInPrompt: true\` to ${factory} to say ` +
            "this up front, or `structuredOutputs: 'required'` to make it an error.",
      }
    },
  }
}

/** The refusal in an HTTP error the protocol can work around: the JSON schema (400, 422) or logprobs (400). */
export function refusalIn(
  status: number,
  words: string,
  call: Pick<TransportCall, 'jsonSchema' | 'topLogprobs'>,
): Extract<TransportFailure, { kind: 'http' }>['refuses'] {
  if (call.jsonSchema !== undefined && (status === 400 || status === 422)) {
    if (/response_format|json_schema|structured output/i.test(words)) return 'schema'
  }
  return call.topLogprobs !== undefined && status === 400 && /logprobs/i.test(words) ? 'logprobs' : undefined
}
