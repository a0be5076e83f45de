/**
 * The parts of a text that compression never touches: fenced code blocks (``` or ~~~, to the closing
 * fence of the same kind and at least the same length, or to the end) and tagged blocks such as
 * `<system-reminder>...</system-reminder>`, whose opening tag starts a line. Both are kept whole lines,
 * so what lies between them is whole lines too, and a line-based change never reaches into them.
 */

export interface Piece {
  readonly text: string
  /** Kept byte for byte. */
  readonly kept: boolean
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/
const OPEN_TAG = /^\s*<([A-Za-z][\w.:-]*)(?:\s[^<>]*)?>/
/** Any line that FENCE or OPEN_TAG could match: the start of every block, and more. */
const MAY_OPEN = /^(?: {0,3}(?:`{3}|~{3})|\s*<[A-Za-z])/m

/** `text` as whole-line pieces, in order; joined, they are `text` again. */
export const splitProtected = (text: string): ReadonlyArray<Piece> => {
  // fast path: no line that could open a block (a "<" inside a line opens none; one search of the text
  // instead of splitting it into lines and joining them again)
  if (!MAY_OPEN.test(text)) return [{ text, kept: false }]
  const lines = text.split("\n")
  const closings = closingTags(lines)
  const pieces: Array<Piece> = []
  let open: Array<string> = []
  const flush = () => {
    if (open.length > 0) pieces.push({ text: open.join("\n"), kept: false })
    open = []
  }
  let i = 0
  while (i < lines.length) {
    const end = blockEnd(lines, i, closings)
    if (end === undefined) {
      open.push(lines[i]!)
      i++
      continue
    }
    flush()
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

/** The last line of a block opened at `start`, if one opens there. */
const blockEnd = (
  lines: ReadonlyArray<string>,
  start: number,
  closings: ReadonlyMap<string, ReadonlyArray<number>>
): number | undefined => {
  const line = lines[start]!
  const fence = FENCE.exec(line)
  if (fence !== null) {
    const mark = fence[1]!
    const closing = new RegExp(`^ {0,3}${mark[0] === "`" ? "`" : "~"}{${mark.length},}\\s*$`)
    for (let j = start + 1; j < lines.length; j++) if (closing.test(lines[j]!)) return j
    return lines.length - 1
  }
  const tag = OPEN_TAG.exec(line)
  if (tag === null) return undefined
  const at = closings.get(tag[1]!)
  if (at === undefined) return undefined
  // the closing tag may be on the opening line, after the opening tag
  if (line.indexOf(`</${tag[1]!}>`, tag[0].length) !== -1) return start
  return firstAtLeast(at, start + 1)
}
