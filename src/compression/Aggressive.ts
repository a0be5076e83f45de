/**
 * The `aggressive` level on one tool result: `safe`, then cuts that stay retrievable. Each cut leaves a
 * one-line marker with the id of the text it removed (a hash of that text, so the same cut always has
 * the same id and the same bytes), which the shared tool `svc_expand_output` returns:
 * - a run of near-identical lines (the same but for their numbers: timestamps, counters, progress)
 *   keeps its first and last line;
 * - a run of lines that an earlier tool result of the conversation already held (what a tool prints on
 *   every call) is cut; only earlier results count, so the cut never depends on what comes after;
 * - a very long result keeps its head and its tail.
 * Fenced code and tagged blocks stay byte for byte, as under `safe`.
 */
import { createHash } from "node:crypto"
import { splitProtected } from "./Protected.ts"
import { compressSafe } from "./Safe.ts"

/** A text cut from a tool result, and the id its marker names. */
export interface Cut {
  readonly id: string
  readonly text: string
}

export const EXPAND_TOOL_ID = "svc_expand_output"

/** Runs shorter than this stay. */
const MIN_SIMILAR_RUN = 4
const MIN_SEEN_RUN = 3
/** A line shorter than this is too common to call boilerplate (`}`, `ok`). */
const MIN_SEEN_LENGTH = 24
/** Past either, a piece keeps its head and tail. */
const LONG_LINES = 300
const LONG_BYTES = 48 * 1024
const KEPT_LINES = 80
const KEPT_BYTES = 8 * 1024

export const cutId = (text: string): string =>
  `cut_${createHash("sha256").update(text).digest("base64url").slice(0, 16)}`

const marker = (what: string, id: string) => `[svc: ${what} cut; ${EXPAND_TOOL_ID} id "${id}" returns them]`

const MARKER = /^\[svc: .* cut; svc_expand_output id "cut_[\w-]{16}" returns them\]$/

/** The lines of earlier tool results that count as seen: long enough to mean something. */
export const seenLinesOf = (text: string): ReadonlyArray<string> =>
  text.split("\n").map((line) => line.trimEnd()).filter((line) => line.length >= MIN_SEEN_LENGTH && !MARKER.test(line))

const NUMBERS = /\d+(?:[.,:]\d+)*/g
const shape = (line: string) => line.replace(NUMBERS, "#")

interface Cutter {
  readonly cuts: Array<Cut>
  readonly cut: (what: string, lines: ReadonlyArray<string>) => string
}

const cutter = (): Cutter => {
  const cuts: Array<Cut> = []
  return {
    cuts,
    cut: (what, lines) => {
      const text = lines.join("\n")
      const id = cutId(text)
      if (!cuts.some((cut) => cut.id === id)) cuts.push({ id, text })
      return marker(what, id)
    }
  }
}

/** Runs of near-identical lines: first and last kept, the middle cut. */
const foldSimilar = (lines: ReadonlyArray<string>, c: Cutter): Array<string> => {
  const out: Array<string> = []
  let i = 0
  while (i < lines.length) {
    const line = lines[i]!
    const key = shape(line)
    let j = i + 1
    // blank lines and markers are never part of a run
    if (line.trim() !== "" && !MARKER.test(line)) { while (j < lines.length && shape(lines[j]!) === key) j++ }
    if (j - i >= MIN_SIMILAR_RUN) {
      const middle = lines.slice(i + 1, j - 1)
      out.push(line, c.cut(`${middle.length} similar lines (they differ only in numbers)`, middle), lines[j - 1]!)
    } else for (let k = i; k < j; k++) out.push(lines[k]!)
    i = j
  }
  return out
}

/** Runs of lines an earlier tool result held. */
const cutSeen = (lines: ReadonlyArray<string>, seen: ReadonlySet<string>, c: Cutter): Array<string> => {
  if (seen.size === 0) return [...lines]
  const out: Array<string> = []
  let i = 0
  while (i < lines.length) {
    let j = i
    while (j < lines.length && seen.has(lines[j]!.trimEnd())) j++
    if (j - i >= MIN_SEEN_RUN) {
      out.push(c.cut(`${j - i} lines already shown by an earlier tool result`, lines.slice(i, j)))
      i = j
    } else {
      for (let k = i; k <= j && k < lines.length; k++) out.push(lines[k]!)
      i = j + 1
    }
  }
  return out
}

/** A long piece: its head and its tail, by lines, then by bytes for very long lines. */
const keepEnds = (lines: ReadonlyArray<string>, c: Cutter): Array<string> => {
  let kept = [...lines]
  if (kept.length > LONG_LINES) {
    const middle = kept.slice(KEPT_LINES, kept.length - KEPT_LINES)
    const bytes = Buffer.byteLength(middle.join("\n"))
    kept = [
      ...kept.slice(0, KEPT_LINES),
      c.cut(`${middle.length} lines (${bytes} bytes)`, middle),
      ...kept.slice(-KEPT_LINES)
    ]
  }
  const text = kept.join("\n")
  if (text.length <= LONG_BYTES) return kept
  // one huge line (minified JSON, a bundle): characters, not lines, never between a surrogate pair
  const from = boundary(text, KEPT_BYTES)
  const to = boundary(text, text.length - KEPT_BYTES)
  const middle = text.slice(from, to)
  return [text.slice(0, from), c.cut(`${middle.length} characters`, [middle]), text.slice(to)]
}

/** `at`, or one before it when `at` would split a surrogate pair. */
const boundary = (text: string, at: number): number => {
  const code = text.charCodeAt(at)
  return code >= 0xdc00 && code <= 0xdfff ? at - 1 : at
}

/**
 * `text` under the aggressive level, given the lines earlier tool results of the conversation held;
 * the cuts its markers name. Never longer than `text`.
 */
export const compressAggressive = (
  text: string,
  seen: ReadonlySet<string>
): { readonly text: string; readonly cuts: ReadonlyArray<Cut> } => {
  const safe = compressSafe(text)
  const c = cutter()
  const out = splitProtected(safe).map((piece) => {
    if (piece.kept) return piece.text
    const ending = piece.text.endsWith("\n") ? "\n" : ""
    const body = ending === "" ? piece.text : piece.text.slice(0, -1)
    const lines = keepEnds(foldSimilar(cutSeen(body.split("\n"), seen, c), c), c)
    return lines.join("\n") + ending
  }).join("")
  if (out.length >= safe.length) return { text: safe, cuts: [] }
  // only the cuts whose markers made it into the text
  return { text: out, cuts: c.cuts.filter((cut) => out.includes(cut.id)) }
}
