/**
 * Fenced code blocks wherever CommonMark allows them: at the top level, in list items and in block
 * quotes, nested any way. A `FenceFinder` reads the lines of a text in order and keeps the containers
 * (block quotes, list items) each line sits in; a line opens a fence when, inside its containers, it
 * holds 3 or more backticks or tildes indented 0-3 columns (a backtick fence's info string holds no
 * backtick). The fence closes at a line inside the same containers that holds only a run of the same
 * character, at least as long, indented 0-3 columns.
 *
 * Where CommonMark and a quick reading could differ, the reading protects more: a container stays open
 * on any line that could continue a paragraph lazily, and a fence whose containers end before its
 * closing fence (where CommonMark would end the block) runs on to a closing fence in those containers,
 * or to the end of the text. One pass over each line's first columns: no regex, no backtracking.
 */

/** A container on the stack: a block quote, or a list item whose content starts this many columns in. */
type Container = number
const QUOTE: Container = -1
/** Deeper nesting is read as text (no real document nests this deep; it bounds the work per line). */
const MAX_DEPTH = 32

const TAB = 0x09
const SPACE = 0x20
const GT = 0x3e
const BACKTICK = 0x60
const TILDE = 0x7e

/** An open fence: its containers, and what closes it. */
export interface Fence {
  readonly containers: ReadonlyArray<Container>
  readonly char: number
  readonly length: number
}

/**
 * A position in a line, in columns (tabs stop every 4 columns, as in CommonMark). `base` is the column
 * where the current container's content starts; it can sit inside a tab that a container half used.
 */
class Cursor {
  line = ""
  end = 0
  pos = 0
  col = 0
  base = 0
  /** Where the white space at `pos` ends, as `indent` measured it. */
  wsPos = 0
  wsCol = 0

  reset(line: string): this {
    this.line = line
    // a CRLF text's lines end in "\r": it is not content
    this.end = line.charCodeAt(line.length - 1) === 0x0d ? line.length - 1 : line.length
    this.pos = 0
    this.col = 0
    this.base = 0
    return this
  }

  /** The columns of white space from the container's content start to the next character. */
  indent(): number {
    let p = this.pos
    let c = this.col
    while (p < this.end) {
      const code = this.line.charCodeAt(p)
      if (code === SPACE) c++
      else if (code === TAB) c += 4 - (c % 4)
      else break
      p++
    }
    this.wsPos = p
    this.wsCol = c
    return c - this.base
  }

  /** Whether nothing but white space is left (after `indent`). */
  get blank(): boolean {
    return this.wsPos >= this.end
  }

  /** Into a list item's content: `width` columns of white space (the caller checked there are). */
  advance(width: number): void {
    const target = this.base + width
    while (this.pos < this.end) {
      const code = this.line.charCodeAt(this.pos)
      const next = code === SPACE ? this.col + 1 : code === TAB ? this.col + 4 - (this.col % 4) : -1
      if (next === -1 || next > target) break
      this.pos++
      this.col = next
    }
    this.base = target
  }

  /** Past a block quote marker: up to 3 columns, `>`, and one optional space. */
  quote(): boolean {
    if (this.indent() > 3 || this.line.charCodeAt(this.wsPos) !== GT) return false
    this.pos = this.wsPos + 1
    this.col = this.wsCol + 1
    this.base = this.col
    const code = this.line.charCodeAt(this.pos)
    if (code === SPACE) {
      this.pos++
      this.col++
      this.base = this.col
    } else if (code === TAB) {
      // the space is one column of the tab; the rest of it is indentation
      this.base = this.col + 1
    }
    return true
  }

  /**
   * A list marker after the measured white space (`-`, `+`, `*`, or 1-9 digits and `.` or `)`, then a
   * space, a tab or the line's end): the width of the item's content, and whether it may interrupt a
   * paragraph. The cursor does not move.
   */
  marker(): { readonly width: number; readonly interrupts: boolean } | undefined {
    let p = this.wsPos
    const first = this.line.charCodeAt(p)
    let startsAtOne = true
    if (first === 0x2d || first === 0x2b || first === 0x2a) p++
    else {
      while (p < this.end && p - this.wsPos < 9 && isDigit(this.line.charCodeAt(p))) p++
      const digits = p - this.wsPos
      const delimiter = this.line.charCodeAt(p)
      if (digits === 0 || (delimiter !== 0x2e && delimiter !== 0x29)) return undefined
      startsAtOne = Number(this.line.slice(this.wsPos, p)) === 1
      p++
    }
    const after = this.line.charCodeAt(p)
    if (p < this.end && after !== SPACE && after !== TAB) return undefined
    const markerEnd = this.wsCol + (p - this.wsPos)
    let q = p
    let c = markerEnd
    while (q < this.end) {
      const code = this.line.charCodeAt(q)
      if (code === SPACE) c++
      else if (code === TAB) c += 4 - (c % 4)
      else break
      q++
    }
    const empty = q >= this.end
    // 1-4 columns after the marker belong to it; with more (or none before the line's end), one does
    // and the rest is the content's indentation
    const content = empty || c - markerEnd > 4 ? markerEnd + 1 : c
    return { width: content - this.base, interrupts: !empty && startsAtOne }
  }

  /** Past the list marker `marker` just measured, to its content. */
  takeMarker(width: number): void {
    this.pos = this.wsPos
    this.col = this.wsCol
    this.base = this.base + width
    // the marker's own characters, then white space up to the content
    while (this.pos < this.end) {
      const code = this.line.charCodeAt(this.pos)
      if (code === SPACE || code === TAB) break
      this.pos++
      this.col++
    }
    while (this.pos < this.end) {
      const code = this.line.charCodeAt(this.pos)
      const next = code === SPACE ? this.col + 1 : code === TAB ? this.col + 4 - (this.col % 4) : -1
      if (next === -1 || next > this.base) break
      this.pos++
      this.col = next
    }
  }

  /** The run of backticks or tildes after the measured white space, if 3 or more: its character and length. */
  fenceRun(): { readonly char: number; readonly length: number } | undefined {
    const char = this.line.charCodeAt(this.wsPos)
    if (char !== BACKTICK && char !== TILDE) return undefined
    let p = this.wsPos + 1
    while (p < this.end && this.line.charCodeAt(p) === char) p++
    const length = p - this.wsPos
    this.pos = p
    return length >= 3 ? { char, length } : undefined
  }
}

const isDigit = (code: number) => code >= 0x30 && code <= 0x39

/** Past `containers` on a line that continues them all, or false. Blank lines continue list items. */
const continues = (c: Cursor, containers: ReadonlyArray<Container>): boolean => {
  for (const container of containers) {
    if (container === QUOTE) {
      if (!c.quote()) return false
    } else {
      if (c.indent() < container) return false
      c.advance(container)
    }
  }
  return true
}

/** The fence openings and closings of a text's lines, read in order. */
export class FenceFinder {
  private readonly stack: Array<Container> = []
  /** Whether the last line read left a paragraph open (which a later line may continue lazily). */
  private paragraph = false
  private readonly cursor = new Cursor()

  /** Reads the next line: the fence it opens, if it opens one (the containers follow it either way). */
  open(line: string): Fence | undefined {
    const c = this.cursor.reset(line)
    const stack = this.stack
    let matched = 0
    while (matched < stack.length) {
      const container = stack[matched]!
      if (container === QUOTE) {
        if (!c.quote()) break
      } else {
        const indent = c.indent()
        if (!c.blank) {
          if (indent < container) break
          c.advance(container)
        }
      }
      matched++
    }
    c.indent()
    if (c.blank) {
      // a blank line ends the paragraph and the block quotes it does not continue
      stack.length = matched
      this.paragraph = false
      return undefined
    }
    // containers this line opens: a line that opens one continues no paragraph lazily, so the
    // containers it does not continue close before the first is pushed
    let opened = 0
    while (matched + opened < MAX_DEPTH && c.indent() <= 3 && !c.blank) {
      let container: Container = QUOTE
      if (c.line.charCodeAt(c.wsPos) === GT) c.quote()
      else {
        const marker = c.marker()
        if (marker === undefined) break
        // a list may interrupt a paragraph only with a first item that starts at 1 and is not empty; a
        // next item of an open list may (its container is the first this line does not continue)
        const sibling = matched < stack.length && stack[matched] !== QUOTE
        if (this.paragraph && opened === 0 && !marker.interrupts && !sibling) break
        c.takeMarker(marker.width)
        container = marker.width
      }
      if (opened === 0) stack.length = matched
      stack.push(container)
      opened++
    }
    const indent = c.indent()
    const run = indent <= 3 && !c.blank ? c.fenceRun() : undefined
    // a backtick fence's info string holds no backtick (else the line is text with inline code)
    const fence = run !== undefined && (run.char === TILDE || c.line.indexOf("`", c.pos) === -1) ? run : undefined
    const lazy = !c.blank && fence === undefined && opened === 0 && matched < stack.length && this.paragraph
    // text continues an open paragraph lazily when it opens nothing (the containers stay); anything
    // else is in the containers it continues or opens
    if (!lazy) stack.length = matched + opened
    // only markers (an empty list item, a quote line) or a fence leave no paragraph open
    this.paragraph = !c.blank && fence === undefined
    return fence === undefined ? undefined : { containers: [...stack], char: fence.char, length: fence.length }
  }

  /** Whether `line` closes `fence`. */
  closes(line: string, fence: Fence): boolean {
    const c = this.cursor.reset(line)
    if (!continues(c, fence.containers) || c.indent() > 3) return false
    const run = c.fenceRun()
    return run !== undefined && run.char === fence.char && run.length >= fence.length &&
      line.slice(c.pos).trim() === ""
  }

  /** After a block that was kept whole: what follows starts no lazy line. */
  endBlock(): void {
    this.paragraph = false
  }
}
