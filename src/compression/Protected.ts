/**
 * The parts of a text that compression never touches: fenced code blocks and tagged blocks such as
 * `<system-reminder>...</system-reminder>`, whose opening tag starts a line. A fence is found wherever
 * CommonMark allows one (``` or ~~~, 3 or more, at the top level or indented in list items and block
 * quotes, `Fences.ts`) and runs to the closing fence of the same kind, at least as long and in the same
 * containers, or to the end of the text. Both are kept whole lines, so what lies between them is whole
 * lines too, and a line-based change never reaches into them.
 */
import { type Fence, FenceFinder } from "./Fences.ts"

export interface Piece {
  readonly text: string
  /** Kept byte for byte. */
  readonly kept: boolean
}

const OPEN_TAG = /^\s*<([A-Za-z][\w.:-]*)(?:\s[^<>]*)?>/
/**
 * Any line that could open a block, and more: a fence after white space, quote and list markers, or a
 * tag after white space. Neither run can cross a line's end, so each line is read once (`^` with the
 * `m` flag would also start after a "\r", and `\s*` would run across lines: a text of blank lines
 * took quadratic time).
 */
const MAY_OPEN = /[ \t>*+\-.)\d]*(?:```|~~~)|[^\S\n]*<[A-Za-z]/y

/** What a line that could open a block holds. */
const MARKS = ["<", "```", "~~~"] as const

/**
 * Whether some line could open a block (`MAY_OPEN` at its start). Only the lines holding one of
 * `MARKS` are tried, each once, found with `indexOf`: a search of the text for `MAY_OPEN` after each
 * line's start was tried at every character (a tenth of the safe level's time on 100 KB of output).
 */
export const mayOpenBlock = (text: string): boolean => {
  for (const mark of MARKS) {
    for (let at = text.indexOf(mark); at !== -1;) {
      MAY_OPEN.lastIndex = text.lastIndexOf("\n", at) + 1
      if (MAY_OPEN.test(text)) return true
      const end = text.indexOf("\n", at)
      if (end === -1) break
      at = text.indexOf(mark, end + 1)
    }
  }
  return false
}

/** `text` as whole-line pieces, in order; joined, they are `text` again. */
export const splitProtected = (text: string): ReadonlyArray<Piece> => {
  // fast path: no line that could open a block (a "<" inside a line opens none; no splitting the text
  // into lines and joining them again)
  if (!mayOpenBlock(text)) return [{ text, kept: false }]
  const lines = text.split("\n")
  const closings = closingTags(lines)
  const fences = new FenceFinder()
  const pieces: Array<Piece> = []
  let open: Array<string> = []
  const flush = () => {
    if (open.length > 0) pieces.push({ text: open.join("\n"), kept: false })
    open = []
  }
  let i = 0
  while (i < lines.length) {
    const fence = fences.open(lines[i]!)
    const end = fence !== undefined ? fenceEnd(lines, i, fence, fences) : tagEnd(lines, i, closings)
    if (end === undefined) {
      open.push(lines[i]!)
      i++
      continue
    }
    flush()
    fences.endBlock()
    pieces.push({ text: lines.slice(i, end + 1).join("\n"), kept: true })
    i = end + 1
  }
  flush()
  // the pieces were cut at line ends: put each "\n" back on the piece before it
  return pieces.map((piece, index) => index < pieces.length - 1 ? { ...piece, text: `${piece.text}\n` } : piece)
}

const CLOSE_TAG = /<\/([A-Za-z][\w.:-]*)>/g

/** Per tag name, the lines holding its closing tag, ascending: one pass, so a search never rescans. */
const closingTags = (lines: ReadonlyArray<string>): Map<string, Array<number>> => {
  const found = new Map<string, Array<number>>()
  lines.forEach((line, index) => {
    if (!line.includes("</")) return
    for (const match of line.matchAll(CLOSE_TAG)) {
      const at = found.get(match[1]!)
      if (at === undefined) found.set(match[1]!, [index])
      else if (at[at.length - 1] !== index) at.push(index)
    }
  })
  return found
}

/** The first entry of ascending `values` that is >= `min`. */
const firstAtLeast = (values: ReadonlyArray<number>, min: number): number | undefined => {
  let lo = 0
  let hi = values.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (values[mid]! < min) lo = mid + 1
    else hi = mid
  }
  return values[lo]
}

/** The last line of the fence opened at `start`: its closing fence, or the text's last line. */
const fenceEnd = (lines: ReadonlyArray<string>, start: number, fence: Fence, fences: FenceFinder): number => {
  for (let j = start + 1; j < lines.length; j++) if (fences.closes(lines[j]!, fence)) return j
  return lines.length - 1
}

/** The last line of a tagged block opened at `start`, if one opens there. */
const tagEnd = (
  lines: ReadonlyArray<string>,
  start: number,
  closings: ReadonlyMap<string, ReadonlyArray<number>>
): number | undefined => {
  const line = lines[start]!
  const tag = OPEN_TAG.exec(line)
  if (tag === null) return undefined
  const at = closings.get(tag[1]!)
  if (at === undefined) return undefined
  // the closing tag may be on the opening line, after the opening tag
  if (line.indexOf(`</${tag[1]!}>`, tag[0].length) !== -1) return start
  return firstAtLeast(at, start + 1)
}
