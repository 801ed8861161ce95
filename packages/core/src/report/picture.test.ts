import { HOSTILE_TEXT, xmlProblems } from '@judgetree/test-support'
import { describe, expect, test } from 'vitest'
import { composePicture } from './picture.js'

describe('composePicture', () => {
  test('any text makes well-formed XML: controls drawn as their pictures, what XML forbids as U+FFFD', () => {
    const text = `FAIL Tone & <b>\n${HOSTILE_TEXT}\nlone \ud800 surrogate \udfff, \ufffe\uffff, "quoted"`
    const svg = composePicture(undefined, text)
    expect(xmlProblems(svg)).toEqual([])
    expect(svg).toContain('␛]52;c;Zm9yZ2Vk␇')
    expect(svg).toContain('lone\u00a0\ufffd\u00a0surrogate')
    expect(svg).toContain('FAIL\u00a0Tone\u00a0&amp;\u00a0&lt;b&gt;')
  })
})
