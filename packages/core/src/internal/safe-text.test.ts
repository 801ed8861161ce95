import { ciLogProblems, HOSTILE_TEXT, xmlProblems } from '@judgetree/test-support'
import { describe, expect, test } from 'vitest'
import { indentContinuation, oneLineSafe, terminalSafe, xmlSafe } from './safe-text.js'

/** The payload's words, still there once the invisible breaks are taken out. */
function readable(text: string): string {
  return text.replaceAll('\u200b', '')
}

describe('terminalSafe', () => {
  test('neutralises every workflow command form and escape, and keeps the words', () => {
    const safe = terminalSafe(HOSTILE_TEXT)
    expect(ciLogProblems(HOSTILE_TEXT).length).toBeGreaterThan(10)
    expect(ciLogProblems(safe)).toEqual([])
    expect(terminalSafe(safe)).toBe(safe)
    for (const words of [
      'FORGED ERROR',
      '::stop-commands::tok123',
      'mid ##[error]FORGED LEGACY',
      '✓ all evaluations',
    ]) {
      expect(readable(safe)).toContain(words)
    }
    // Escapes are shown, not sent: ␛ for ESC, ␍ for a bare CR, ␀ for NUL; CRLF is an ordinary line break.
    expect(safe).toContain('␛[2K␍␛[1A')
    expect(safe).toContain('␛]52;c;Zm9yZ2Vk␇')
    expect(safe).toContain('nul␀ end')
    expect(safe).toContain('carriage␍:')
    expect(safe).toContain('crlf\n:\u200b:error::FORGED AFTER CRLF')
    expect(safe).toContain('line separator\\u2028::error')
    expect(safe).toContain('next line\\u0085::error')
  })

  test('other CI systems: Azure Pipelines and TeamCity markers anywhere in a line', () => {
    expect(terminalSafe('a ##vso[task.setvariable variable=x]1 b ##teamcity[message]')).toBe(
      'a #\u200b#vso[task.setvariable variable=x]1 b #\u200b#teamcity[message]',
    )
  })

  test('leaves ordinary text alone', () => {
    const text = 'FAIL Tone: score 0.2 (threshold 0.5)\n│    reason: a::b, #1 ##tag\t[x]'
    expect(terminalSafe(text)).toBe(text)
  })

  test('oneLineSafe and indentContinuation keep a quoted text where it was put', () => {
    expect(oneLineSafe('a\n::error::x\r\ny')).toBe('a ::error::x y')
    expect(indentContinuation('a\n::error::x\ry\u2028z', 3)).toBe('a\n   ::error::x\n   y\n   z')
    expect(ciLogProblems(terminalSafe(`reason: ${indentContinuation('a\n::error::x', 8)}`))).toEqual([])
  })
})

describe('xmlSafe', () => {
  test('holds only characters XML 1.0 allows, shown as in a terminal', () => {
    const text = 'a\u0000b\u001b[2K c\ud800d \udc00e \ufffe\uffff 😀\nnext\tline'
    const safe = xmlSafe(text)
    expect(safe).toBe('a␀b␛[2K c\ufffdd \ufffde \ufffd\ufffd 😀\nnext\tline')
    expect(xmlProblems(`<t>${safe}</t>`)).toEqual([])
    expect(xmlProblems(`<t>${text}</t>`)).not.toEqual([])
  })
})
