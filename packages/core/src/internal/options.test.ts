import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ConfigurationError } from '../errors.js'
import { checkOptions, expecting, parseOptions } from './options.js'

const size = expecting(z.number().int().min(1).max(10), (given) =>
  typeof given === 'number' && given > 10 ? 'at most 10' : 'a whole number from 1 to 10',
)
const schema = z.strictObject({
  size: size.optional(),
  label: expecting(z.string(), 'a label shown in reports').optional(),
  limit: expecting(z.strictObject({ tolerance: z.number().min(0).max(1) }), '{ tolerance } from 0 to 1').optional(),
  raw: z.number().optional(),
})

describe('parseOptions', () => {
  it('returns the parsed options when every option is right', () => {
    expect(parseOptions(schema, { size: 3, label: 'x' }, 'thing()')).toEqual({ size: 3, label: 'x' })
  })

  it('lists every problem at once, in the p-queue style, under where they were given', () => {
    expect(() => parseOptions(schema, { size: 0, label: 5 }, 'thing()')).toThrow(
      new ConfigurationError(
        [
          'Invalid options for thing():',
          '  - Expected `size` to be a whole number from 1 to 10, got `0` (number).',
          '  - Expected `label` to be a label shown in reports, got `5` (number).',
        ].join('\n'),
      ),
    )
  })

  it('words a problem by the value given when the expectation is a function', () => {
    const checked = checkOptions(schema, { size: 11 })
    expect(checked).toEqual({
      ok: false,
      problems: [{ option: 'size', message: 'Expected `size` to be at most 10, got `11` (number).' }],
    })
  })

  it('suggests the option a mistyped key meant, and lists the options when nothing is close', () => {
    const checked = checkOptions(schema, { szie: 2, colour: 'red' })
    expect(checked.ok ? [] : checked.problems.map((problem) => problem.message)).toEqual([
      'unknown option `szie`; did you mean `size`?',
      'unknown option `colour`; the options are `size`, `label`, `limit`, `raw`.',
    ])
  })

  it('reports a nested problem as the worded option that holds it, with the value given there', () => {
    const checked = checkOptions(schema, { limit: { tolerance: 2 } })
    expect(checked.ok ? [] : checked.problems.map((problem) => problem.message)).toEqual([
      'Expected `limit` to be { tolerance } from 0 to 1, got `{ tolerance: 2 }` (object).',
    ])
  })

  it("falls back on zod's words for an option nobody worded, and says what a bag that is not an object was", () => {
    const wrongRaw = checkOptions(schema, { raw: 'x' })
    expect(wrongRaw.ok ? [] : wrongRaw.problems.map((problem) => problem.message)).toEqual([
      "Expected `raw` to be a number, got 'x' (string).",
    ])
    const notAnObject = checkOptions(schema, null)
    expect(notAnObject.ok ? [] : notAnObject.problems.map((problem) => problem.message)).toEqual([
      'Expected `options` to be an object, got `null` (null).',
    ])
  })

  it('shows control characters in a given text as escapes, so they cannot rewrite the message', () => {
    const checked = checkOptions(schema, { size: '\u001b[2Kx\n' })
    expect(checked.ok ? [] : checked.problems.map((problem) => problem.message)).toEqual([
      "Expected `size` to be a whole number from 1 to 10, got '\\u001b[2Kx\\u000a' (string).",
    ])
  })
})
