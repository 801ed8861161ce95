/**
 * The subset of JSON Schema that OpenAI's strict structured outputs accept (DESIGN.md §5). The real API answers 400
 * to a schema outside it, while local servers accept anything, so tests check every schema the package sends
 * against it. Not used at run time: the test is the guard.
 */

/** One place where a schema leaves the strict subset. */
export interface StrictSchemaViolation {
  /** JSON pointer to the offending schema, e.g. `#/properties/steps/items`. */
  readonly path: string
  readonly message: string
}

const ALLOWED_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'description',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
])
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])

/** Every place the schema leaves the strict subset, in document order; empty when a strict server accepts it. */
export function strictSchemaViolations(schema: unknown): StrictSchemaViolation[] {
  const violations: StrictSchemaViolation[] = []
  if (!isRecord(schema) || schema.type !== 'object') {
    violations.push({ path: '#', message: 'the root must be an object schema (type "object")' })
  }
  walk(schema, '#', violations)
  return violations
}

function walk(schema: unknown, path: string, violations: StrictSchemaViolation[]): void {
  const report = (message: string, at = path) => violations.push({ path: at, message })
  if (!isRecord(schema)) {
    report(`a schema must be an object; got ${JSON.stringify(schema)}`)
    return
  }
  for (const keyword of Object.keys(schema)) {
    if (!ALLOWED_KEYWORDS.has(keyword)) report(`keyword "${keyword}" is not in the strict subset`)
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type]
  for (const type of types) {
    if (typeof type !== 'string' || !TYPES.has(type)) report(`type ${JSON.stringify(type)} is not a JSON type`)
  }
  if (schema.type === undefined && schema.anyOf === undefined && schema.$ref === undefined) {
    if (schema.enum === undefined && schema.const === undefined) report('a schema needs a type, anyOf or $ref')
  }
  if (types.includes('object')) checkObject(schema, path, violations)
  else if (schema.additionalProperties !== undefined) report('additionalProperties belongs on an object schema')
  if (schema.items !== undefined) walk(schema.items, `${path}/items`, violations)
  if (schema.anyOf !== undefined) {
    if (!Array.isArray(schema.anyOf)) report('anyOf must be an array of schemas')
    else for (const [index, option] of schema.anyOf.entries()) walk(option, `${path}/anyOf/${index}`, violations)
  }
  if (schema.$defs !== undefined) {
    if (!isRecord(schema.$defs)) report('$defs must map names to schemas')
    else
      for (const [name, definition] of Object.entries(schema.$defs))
        walk(definition, `${path}/$defs/${name}`, violations)
  }
  if (schema.$ref !== undefined && !(typeof schema.$ref === 'string' && schema.$ref.startsWith('#'))) {
    report(`$ref must point inside the schema (start with "#"); got ${JSON.stringify(schema.$ref)}`)
  }
}

function checkObject(schema: Record<string, unknown>, path: string, violations: StrictSchemaViolation[]): void {
  const report = (message: string) => violations.push({ path, message })
  if (schema.additionalProperties !== false) report('an object schema must set additionalProperties: false')
  if (!isRecord(schema.properties)) {
    report('an object schema must list its properties')
    return
  }
  const required = Array.isArray(schema.required) ? schema.required : []
  for (const name of Object.keys(schema.properties)) {
    if (!required.includes(name)) report(`property "${name}" must be required (make it nullable instead of optional)`)
  }
  for (const [name, property] of Object.entries(schema.properties)) {
    walk(property, `${path}/properties/${name}`, violations)
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
