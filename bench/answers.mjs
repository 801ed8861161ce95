import { createHash } from 'node:crypto'

// A valid answer for any judgetree judge request, made from the request's JSON schema: the bench server and the
// in-process bench judge both answer with it, so every metric walks a full path without a model.

const TEXT = 'The assistant answered every question in a friendly, playful tone.'

/**
 * The answer to a JSON schema: `text` for strings, the last enum option (e.g. "Playful"), true for booleans, the
 * maximum of an integer range (the n-th item of an array counts up from the minimum, so chunk numbers are 1, 2, 3…).
 */
export function answerFor(schema, text = TEXT, index = undefined) {
  if (schema === undefined || schema === null) return null
  if (schema.const !== undefined) return schema.const
  if (Array.isArray(schema.enum)) return schema.enum[schema.enum.length - 1]
  if (Array.isArray(schema.anyOf)) return answerFor(schema.anyOf[0], text, index)
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  switch (type) {
    case 'object': {
      const value = {}
      for (const [key, property] of Object.entries(schema.properties ?? {}))
        value[key] = answerFor(property, text, index)
      return value
    }
    case 'array': {
      const length = Math.max(schema.minItems ?? 1, 1)
      return Array.from({ length }, (_, at) => answerFor(schema.items, text, at))
    }
    case 'boolean':
      return true
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? 0
      const max = schema.maximum ?? 10
      return index === undefined ? max : Math.min(min + index, max)
    }
    case 'string':
      return text
    default:
      return null
  }
}

/** Text that differs per prompt, so that later prompts (which quote earlier answers) differ per test case too. */
export function textFor(prompt) {
  return `${TEXT} (${createHash('sha1').update(prompt).digest('hex').slice(0, 12)})`
}
