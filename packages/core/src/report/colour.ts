// Whether judgetree's own terminal lines are coloured, decided once per print, and the palette that colours them.
// Renderers take a palette and never look at the environment: off, every colour is the identity, so the same
// renderer gives the plain text that files, JUnit and the step summary get.
import chalk from 'chalk'
import { terminalSafe } from '../internal/safe-text.js'

/** What a line or a part of one says, and so its colour: failures and errors, passes, what did not run. */
export type Tone = 'fail' | 'pass' | 'dim'

/** Colours for judgetree's terminal output; each is the identity when colour is off. */
export interface Palette extends Readonly<Record<Tone, (text: string) => string>> {
  readonly enabled: boolean
}

/** A line a caller adds to the terminal output, plain or in a tone (a baseline's regression in red). */
export type TerminalNote = string | { readonly text: string; readonly tone: Tone }

/** What decides colour: the stream printed to, the environment and the runner's command line. */
export interface ColourContext {
  /** Whether the stream the text goes to is a terminal. */
  readonly isTTY: boolean | undefined
  readonly env: Readonly<Record<string, string | undefined>>
  /** The process's arguments, where Vitest and Jest take `--color`/`--no-color` (Jest: `--colors`). */
  readonly argv: readonly string[]
}

/** The palette that colours nothing: for every surface but the terminal, and whenever colour is off. */
export const PLAIN: Palette = { enabled: false, fail: same, pass: same, dim: same }

/**
 * Colour is on when the runner's own setting allows it (no `--no-color`), `NO_COLOR` is unset or empty, and the
 * stream is a terminal or `FORCE_COLOR` forces it (`FORCE_COLOR=0` or `false` turns it off, as in chalk). A
 * runner's `--color`/`--colors` colours a stream that is not a terminal, as it does the runner's own output.
 */
export function colourEnabled({ isTTY, env, argv }: ColourContext): boolean {
  if ((env.NO_COLOR ?? '') !== '') return false
  const runner = runnerColourSetting(argv)
  if (runner === false) return false
  const force = env.FORCE_COLOR
  if (force !== undefined) return force !== '0' && force !== 'false'
  if (runner === true) return true
  return isTTY === true && env.TERM !== 'dumb'
}

/** The palette for text printed to `stream` (a Node stream, or any object with `isTTY`) by this process. */
export function paletteFor(
  stream: object,
  env: Readonly<Record<string, string | undefined>> = process.env,
  argv: readonly string[] = process.argv,
): Palette {
  const { isTTY } = stream as { readonly isTTY?: unknown }
  return colourEnabled({ isTTY: isTTY === true, env, argv }) ? COLOURED : PLAIN
}

/**
 * `text` made safe to print (see `terminalSafe`), then coloured: the one order that keeps the palette's escapes and
 * no other, whoever wrote the text.
 */
export function paintSafe(text: string, paint: (text: string) => string = same): string {
  return paint(terminalSafe(text))
}

/** A note's line, safe to print, in its tone. */
export function noteLine(note: TerminalNote, palette: Palette): string {
  return typeof note === 'string' ? paintSafe(note) : paintSafe(note.text, palette[note.tone])
}

/** `--no-color` and its spellings: false; `--color`, `--colors`: true; neither: undefined. The last one wins. */
function runnerColourSetting(argv: readonly string[]): boolean | undefined {
  let setting: boolean | undefined
  for (const argument of argv) {
    if (argument === '--') break
    if (OFF.has(argument)) setting = false
    else if (ON.has(argument)) setting = true
  }
  return setting
}

const OFF = new Set(['--no-color', '--no-colors', '--color=false', '--colors=false', '--color=never'])
const ON = new Set(['--color', '--colors', '--color=true', '--colors=true', '--color=always'])

// Basic 16 colours are enough for red, green and dim, and what every terminal that takes colour shows.
const ansi = new chalk.Instance({ level: 1 })

const COLOURED: Palette = { enabled: true, fail: ansi.red, pass: ansi.green, dim: ansi.dim }

function same(text: string): string {
  return text
}
