import { describe, expect, it } from 'vitest'
import { replyWindows } from './conversation-windows.js'

const roles = (text: string) => [...text].map((letter) => ({ role: letter === 'u' ? 'user' : 'assistant' }) as const)

describe('replyWindows', () => {
  it('ends a window at every assistant turn and spans the last windowSize exchanges', () => {
    expect(replyWindows(roles('uauaua'), 2)).toEqual([
      { reply: 1, start: 0 },
      { reply: 3, start: 0 },
      { reply: 5, start: 2 },
    ])
  })

  it('merges consecutive user turns into one exchange', () => {
    expect(replyWindows(roles('uuauua'), 1)).toEqual([
      { reply: 2, start: 0 },
      { reply: 5, start: 3 },
    ])
  })

  it('judges leading assistant turns with a window of just them, and skips a trailing user turn', () => {
    expect(replyWindows(roles('aauau'), 1)).toEqual([
      { reply: 0, start: 0 },
      { reply: 1, start: 0 },
      { reply: 3, start: 2 },
    ])
  })

  it('gives each of several replies in a row its own window, never reaching past it', () => {
    expect(replyWindows(roles('uaa'), 3)).toEqual([
      { reply: 1, start: 0 },
      { reply: 2, start: 0 },
    ])
  })

  it('has no windows for a conversation without replies', () => {
    expect(replyWindows(roles('uu'), 3)).toEqual([])
  })
})
