/**
 * JSON without its insignificant whitespace: removed between tokens only, never inside a string, and
 * never by parsing and writing the value again (a 64-bit integer or `1.0` would change its digits, a
 * duplicate key would vanish). The text is scanned once; anything that is not exactly one JSON value
 * (with whitespace around it allowed) gives `undefined` and is left alone.
 */

const isWhitespace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09

/** Nesting beyond this is not worth the stack; such a text is left as it is. */
const MAX_DEPTH = 10_000

/** `text` as compact JSON, or `undefined` when it is not a single JSON value (whitespace around it allowed). */
export const compactJson = (text: string): string | undefined => {
  const value = scanJson(text, 0)
  if (!value.ok) return undefined
  for (let i = value.end; i < text.length; i++) if (!isWhitespace(text.charCodeAt(i))) return undefined
  return value.compact
}

/** A JSON value read: where it ends and its compact text; or where reading it failed. */
export type JsonScan =
  | { readonly ok: true; readonly end: number; readonly compact: string }
  | { readonly ok: false; readonly at: number }

/**
 * The JSON value that starts at `start` (after whitespace): where it ends and its compact text, or
 * where it stopped being JSON. Validates the grammar as it goes (strings, escapes,
 * numbers, literals, nesting), so the compact text parses to the same value.
 */
export const scanJson = (
  text: string,
  start: number,
  /** Gives up at this index: a bound on the work for a text that only starts like JSON. */
  limit = text.length
): JsonScan => {
  const n = Math.min(text.length, limit)
  let out = ""
  let i = start
  let runStart = start // start of the span copied as it is
  const stack: Array<number> = [] // 0x7b '{' or 0x5b '['
  // what may come next: a value, a key, ':' , ',' or a closer, or nothing more
  let expect = "value" as "value" | "key-or-close" | "value-or-close" | "colon" | "comma-or-close" | "end"

  const skipWhitespace = () => {
    if (i < n && isWhitespace(text.charCodeAt(i))) {
      out += text.slice(runStart, i)
      while (i < n && isWhitespace(text.charCodeAt(i))) i++
      runStart = i
    }
  }
  const complete = () => expect === "end"
  const afterValue = () => {
    expect = stack.length === 0 ? "end" : "comma-or-close"
  }
  const scanString = (): boolean => {
    i++ // opening quote
    while (i < n) {
      const code = text.charCodeAt(i)
      if (code === 0x22) {
        i++
        return true
      }
      if (code === 0x5c) {
        const next = text[i + 1]
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return false
          i += 6
        } else if (next !== undefined && "\"\\/bfnrt".includes(next)) i += 2
        else return false
      } else if (code < 0x20) return false
      else i++
    }
    return false
  }
  const scanNumber = (): boolean => {
    const match = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
    match.lastIndex = i
    if (!match.test(text)) return false
    i = match.lastIndex
    return true
  }
  const scanLiteral = (): boolean => {
    for (const literal of ["true", "false", "null"]) {
      if (text.startsWith(literal, i)) {
        i += literal.length
        return true
      }
    }
    return false
  }

  skipWhitespace()
  out = "" // whitespace before the value is not part of it
  while (i < n && expect !== "end") {
    const code = text.charCodeAt(i)
    switch (expect) {
      case "value":
      case "value-or-close":
        if (expect === "value-or-close" && code === 0x5d) {
          stack.pop()
          i++
          afterValue()
        } else if (code === 0x7b || code === 0x5b) {
          if (stack.length >= MAX_DEPTH) return { ok: false, at: i }
          stack.push(code)
          i++
          expect = code === 0x7b ? "key-or-close" : "value-or-close"
        } else if (code === 0x22) {
          if (!scanString()) return { ok: false, at: i }
          afterValue()
        } else if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
          if (!scanNumber()) return { ok: false, at: i }
          afterValue()
        } else if (scanLiteral()) afterValue()
        else return { ok: false, at: i }
        break
      case "key-or-close":
        if (code === 0x7d) {
          stack.pop()
          i++
          afterValue()
        } else if (code === 0x22) {
          if (!scanString()) return { ok: false, at: i }
          expect = "colon"
        } else return { ok: false, at: i }
        break
      case "colon":
        if (code !== 0x3a) return { ok: false, at: i }
        i++
        expect = "value"
        break
      case "comma-or-close": {
        const open = stack[stack.length - 1]
        if (code === 0x2c) {
          i++
          if (open === 0x7b) {
            skipWhitespace()
            if (text.charCodeAt(i) !== 0x22 || !scanString()) return { ok: false, at: i }
            expect = "colon"
          } else expect = "value"
        } else if ((code === 0x7d && open === 0x7b) || (code === 0x5d && open === 0x5b)) {
          stack.pop()
          i++
          afterValue()
        } else return { ok: false, at: i }
        break
      }
    }
    // after the value's last character nothing more belongs to it, not even whitespace
    if (!complete()) skipWhitespace()
  }
  if (expect !== "end") return { ok: false, at: i }
  return { ok: true, end: i, compact: out + text.slice(runStart, i) }
}
