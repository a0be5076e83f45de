/**
 * Terminal output as a terminal would show it once the program is done: colour and style sequences
 * gone, carriage-return redraws (progress bars, spinners) and cursor-movement redraws (erase line,
 * cursor up, as docker and npm draw) collapsed to the final screen. Text with neither an escape nor a
 * bare carriage return is not terminal output and is left alone (a file's CRLF line ends included).
 *
 * A small screen model: lines of text and a cursor. Only sequences whose effect on the final
 * text is certain are applied; any other escape (scroll regions, the alternate screen, a device query)
 * means the result cannot be trusted, and the text is returned as it was (`undefined`).
 */

const ESC = "\u001b"

/** Whether `text` holds anything a terminal would render differently from the text itself. */
export const looksLikeTerminal = (text: string): boolean => {
  if (text.includes(ESC)) return true
  for (let i = text.indexOf("\r"); i !== -1; i = text.indexOf("\r", i + 1)) {
    if (text.charCodeAt(i + 1) !== 10) return true
  }
  return false
}

/** The characters not written where the cursor is: ESC, CR, LF, backspace. */
const SPECIALS = [ESC, "\r", "\n", "\b"] as const

/**
 * Where the next of `SPECIALS` is, each found with `indexOf` and kept until passed: a run of plain text
 * is found by the engine's string search, not by a loop over its characters (a 100 KB tool result
 * spent 0.3-0.5 ms in that loop alone).
 */
class NextSpecial {
  readonly #text: string
  readonly #at: Array<number>
  constructor(text: string) {
    this.#text = text
    this.#at = SPECIALS.map(() => -1)
  }

  /** The index of the first special character at or after `from`, or the text's length. */
  from(from: number): number {
    const at = this.#at
    let first = this.#text.length
    for (let k = 0; k < SPECIALS.length; k++) {
      let position = at[k]!
      if (position < from) {
        const found = this.#text.indexOf(SPECIALS[k]!, from)
        position = at[k] = found === -1 ? this.#text.length : found
      }
      if (position < first) first = position
    }
    return first
  }
}

/** CSI final bytes that only style text or show and hide things: dropped, nothing moves. */
const STYLE_ONLY = new Set(["m", "h", "l", "q"])

class Screen {
  readonly lines: Array<string> = [""]
  row = 0
  col = 0
  savedRow = 0
  savedCol = 0

  private reach(): void {
    while (this.lines.length <= this.row) this.lines.push("")
  }

  /** Writes a run of plain characters at the cursor, over what is there. */
  write(run: string): void {
    this.reach()
    const line = this.lines[this.row]!
    // most runs go at the line's end (text between colour codes): appended, not sliced, since slicing
    // a line built of appended runs copies it whole first
    if (this.col === line.length) {
      this.lines[this.row] = line + run
      this.col += run.length
      return
    }
    const before = line.length >= this.col ? line.slice(0, this.col) : line.padEnd(this.col, " ")
    this.lines[this.row] = before + run + line.slice(this.col + run.length)
    this.col += run.length
  }

  newline(): void {
    this.row++
    this.col = 0
    this.reach()
  }

  /** Erase in line: 0 to the end, 1 to the start (inclusive), 2 all. */
  eraseInLine(mode: number): void {
    this.reach()
    const line = this.lines[this.row]!
    if (mode === 0) this.lines[this.row] = line.slice(0, this.col)
    else if (mode === 1) {
      this.lines[this.row] = " ".repeat(Math.min(line.length, this.col + 1)) + line.slice(this.col + 1)
    } else this.lines[this.row] = ""
  }

  /** Erase from the cursor to the end of the screen. */
  eraseBelow(): void {
    this.eraseInLine(0)
    this.lines.length = this.row + 1
  }

  text(): string {
    return this.lines.join("\n")
  }
}

/** Parameters of a CSI sequence (`1;2` -> [1, 2]); missing ones are undefined. */
const params = (raw: string): Array<number | undefined> =>
  raw === "" ? [] : raw.split(";").map((p) => (p === "" ? undefined : Number(p)))

/**
 * The final screen of `text`, or `undefined` when it is not terminal output or holds a sequence whose
 * effect is not certain.
 */
export const renderTerminal = (text: string): string | undefined => {
  if (!looksLikeTerminal(text)) return undefined
  const screen = new Screen()
  const specials = new NextSpecial(text)
  const n = text.length
  let i = 0
  while (i < n) {
    const char = text[i]!
    if (char === ESC) {
      const next = text[i + 1]
      if (next === "[") {
        // CSI: parameter bytes 0x30-0x3F, intermediates 0x20-0x2F, one final byte 0x40-0x7E
        let j = i + 2
        while (j < n && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x3f) j++
        const raw = text.slice(i + 2, j)
        while (j < n && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++
        if (j >= n) return undefined
        const final = text[j]!
        if (!applyCsi(screen, raw, final)) return undefined
        i = j + 1
        continue
      }
      if (next === "]") {
        // OSC (a title, a hyperlink's target): ends at BEL or ESC \; nothing of it is shown
        let j = i + 2
        while (j < n && text[j] !== "\u0007" && !(text[j] === ESC && text[j + 1] === "\\")) j++
        if (j >= n) return undefined
        i = text[j] === "\u0007" ? j + 1 : j + 2
        continue
      }
      if (next === "7") {
        screen.savedRow = screen.row
        screen.savedCol = screen.col
        i += 2
        continue
      }
      if (next === "8") {
        screen.row = screen.savedRow
        screen.col = screen.savedCol
        i += 2
        continue
      }
      // a character-set choice (ESC ( B) shows nothing
      if ((next === "(" || next === ")") && i + 2 < n) {
        i += 3
        continue
      }
      return undefined
    }
    if (char === "\r") {
      if (text[i + 1] === "\n") {
        screen.newline()
        i += 2
        continue
      }
      screen.col = 0
    } else if (char === "\n") screen.newline()
    else if (char === "\b") screen.col = Math.max(0, screen.col - 1)
    else {
      const j = specials.from(i + 1)
      screen.write(text.slice(i, j))
      i = j
      continue
    }
    i++
  }
  return screen.text()
}

/** Applies one CSI sequence; false when its effect on the final text is not certain. */
const applyCsi = (screen: Screen, raw: string, final: string): boolean => {
  if (raw.startsWith("?") || raw.startsWith(">") || raw.startsWith("=")) {
    // private modes: showing or hiding the cursor, bracketed paste, ... but not the alternate screen
    return (final === "h" || final === "l") && !/^\?(47|1047|1049)$/.test(raw)
  }
  if (STYLE_ONLY.has(final)) return true
  const [first] = params(raw)
  const count = Math.max(1, first ?? 1)
  switch (final) {
    case "A":
      screen.row = Math.max(0, screen.row - count)
      return true
    case "B":
      screen.row += count
      return true
    case "C":
      screen.col += count
      return true
    case "D":
      screen.col = Math.max(0, screen.col - count)
      return true
    case "E":
      screen.row += count
      screen.col = 0
      return true
    case "F":
      screen.row = Math.max(0, screen.row - count)
      screen.col = 0
      return true
    case "G":
      screen.col = count - 1
      return true
    case "K":
      screen.eraseInLine(first ?? 0)
      return (first ?? 0) <= 2
    case "J":
      // erasing what is below the cursor is a redraw; clearing the screen would hide output a reader
      // of the text should still see
      if ((first ?? 0) !== 0) return false
      screen.eraseBelow()
      return true
    case "s":
      screen.savedRow = screen.row
      screen.savedCol = screen.col
      return true
    case "u":
      screen.row = screen.savedRow
      screen.col = screen.savedCol
      return true
    default:
      // absolute positions (H, f, d) depend on a screen size and a scroll position the text does not give
      return false
  }
}
