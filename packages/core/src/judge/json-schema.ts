import { z } from 'zod'
import { ConfigurationError } from '../errors.js'

/**
 * Checks zod makes that OpenAI's strict structured outputs refuse (a 400 for the whole request). They are left out
 * of what is sent and stay in the zod validation of the reply, whose failure triggers the one re-ask.
 */
const LOCAL_ONLY_KEYWORDS = new Set([
  'minLength',
  'maxLength',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minProperties',
  'maxProperties',
  'uniqueItems',
])
/** Keywords whose value is one schema, a list of schemas, or a map of names to schemas. */
const ONE_SCHEMA = ['items', 'additionalProperties', 'not']
const SCHEMA_LISTS = ['anyOf', 'allOf', 'oneOf', 'prefixItems']
const SCHEMA_MAPS = ['properties', '$defs']

const converted = new WeakMap<object, Record<string, unknown>>()

/**
 * The JSON schema a judge is sent for a zod schema: zod's own conversion without `$schema` and without the checks
 * only the local validation makes. Computed once per schema object.
 */
export function judgeJsonSchema(schema: z.ZodType, schemaName: string): Record<string, unknown> {
  const cached = converted.get(schema)
  if (cached !== undefined) return cached
  let json: Record<string, unknown>
  try {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>
    json = withoutLocalChecks(rest)
  } catch (error) {
    throw new ConfigurationError(
      `The "${schemaName}" schema cannot be sent to a judge as JSON schema: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
  converted.set(schema, json)
  return json
}

function withoutLocalChecks(schema: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {}
  for (const [keyword, value] of Object.entries(schema)) {
    if (LOCAL_ONLY_KEYWORDS.has(keyword)) continue
    if (ONE_SCHEMA.includes(keyword) && isRecord(value)) result[keyword] = withoutLocalChecks(value)
    else if (SCHEMA_LISTS.includes(keyword) && Array.isArray(value)) {
      result[keyword] = value.map((item) => (isRecord(item) ? withoutLocalChecks(item) : item))
    } else if (SCHEMA_MAPS.includes(keyword) && isRecord(value)) {
      // The keys here are property or definition names, not keywords: a property may well be called "minLength".
      result[keyword] = Object.fromEntries(
        Object.entries(value).map(([name, item]) => [name, isRecord(item) ? withoutLocalChecks(item) : item]),
      )
    } else result[keyword] = value
  }
  return result
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
