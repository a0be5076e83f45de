/**
 * What compression saved, in o200k tokens (`kernel/Tokenizer.ts`): for each changed text, its tokens
 * before less its tokens after. Only what changed is counted, never the whole prompt: o200k cuts a text
 * into pieces with one regular expression before its byte-pair merges, which never cross a piece, so a
 * text's tokens are the sum of its pieces' tokens. The pieces a text shares with its compressed form
 * cancel out; only the others are counted, each distinct piece once (and remembered). A change counted
 * once is remembered too (by a hash of it), since a coding agent sends the same tool results again on
 * every turn. Counting runs a text at a time on the event loop's check phase (`setImmediate`), so the
 * request that asked for it goes upstream first and the count overlaps the upstream's work.
 *
 * The net saving prices it as a bill does: a token the upstream read from its prompt cache costs about
 * a tenth of a fresh one. Compression is prefix-stable, so the cached part of a prompt is its start: a
 * change that sits within the cached share of the conversation counts at a tenth.
 */
import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants"
import { createHash } from "node:crypto"
import { loadTokenizer, type TokenCounter } from "../kernel/Tokenizer.ts"
import type { Change } from "./CompressMessages.ts"

/** A change and where it sits in the conversation sent: 0 its start, 1 its end. */
export interface PlacedChange extends Change {
  readonly at: number
}

export interface Saving {
  readonly tokens: number
  readonly at: number
}

/** A cache read's price against fresh input (Anthropic's and OpenAI's published ratio). */
export const CACHE_READ_PRICE = 0.1

const REMEMBERED = 4096
const remembered = new Map<string, number>()

const keyOf = (change: Change): string =>
  `${createHash("sha1").update(change.before).digest("base64")}:${change.before.length}:${change.after.length}`

/** o200k's pre-tokenizer, as `gpt-tokenizer` has it (a copy: its own `lastIndex`). */
const O200K_PIECES = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, "gu")

/** The pieces of `text`, counted into `into` with `sign` (+1 before, -1 after). */
const tally = (text: string, into: Map<string, number>, sign: 1 | -1): void => {
  O200K_PIECES.lastIndex = 0
  for (let match = O200K_PIECES.exec(text); match !== null; match = O200K_PIECES.exec(text)) {
    const piece = match[0]
    into.set(piece, (into.get(piece) ?? 0) + sign)
  }
}

const PIECES_REMEMBERED = 50_000
const pieceTokens = new Map<string, number>()

const tokensOfPiece = (count: TokenCounter, piece: string): number => {
  let tokens = pieceTokens.get(piece)
  if (tokens === undefined) {
    tokens = count(piece)
    if (pieceTokens.size >= PIECES_REMEMBERED) pieceTokens.clear()
    pieceTokens.set(piece, tokens)
  }
  return tokens
}

/** Tokens before less tokens after, from the pieces that differ. */
export const tokensSaved = (count: TokenCounter, before: string, after: string): number => {
  const difference = new Map<string, number>()
  tally(before, difference, 1)
  tally(after, difference, -1)
  let saved = 0
  for (const [piece, times] of difference) if (times !== 0) saved += times * tokensOfPiece(count, piece)
  return saved
}

const savedBy = (count: TokenCounter, change: Change): number => {
  const key = keyOf(change)
  const known = remembered.get(key)
  if (known !== undefined) {
    // most recently used last
    remembered.delete(key)
    remembered.set(key, known)
    return known
  }
  const saved = tokensSaved(count, change.before, change.after)
  remembered.set(key, saved)
  if (remembered.size > REMEMBERED) remembered.delete(remembered.keys().next().value!)
  return saved
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * The tokens each change saved, counted a text per event-loop turn; nothing to count, nothing loaded.
 * A text the tokenizer cannot count (it never should) counts as no saving: counting never fails a request.
 */
export const countSavings = async (changes: ReadonlyArray<PlacedChange>): Promise<ReadonlyArray<Saving>> => {
  if (changes.length === 0) return []
  const count = await loadTokenizer().catch(() => undefined)
  const savings: Array<Saving> = []
  for (const change of changes) {
    await nextTurn()
    let tokens = 0
    try {
      if (count !== undefined) tokens = savedBy(count, change)
    } catch {
      tokens = 0
    }
    savings.push({ tokens, at: change.at })
  }
  return savings
}

/** Forgets the counted changes and, unless `keepPieces`, the pieces' counts (for the bench). */
export const forgetCounts = (keepPieces = false): void => {
  remembered.clear()
  if (!keepPieces) pieceTokens.clear()
}

export const totalSaved = (savings: ReadonlyArray<Saving>): number =>
  savings.reduce((sum, saving) => sum + saving.tokens, 0)

/**
 * The saving in fresh-input tokens: a change inside the cached share of the prompt (`cachedTokens` of
 * `promptTokens`) is priced as a cache read.
 */
export const netSaved = (
  savings: ReadonlyArray<Saving>,
  usage: { readonly promptTokens: number; readonly cachedTokens: number }
): number => {
  const cachedShare = usage.promptTokens > 0 ? Math.min(1, usage.cachedTokens / usage.promptTokens) : 0
  let net = 0
  for (const saving of savings) net += saving.at < cachedShare ? saving.tokens * CACHE_READ_PRICE : saving.tokens
  return Math.round(net)
}
