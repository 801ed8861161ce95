import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { judgeJsonSchema } from './json-schema.js'
import { strictSchemaViolations } from './strict-schema.js'

describe('judgeJsonSchema', () => {
  it('leaves out the checks strict servers refuse, at any depth, and keeps the rest', () => {
    const schema = z.object({
      steps: z.array(z.string().min(1).max(200)).min(1).max(8).describe('The steps.'),
      nested: z.object({ share: z.number().positive(), minLength: z.int().min(0).max(3) }),
    })
    const sent = judgeJsonSchema(schema, 'test_schema')

    expect(sent).toEqual({
      type: 'object',
      properties: {
        steps: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 8, description: 'The steps.' },
        nested: {
          type: 'object',
          properties: { share: { type: 'number' }, minLength: { type: 'integer', minimum: 0, maximum: 3 } },
          required: ['share', 'minLength'],
          additionalProperties: false,
        },
      },
      required: ['steps', 'nested'],
      additionalProperties: false,
    })
    expect(strictSchemaViolations(sent)).toEqual([])
    // The local validation still makes every check.
    expect(schema.safeParse({ steps: [''], nested: { share: 0, minLength: 1 } }).success).toBe(false)
  })

  it('is computed once per schema object', () => {
    const schema = z.object({ reason: z.string() })
    expect(judgeJsonSchema(schema, 'a')).toBe(judgeJsonSchema(schema, 'a'))
  })
})
