// Text from judges, test cases, datasets and baselines reaches terminals and CI logs through judgetree's reports.
// A CI runner reads some lines as commands (GitHub Actions: `::error …::` at the start of a line after spaces,
// and the legacy `##[error]` anywhere in one; Azure Pipelines: `##vso[…]`; TeamCity: `##teamcity[…]`), and a
// terminal obeys escape sequences (cursor moves, erased lines, OSC 8 links, OSC 52 clipboard writes). Every
// surface that prints runs its text through `terminalSafe` last, so no such text acts, whoever wrote it.

/** Inserted inside a command marker: the line reads the same, but no runner sees a command in it. */
const BREAK = '\u200b'

/**
 * Controls a terminal or a line reader acts on: C0 but `\n` and `\t`, DEL, C1 (NEL among them) and the Unicode
 * line and paragraph separators, which some log viewers break lines at.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g

/** `::` opening a line, after any whitespace: GitHub Actions' workflow commands. */
const LINE_COMMAND = /^(\s*):(?=:)/
/** `##[…]`, `##vso[…]`, `##teamcity[…]` anywhere in a line. */
const LEGACY_COMMAND = /#(?=#(?:vso|teamcity)?\[)/gi

/**
 * Makes text safe to print to a terminal or a CI log, keeping it readable:
 * - a CRLF becomes `\n`; every other control character (ESC, a bare CR, NUL, BEL, …) is shown, not sent: as its
 *   Unicode control picture (`␛`, `␍`, `␀`, `␇`) for C0 and DEL, as `\u0085` for C1 and the line separators;
 * - a line starting with `::` (after spaces) and every `##[` get a zero-width space (U+200B) after their first
 *   character, so the line still reads the same but is no workflow command.
 * The result holds no control character but `\n` and `\t`, and running it through again changes nothing.
 */
export function terminalSafe(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .replace(CONTROL, showControl)
    .split('\n')
    .map((line) => line.replace(LINE_COMMAND, `$1:${BREAK}`).replace(LEGACY_COMMAND, `#${BREAK}`))
    .join('\n')
}

/**
 * Text made to stay on one line of a report: whitespace runs (line breaks included) fold to one space, then
 * {@link terminalSafe}. For a name or a reason quoted inside a line of judgetree's own.
 */
export function oneLineSafe(text: string): string {
  return terminalSafe(text.replace(/\s+/g, ' ').trim())
}

/**
 * A multi-line text placed after a label: its later lines are indented by `indent`, so they read as part of it and
 * none starts where a command would (see {@link terminalSafe}, which the caller still applies).
 */
export function indentContinuation(text: string, indent: number): string {
  return text.replace(/\r\n|[\n\r\u2028\u2029\u0085]/g, `\n${' '.repeat(indent)}`)
}

function showControl(char: string): string {
  const code = char.charCodeAt(0)
  if (code < 0x20) return String.fromCharCode(0x2400 + code)
  if (code === 0x7f) return '\u2421'
  return `\\u${code.toString(16).padStart(4, '0')}`
}

/** Lone surrogates and the two noncharacters XML 1.0 forbids along with most C0 controls. */
const NOT_XML = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|[\ufffe\uffff]/g

/**
 * Text that XML 1.0 (an SVG picture, Graphviz's labels) can hold, shown as in a terminal: control characters as
 * their pictures (`␛`, `␀`), lone surrogates and U+FFFE/U+FFFF as U+FFFD. `\n` and `\t` stay. Markup characters
 * (`<`, `&`) are the caller's to escape.
 */
export function xmlSafe(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(CONTROL, showControl).replace(NOT_XML, '\ufffd')
}
