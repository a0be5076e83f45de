/**
 * What compression saved a request in money, net of prompt caching, in micro-dollars (negative when it
 * cost more than it saved):
 *
 * - Each change's saved tokens are priced at the rate they would have been billed at: a change within
 *   the cached share of the prompt (`cachedTokens` of `promptTokens`; compression is prefix-stable, so
 *   the cached part is the start) saves only the cache-read price, any other the input price. A tier
 *   applies by the prompt as it was sent.
 * - A cache miss the gateway caused is counted against it: when `aggressive` cuts for the first time in
 *   the conversation of a client without tools of its own, `svc_expand_output` joins the tools, which
 *   come before everything else, so what the previous turn had cached (`cacheBreak`: its share of this
 *   prompt) is read again at the price of a fresh write (Anthropic's cache write, else input) instead of
 *   a cache read. (An agent gets the tool from its first turn: nothing breaks.)
 *
 * A provider without a cache-read price caches nothing, so nothing is lost there and saved tokens save
 * the input price.
 */
import { perMillion } from "../prices/Cost.ts"
import type { ModelPrice } from "../prices/ModelPrice.ts"
import type { Saving } from "./Savings.ts"

export const savedMicroDollars = (
  savings: ReadonlyArray<Saving>,
  usage: { readonly promptTokens: number; readonly cachedTokens: number },
  price: ModelPrice,
  cacheBreak: number
): number => {
  const prompt = usage.promptTokens
  const input = perMillion(price.input, prompt)
  const read = price.cachedInput === null ? input : perMillion(price.cachedInput, prompt)
  const cachedShare = prompt > 0 ? Math.min(1, usage.cachedTokens / prompt) : 0
  let saved = 0
  for (const saving of savings) saved += saving.tokens * (saving.at < cachedShare ? read : input)
  const rewrite = price.cacheWrite === null ? input : perMillion(price.cacheWrite, prompt)
  const missed = Math.round(prompt * Math.min(1, Math.max(0, cacheBreak))) * Math.max(0, rewrite - read)
  return Math.round(saved - missed)
}
