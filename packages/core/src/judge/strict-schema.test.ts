import { describe, expect, it } from 'vitest'
import { strictSchemaViolations } from './strict-schema.js'

describe('strictSchemaViolations', () => {
  it('accepts a schema inside the strict subset', () => {
    const schema = {
      type: 'object',
      properties: {
        verdict: { type: 'string', enum: ['yes', 'no'], description: 'The verdict.' },
        score: { type: 'integer', minimum: 1, maximum: 5 },
        steps: { type: 'array', items: { type: 'string', pattern: '^\\S' }, minItems: 1, maxItems: 8 },
        note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        next: { $ref: '#/$defs/step' },
      },
      required: ['verdict', 'score', 'steps', 'note', 'next'],
      additionalProperties: false,
      $defs: { step: { type: 'object', properties: {}, required: [], additionalProperties: false } },
    }
    expect(strictSchemaViolations(schema)).toEqual([])
  })

  it('lists every violation with its path', () => {
    const schema = {
      type: 'object',
      properties: {
        steps: { type: 'array', items: { type: 'string', minLength: 1, default: 'x' } },
        kind: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
        extra: { type: 'object', properties: { a: { type: 'string' } }, required: [] },
        optional: { type: 'boolean' },
      },
      required: ['steps', 'kind', 'extra'],
      additionalProperties: false,
    }
    expect(strictSchemaViolations(schema).map(({ path, message }) => `${path}: ${message}`)).toEqual([
      '#: property "optional" must be required (make it nullable instead of optional)',
      '#/properties/steps/items: keyword "minLength" is not in the strict subset',
      '#/properties/steps/items: keyword "default" is not in the strict subset',
      '#/properties/kind: keyword "oneOf" is not in the strict subset',
      '#/properties/kind: a schema needs a type, anyOf or $ref',
      '#/properties/extra: an object schema must set additionalProperties: false',
      '#/properties/extra: property "a" must be required (make it nullable instead of optional)',
    ])
  })

  it('needs an object at the root', () => {
    expect(strictSchemaViolations({ type: 'array', items: { type: 'string' } })).toEqual([
      { path: '#', message: 'the root must be an object schema (type "object")' },
    ])
  })
})
