/**
 * OpenAI's o200k tokenizer (`gpt-tokenizer`), loaded on first use only: its table is megabytes that a
 * gateway that never counts should not hold. What counts tokens (`count_tokens`, compression's
 * savings) goes through here, so the table is loaded once.
 */

export type TokenCounter = (text: string) => number

let counter: Promise<TokenCounter> | undefined

/**
 * Runs that the o200k pre-tokenizer keeps as one piece however long they are: letters, or symbols
 * without a space. BPE merges a piece in time quadratic in its length (100,000 letters: 12 s, measured),
 * so a request with such a run could hold the event loop for minutes; these runs are counted in slices
 * of `SLICE` characters instead, linear, off by at most a token per slice (a few percent of such a
 * run, which no real prompt has). Every other text is counted exactly.
 */
const LONG_PIECE = /[\p{L}\p{M}]{256,}|[^\s\p{L}\p{N}]{256,}/gu
const SLICE = 128

/** `count` in time linear in the text's length (see `LONG_PIECE`). */
export const boundedCounter = (count: TokenCounter): TokenCounter => (text) => {
  if (text.length < 256) return count(text)
  let total = 0
  let from = 0
  for (const match of text.matchAll(LONG_PIECE)) {
    total += count(text.slice(from, match.index))
    const run = match[0]
    for (let i = 0; i < run.length; i += SLICE) total += count(run.slice(i, i + SLICE))
    from = match.index + run.length
  }
  return from === 0 ? count(text) : total + count(text.slice(from))
}

/** The o200k counter, loaded once. */
export const loadTokenizer = (): Promise<TokenCounter> =>
  counter ??= import("gpt-tokenizer/encoding/o200k_base").then((module) =>
    boundedCounter((text: string) => module.countTokens(text))
  )
