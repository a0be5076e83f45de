/**
 * The `safe` level on one tool result: only changes that keep its meaning exactly. A result that is one
 * JSON value loses the whitespace between its tokens; any other is cut into pieces around fenced code
 * and tagged blocks (kept byte for byte), and each piece is rendered as a terminal would show it, its
 * JSON lines and blocks compacted, and its lines tidied. The result is never longer than the text.
 */
import { compactJson, scanJson } from "./JsonWhitespace.ts"
import { tidyLines } from "./Lines.ts"
import { splitProtected } from "./Protected.ts"
import { renderTerminal } from "./Terminal.ts"

/** Shorter texts have nothing worth the work. */
const MIN_LENGTH = 16

/** `text` under the safe level; `text` itself when nothing got shorter. */
export const compressSafe = (text: string): string => {
  if (text.length < MIN_LENGTH) return text
  const json = compactJson(text)
  if (json !== undefined) return json.length < text.length ? json : text
  const pieces = splitProtected(text)
  const out = pieces.map((piece, i) =>
    piece.kept ? piece.text : tidyPiece(piece.text, { start: i > 0, end: i < pieces.length - 1 })
  ).join("")
  return out.length < text.length ? out : text
}

/** A tool call's arguments, compact when they are JSON. */
export const compressArguments = (text: string): string => {
  const json = compactJson(text)
  return json !== undefined && json.length < text.length ? json : text
}

/** One piece between kept blocks (`inner`: which of its ends touches one). */
const tidyPiece = (piece: string, inner: { readonly start: boolean; readonly end: boolean }): string => {
  const ending = piece.endsWith("\n") ? "\n" : ""
  const body = ending === "" ? piece : piece.slice(0, -1)
  const rendered = renderTerminal(body) ?? body
  const lines = tidyLines(compactJsonBlocks(rendered).split("\n"), inner)
  return lines.length === 0 ? ending : lines.join("\n") + ending
}

/** How far one try at a JSON block may read, and all failed tries together (log lines start with `[` too). */
const BLOCK_LIMIT = 1 << 20
const FAILED_BUDGET = 4 << 20

/**
 * Every JSON object or array that starts a line and ends one (a pretty-printed body after curl's
 * headers, an NDJSON line), compacted; the text between them unchanged.
 */
const compactJsonBlocks = (text: string): string => {
  let out = ""
  let copied = 0
  let lineStart = 0
  let budget = FAILED_BUDGET
  while (lineStart < text.length) {
    const first = text.charCodeAt(lineStart)
    if ((first === 0x7b || first === 0x5b) && budget > 0) {
      const limit = lineStart + Math.min(BLOCK_LIMIT, budget)
      const value = scanJson(text, lineStart, limit)
      if (!value.ok) budget -= value.at - lineStart
      else if (value.end === text.length || text.charCodeAt(value.end) === 0x0a) {
        out += text.slice(copied, lineStart) + value.compact
        copied = value.end
        lineStart = value.end + 1
        continue
      }
    }
    const next = text.indexOf("\n", lineStart)
    if (next === -1) break
    lineStart = next + 1
  }
  return copied === 0 ? text : out + text.slice(copied)
}
