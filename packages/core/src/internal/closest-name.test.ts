import { describe, expect, test } from 'vitest'
import { closestName, editDistance } from './closest-name.js'

const MATCHER_OPTIONS = ['threshold', 'signal']
const METRIC_OPTIONS = ['name', 'threshold', 'includeReason', 'strictMode', 'asyncMode', 'verboseMode', 'windowSize']

describe('closestName', () => {
  test('typos within two edits find the name: missing, extra, replaced and swapped letters', () => {
    expect(closestName('treshold', MATCHER_OPTIONS)).toBe('threshold')
    expect(closestName('threshhold', MATCHER_OPTIONS)).toBe('threshold')
    expect(closestName('thershold', MATCHER_OPTIONS)).toBe('threshold')
    expect(closestName('treshhold', MATCHER_OPTIONS)).toBe('threshold')
    expect(closestName('singal', MATCHER_OPTIONS)).toBe('signal')
    expect(closestName('includeReasons', METRIC_OPTIONS)).toBe('includeReason')
    expect(closestName('strictmod', METRIC_OPTIONS)).toBe('strictMode')
  })

  test('case and separators do not count: snake_case, kebab-case and lower case find the camelCase name', () => {
    expect(closestName('windowsize', METRIC_OPTIONS)).toBe('windowSize')
    expect(closestName('window_size', METRIC_OPTIONS)).toBe('windowSize')
    expect(closestName('INCLUDE-REASON', METRIC_OPTIONS)).toBe('includeReason')
  })

  test('nothing close, a short name, or two equally close names: no suggestion', () => {
    expect(closestName('timeout', MATCHER_OPTIONS)).toBeUndefined()
    expect(closestName('tresh', MATCHER_OPTIONS)).toBeUndefined()
    expect(closestName('nam', METRIC_OPTIONS)).toBeUndefined()
    expect(closestName('asyncMode2', ['asyncMode1', 'asyncMode3'])).toBeUndefined()
  })
})

test('editDistance counts a swap of neighbours as one edit', () => {
  expect(editDistance('ab', 'ba')).toBe(1)
  expect(editDistance('kitten', 'sitting')).toBe(3)
  expect(editDistance('', 'abc')).toBe(3)
  expect(editDistance('same', 'same')).toBe(0)
})
