/**
 * The corpus's saving in dollars, for one model of each provider at its catalogue price
 * (`@pydantic/genai-prices`, as the gateway prices requests), net of prompt caching.
 *
 * Each category's outputs are one coding-agent session's tool results, in order; the session is taken
 * to last `TURNS` turns, output i arriving on turn i and sent again on every later turn, as agents
 * resend the whole conversation. A saved token is then billed once fresh (the input price, or the
 * cache-write price where the provider charges writes: Anthropic) and read from the prompt cache on
 * every later turn, so caching takes most of the saving away: it is counted that way. "Without
 * caching" prices every send at input.
 *
 * Under `aggressive`, `svc_expand_output` must be in the tools for a cut to be read back. Two ways to
 * offer it, both priced: from the session's first turn (what the gateway does for an agent: its
 * definition sent every turn, read from the cache after the first), or at the session's first cut (the
 * tools, which come first in the prompt, change then: what earlier turns had cached is written, or read
 * fresh, again instead of read from the cache, once per session that cuts).
 */
import { calcPrice, findProvider } from "@pydantic/genai-prices"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { ExpandOutput } from "../../plugins/svc_expand_output/index.ts"
import { compressAggressive, seenLinesOf } from "../../src/compression/Aggressive.ts"
import { compressSafe } from "../../src/compression/Safe.ts"
import { perMillion } from "../../src/prices/Cost.ts"
import { fromCatalogue, type ModelPrice } from "../../src/prices/ModelPrice.ts"

export const TURNS = 20

export const MODELS: ReadonlyArray<readonly [provider: string, model: string]> = [
  ["openai", "gpt-4.1"],
  ["anthropic", "claude-sonnet-4-5"],
  ["google", "gemini-2.5-pro"]
]

type Level = "safe" | "aggressive"

interface Session {
  /** Tokens saved per output, in order. */
  readonly saved: ReadonlyArray<number>
  /** `aggressive`: the tokens sent before the session's first cut (what the cache held); 0 without a cut. */
  readonly brokenPrefix: number
}

const sessionOf = (texts: ReadonlyArray<string>, level: Level): Session => {
  const seen = new Set<string>()
  const saved: Array<number> = []
  let sent = 0
  let brokenPrefix = 0
  let cut = false
  for (const text of texts) {
    let after: string
    if (level === "safe") after = compressSafe(text)
    else {
      const result = compressAggressive(text, seen)
      after = result.text
      for (const line of seenLinesOf(after)) seen.add(line)
      if (result.cuts.length > 0 && !cut) {
        cut = true
        brokenPrefix = sent
      }
    }
    const afterTokens = countTokens(after)
    saved.push(countTokens(text) - afterTokens)
    sent += afterTokens
  }
  return { saved, brokenPrefix }
}

const priceOf = (provider: string, model: string): ModelPrice => {
  const found = calcPrice({}, model, { provider: findProvider({ providerId: provider })! })
  const price = found === null ? null : fromCatalogue(found.model_price)
  if (price === null) throw new Error(`no catalogue price for ${provider}/${model}`)
  return price
}

/** `svc_expand_output`'s definition as it goes upstream among the tools, in o200k tokens. */
const EXPAND_TOOL_TOKENS = countTokens(JSON.stringify({
  type: "function",
  function: { name: ExpandOutput.id, description: ExpandOutput.description, parameters: ExpandOutput.jsonSchema }
}))

interface Dollars {
  readonly uncached: number
  /** Net of caching, `aggressive`'s tool offered at the first cut: less the cache it breaks. */
  readonly net: number
  readonly miss: number
  /** Net of caching, the tool offered from the first turn: less its definition on every turn. */
  readonly netFirstTurn: number
  readonly definition: number
}

const dollarsOf = (sessions: ReadonlyArray<Session>, price: ModelPrice): Dollars => {
  // a session's prompts stay under the tiers' 200k tokens: base rates
  const input = perMillion(price.input, 0)
  const read = price.cachedInput === null ? input : perMillion(price.cachedInput, 0)
  const fresh = price.cacheWrite === null ? input : perMillion(price.cacheWrite, 0)
  let uncached = 0
  let net = 0
  let miss = 0
  const definition = sessions.length * EXPAND_TOOL_TOKENS * (fresh + (TURNS - 1) * read)
  for (const session of sessions) {
    session.saved.forEach((tokens, i) => {
      const later = TURNS - i - 1
      uncached += tokens * input * (later + 1)
      net += tokens * (fresh + later * read)
    })
    miss += session.brokenPrefix * (fresh - read)
  }
  return {
    uncached: uncached / 1e6,
    net: (net - miss) / 1e6,
    miss: miss / 1e6,
    netFirstTurn: (net - definition) / 1e6,
    definition: definition / 1e6
  }
}

/** The report's lines: per model and level, dollars saved over the corpus's sessions. */
export const dollarLines = (sessions: ReadonlyArray<ReadonlyArray<string>>): ReadonlyArray<string> => {
  const byLevel = {
    safe: sessions.map((texts) => sessionOf(texts, "safe")),
    aggressive: sessions.map((texts) => sessionOf(texts, "aggressive"))
  }
  const money = (usd: number) => `$${usd.toFixed(4)}`
  const lines = [
    `Saved in dollars over the corpus's ${sessions.length} sessions, each taken as ${TURNS} turns (every tool result sent again on each later turn), at catalogue prices:`,
    "",
    "| model | safe: without caching | safe: net of caching | aggressive: without caching | aggressive: net, svc_expand_output from the first turn (the gateway's way) | aggressive: net, svc_expand_output at the first cut |",
    "| --- | ---: | ---: | ---: | ---: | ---: |"
  ]
  for (const [provider, model] of MODELS) {
    const price = priceOf(provider, model)
    const safe = dollarsOf(byLevel.safe, price)
    const aggressive = dollarsOf(byLevel.aggressive, price)
    lines.push(
      `| ${provider}/${model} | ${money(safe.uncached)} | ${money(safe.net)} | ${money(aggressive.uncached)} | ${
        money(aggressive.netFirstTurn)
      } (its definition -${money(aggressive.definition)}) | ${money(aggressive.net)} (the broken cache -${
        money(aggressive.miss)
      }) |`
    )
  }
  lines.push(
    "",
    `svc_expand_output's definition: ${EXPAND_TOOL_TOKENS} tokens; ${
      byLevel.aggressive.filter((session) => session.brokenPrefix > 0).length
    } of the ${sessions.length} sessions cut at aggressive.`
  )
  return lines
}
