/**
 * What compression saved, in o200k tokens (`kernel/Tokenizer.ts`): for each changed text, its tokens
 * before less its tokens after. Only what changed is counted, never the whole prompt, and a text
 * counted once is remembered (by a hash of it), since a coding agent sends the same tool results again
 * on every turn. Counting runs a text at a time on the event loop's check phase (`setImmediate`), so the
 * request that asked for it goes upstream first and the count overlaps the upstream's work.
 *
 * The net saving prices it as a bill does: a token the upstream read from its prompt cache costs about
 * a tenth of a fresh one. Compression is prefix-stable, so the cached part of a prompt is its start: a
 * change that sits within the cached share of the conversation counts at a tenth.
 */
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

const savedBy = (count: TokenCounter, change: Change): number => {
  const key = keyOf(change)
  const known = remembered.get(key)
  if (known !== undefined) {
    // most recently used last
    remembered.delete(key)
    remembered.set(key, known)
    return known
  }
  const saved = count(change.before) - count(change.after)
  remembered.set(key, saved)
  if (remembered.size > REMEMBERED) remembered.delete(remembered.keys().next().value!)
  return saved
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** The tokens each change saved, counted a text per event-loop turn; nothing to count, nothing loaded. */
export const countSavings = async (changes: ReadonlyArray<PlacedChange>): Promise<ReadonlyArray<Saving>> => {
  if (changes.length === 0) return []
  const count = await loadTokenizer()
  const savings: Array<Saving> = []
  for (const change of changes) {
    await nextTurn()
    savings.push({ tokens: savedBy(count, change), at: change.at })
  }
  return savings
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
