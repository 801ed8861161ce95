import { describe, expect, it } from 'vitest'
import { colourEnabled, noteLine, PLAIN, paintSafe, paletteFor } from './colour.js'

const RED = '\u001b[31m'
const GREEN = '\u001b[32m'
const DIM = '\u001b[2m'

describe('colourEnabled', () => {
  const tty = { isTTY: true, env: {}, argv: ['node', 'vitest'] }
  const pipe = { isTTY: false, env: {}, argv: ['node', 'vitest'] }

  it('colours a terminal and nothing else when nothing says otherwise', () => {
    expect(colourEnabled(tty)).toBe(true)
    expect(colourEnabled(pipe)).toBe(false)
    expect(colourEnabled({ ...tty, isTTY: undefined })).toBe(false)
    expect(colourEnabled({ ...tty, env: { TERM: 'dumb' } })).toBe(false)
  })

  it('turns colour off for a NO_COLOR that is set and not empty, even when FORCE_COLOR forces it', () => {
    expect(colourEnabled({ ...tty, env: { NO_COLOR: '1' } })).toBe(false)
    expect(colourEnabled({ ...pipe, env: { NO_COLOR: '1', FORCE_COLOR: '1' } })).toBe(false)
    expect(colourEnabled({ ...tty, env: { NO_COLOR: '' } })).toBe(true)
  })

  it('lets FORCE_COLOR colour a pipe, and FORCE_COLOR=0 or false turn a terminal plain', () => {
    for (const force of ['1', '2', '3', 'true', '']) {
      expect(colourEnabled({ ...pipe, env: { FORCE_COLOR: force } }), `FORCE_COLOR=${force}`).toBe(true)
    }
    for (const force of ['0', 'false']) {
      expect(colourEnabled({ ...tty, env: { FORCE_COLOR: force } }), `FORCE_COLOR=${force}`).toBe(false)
    }
  })

  it("follows the runner's own setting: --no-color wins over FORCE_COLOR, --colors colours a pipe", () => {
    for (const flag of ['--no-color', '--no-colors', '--color=false']) {
      expect(colourEnabled({ ...tty, argv: ['node', 'jest', flag] }), flag).toBe(false)
      expect(colourEnabled({ ...tty, env: { FORCE_COLOR: '1' }, argv: ['node', 'vitest', flag] }), flag).toBe(false)
    }
    for (const flag of ['--color', '--colors']) {
      expect(colourEnabled({ ...pipe, argv: ['node', 'jest', flag] }), flag).toBe(true)
    }
    // FORCE_COLOR=0 still turns off what the flag would colour, as chalk does.
    expect(colourEnabled({ ...pipe, env: { FORCE_COLOR: '0' }, argv: ['node', 'jest', '--colors'] })).toBe(false)
    // The last flag wins; an argument after `--` belongs to someone else.
    expect(colourEnabled({ ...tty, argv: ['node', 'jest', '--no-color', '--color'] })).toBe(true)
    expect(colourEnabled({ ...tty, argv: ['node', 'script', '--', '--no-color'] })).toBe(true)
  })
})

describe('paletteFor', () => {
  it('colours failures red, passes green and what did not run dim when the stream takes colour', () => {
    const palette = paletteFor({ isTTY: true }, {}, [])
    expect(palette.enabled).toBe(true)
    expect(palette.fail('x')).toBe(`${RED}x\u001b[39m`)
    expect(palette.pass('x')).toBe(`${GREEN}x\u001b[39m`)
    expect(palette.dim('x')).toBe(`${DIM}x\u001b[22m`)
  })

  it('is the identity for a pipe, under NO_COLOR and with --no-color', () => {
    for (const palette of [
      paletteFor({ isTTY: false }, {}, []),
      paletteFor({}, {}, []),
      paletteFor({ isTTY: true }, { NO_COLOR: '1' }, []),
      paletteFor({ isTTY: true }, {}, ['node', 'vitest', '--no-color']),
    ]) {
      expect(palette).toBe(PLAIN)
      expect([palette.fail('x'), palette.pass('x'), palette.dim('x')]).toEqual(['x', 'x', 'x'])
    }
  })
})

describe('paintSafe', () => {
  it("neutralises the text's own escapes before adding the palette's", () => {
    const palette = paletteFor({ isTTY: true }, {}, [])
    const painted = paintSafe('\u001b[2Jgone\n::error::x', palette.fail)
    // Each line is coloured on its own (chalk closes before a line break), so no line leaks its colour.
    expect(painted).toBe(`${RED}␛[2Jgone\u001b[39m\n${RED}:\u200b:error::x\u001b[39m`)
    expect(noteLine({ text: '\u001b]52;c;x\u0007', tone: 'dim' }, palette)).toBe(`${DIM}␛]52;c;x␇\u001b[22m`)
    expect(noteLine('\u001b[31mplain', palette)).toBe('␛[31mplain')
  })
})
