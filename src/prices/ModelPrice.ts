/**
 * A model's price as the gateway bills it: dollars per million tokens for input, cached input (a cache
 * read), cache writes (Anthropic's 5-minute and 1-hour ones apart) and output, each possibly tiered by
 * the request's input tokens (Gemini's "above 200k"). Read from `@pydantic/genai-prices`' catalogue or
 * from a routing file's own `prices`; pure, so the cost of a request can be computed and tested alone.
 */
import type { TieredPrices } from "@pydantic/genai-prices"

/** One rate: `base` dollars per million tokens, or a tier's price once the input reaches its `start`. */
export interface Rate {
  readonly base: number
  readonly tiers: ReadonlyArray<{ readonly start: number; readonly price: number }>
}

export interface ModelPrice {
  readonly input: Rate
  /** A cached input token (a cache read); null: the catalogue names none, billed as input. */
  readonly cachedInput: Rate | null
  /** A token written to the cache (5 minutes); null: billed as input. */
  readonly cacheWrite: Rate | null
  /** A token written to the 1-hour cache; null: as `cacheWrite`. */
  readonly cacheWrite1h: Rate | null
  readonly output: Rate
}

/** Where an effective price comes from. */
export type PriceSource = "routing" | "catalogue" | "free"

const flat = (base: number): Rate => ({ base, tiers: [] })

/** A catalogue value (a number or `TieredPrices`) as a rate; undefined when the catalogue has none. */
const rateOf = (value: number | TieredPrices | undefined): Rate | null => {
  if (value === undefined) return null
  if (typeof value === "number") return flat(value)
  return { base: value.base, tiers: value.tiers.map((tier) => ({ start: tier.start, price: tier.price })) }
}

/** A catalogue entry's token prices; null when it prices no input or output tokens (an embedding-only model). */
export const fromCatalogue = (
  prices: Readonly<Record<string, number | TieredPrices | undefined>>
): ModelPrice | null => {
  const input = rateOf(prices["input_mtok"])
  const output = rateOf(prices["output_mtok"])
  if (input === null || output === null) return null
  return {
    input,
    cachedInput: rateOf(prices["cache_read_mtok"]),
    cacheWrite: rateOf(prices["cache_write_mtok"]),
    cacheWrite1h: rateOf(prices["cache_write_1h_mtok"]),
    output
  }
}

/** A routing file's price entry, dollars per million tokens; what it leaves out is billed as input. */
export interface PriceInput {
  readonly input: number
  readonly output: number
  readonly cached_input?: number | undefined
  readonly cache_write?: number | undefined
}

export const fromRouting = (entry: PriceInput): ModelPrice => ({
  input: flat(entry.input),
  cachedInput: entry.cached_input === undefined ? null : flat(entry.cached_input),
  cacheWrite: entry.cache_write === undefined ? null : flat(entry.cache_write),
  cacheWrite1h: null,
  output: flat(entry.output)
})

/** Nothing to pay (the built-in `local` provider). */
export const FREE: ModelPrice = {
  input: flat(0),
  cachedInput: flat(0),
  cacheWrite: flat(0),
  cacheWrite1h: flat(0),
  output: flat(0)
}
