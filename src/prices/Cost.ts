/**
 * What one upstream call cost, from its usage and its model's price, in whole micro-dollars per part:
 * integers add up exactly over any number of requests, where dollars as floats drift. Each part is
 * rounded once (half up) and the total is the sum of the rounded parts, so the parts always add up.
 *
 * The usage is the gateway's own (`kernel/Canonical.ts`): prompt tokens include the cache reads and
 * writes (Anthropic's separate counts are added back by its adapter, Gemini's cached content is already
 * in its prompt count), and completion tokens include reasoning. A tier applies by the call's prompt
 * tokens, so a tool loop's rounds and a failover's billed attempts are each priced on their own.
 */
import type { Usage } from "../kernel/Canonical.ts"
import type { ModelPrice, Rate } from "./ModelPrice.ts"

/** Micro-dollars (1e-6 $) per part; reasoning is part of output. */
export interface Cost {
  readonly input: number
  readonly cachedInput: number
  readonly cacheWrite: number
  readonly output: number
  readonly total: number
}

export const ZERO_COST: Cost = { input: 0, cachedInput: 0, cacheWrite: 0, output: 0, total: 0 }

/**
 * Dollars per million tokens at `promptTokens` of input: the highest tier reached, else the base. That
 * is also micro-dollars per token.
 */
export const perMillion = (rate: Rate, promptTokens: number): number => {
  let price = rate.base
  for (const tier of rate.tiers) if (promptTokens >= tier.start) price = tier.price
  return price
}

/** Dollars per million tokens is micro-dollars per token. */
const microDollars = (tokens: number, rate: Rate, promptTokens: number): number =>
  tokens <= 0 ? 0 : Math.round(tokens * perMillion(rate, promptTokens))

export const costOf = (price: ModelPrice, usage: Usage): Cost => {
  const prompt = usage.promptTokens
  const cached = Math.min(usage.cachedTokens, prompt)
  const written = Math.min(usage.cacheWriteTokens ?? 0, prompt - cached)
  const input = microDollars(prompt - cached - written, price.input, prompt)
  const cachedInput = microDollars(cached, price.cachedInput ?? price.input, prompt)
  // the 1-hour cache's writes at their own rate, the rest at the 5-minute one
  const writtenHour = Math.min(usage.cacheWrite1hTokens ?? 0, written)
  const cacheWrite = microDollars(written - writtenHour, price.cacheWrite ?? price.input, prompt) +
    microDollars(writtenHour, price.cacheWrite1h ?? price.cacheWrite ?? price.input, prompt)
  const output = microDollars(usage.completionTokens, price.output, prompt)
  return { input, cachedInput, cacheWrite, output, total: input + cachedInput + cacheWrite + output }
}

export const addCost = (a: Cost, b: Cost): Cost => ({
  input: a.input + b.input,
  cachedInput: a.cachedInput + b.cachedInput,
  cacheWrite: a.cacheWrite + b.cacheWrite,
  output: a.output + b.output,
  total: a.total + b.total
})

/** Micro-dollars as a dollar figure with six decimals (`0.001250`), exactly: no float on the way. */
export const dollars = (micro: number): string => {
  const sign = micro < 0 ? "-" : ""
  const digits = String(Math.abs(micro)).padStart(7, "0")
  return `${sign}${digits.slice(0, -6)}.${digits.slice(-6)}`
}
