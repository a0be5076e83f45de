/**
 * The effective price of a model: a routing file's own price first (first matching glob), the built-in
 * `local` provider free, else `@pydantic/genai-prices`' bundled catalogue found by vendor, provider name
 * or API address, else unknown (null, never 0). The catalogue's figures are those of the pinned package.
 */
import { assert, describe, it } from "@effect/vitest"
import * as catalogue from "@pydantic/genai-prices"
import { Redacted } from "effect"
import { needsCatalogue, pricesOf } from "../../../src/prices/Prices.ts"
import type { AdapterName, ProviderSpec } from "../../../src/providers/Adapters.ts"

const spec = (name: string, adapter: AdapterName, baseUrl = ""): ProviderSpec => ({
  name,
  adapter,
  baseUrl,
  apiKey: Redacted.make("k"),
  headers: {},
  models: []
})

const providers = [
  spec("openai", "openai", "https://api.openai.com/v1"),
  spec("anthropic", "anthropic", "https://api.anthropic.com"),
  spec("gemini", "gemini", "https://generativelanguage.googleapis.com"),
  spec("groq", "openai-compatible", "https://api.groq.com/openai/v1"),
  spec("my-groq", "openai-compatible", "https://api.groq.com/openai/v1"),
  spec("lab", "openai-compatible", "http://10.0.0.7:8000/v1"),
  spec("local", "local")
]

const flat = (base: number) => ({ base, tiers: [] })

describe("pricesOf", () => {
  const prices = pricesOf(providers, {
    lab: { "qwen-7b": { input: 0.1, output: 0.3, cached_input: 0.01 }, "*": { input: 0.2, output: 0.6 } },
    openai: { "ft:*": { input: 3, output: 12 } }
  }, catalogue)

  it("OpenAI's catalogue price, cached input apart; a dated model id finds its model", () => {
    const gpt = prices.of("openai", "gpt-4o")
    assert.strictEqual(gpt.source, "catalogue")
    assert.deepStrictEqual(gpt.price, {
      input: flat(2.5),
      cachedInput: flat(1.25),
      cacheWrite: null,
      cacheWrite1h: null,
      output: flat(10)
    })
    const dated = prices.of("openai", "gpt-4o-2024-08-06")
    assert.strictEqual(dated.source, "catalogue")
    assert.isNotNull(dated.catalogueModel)
  })

  it("Anthropic's cache reads and its 5-minute and 1-hour writes, each at its own rate", () => {
    const sonnet = prices.of("anthropic", "claude-sonnet-4-20250514")
    assert.deepStrictEqual(sonnet.price, {
      input: flat(3),
      cachedInput: flat(0.3),
      cacheWrite: flat(3.75),
      cacheWrite1h: flat(6),
      output: flat(15)
    })
  })

  it("Gemini's tiered prices above 200k input tokens", () => {
    const pro = prices.of("gemini", "gemini-2.5-pro")
    assert.deepStrictEqual(pro.price?.input, { base: 1.25, tiers: [{ start: 200_000, price: 2.5 }] })
    assert.deepStrictEqual(pro.price?.output, { base: 10, tiers: [{ start: 200_000, price: 15 }] })
  })

  it("an OpenAI-compatible provider is found by its name, else by its API's address", () => {
    assert.strictEqual(prices.of("groq", "llama-3.3-70b-versatile").source, "catalogue")
    assert.deepStrictEqual(
      prices.of("my-groq", "llama-3.3-70b-versatile"),
      prices.of("groq", "llama-3.3-70b-versatile")
    )
  })

  it("the routing file's price wins, first matching glob first, also over the catalogue", () => {
    assert.deepStrictEqual(prices.of("lab", "qwen-7b"), {
      source: "routing",
      catalogueModel: null,
      price: { input: flat(0.1), cachedInput: flat(0.01), cacheWrite: null, cacheWrite1h: null, output: flat(0.3) }
    })
    assert.deepStrictEqual(prices.of("lab", "anything-else").price?.output, flat(0.6))
    assert.strictEqual(prices.of("openai", "ft:gpt-4o:acme").source, "routing")
  })

  it("local is free; an unknown model, provider or address costs null, never 0", () => {
    assert.strictEqual(prices.of("local", "echo").source, "free")
    assert.deepStrictEqual(prices.of("local", "echo").price?.output, flat(0))
    for (const [provider, model] of [["openai", "no-such-model"], ["nobody", "gpt-4o"]] as const) {
      assert.deepStrictEqual(prices.of(provider, model), { price: null, source: null, catalogueModel: null })
    }
    const unpriced = pricesOf([spec("lab", "openai-compatible", "http://10.0.0.7:8000/v1")], {}, catalogue)
    assert.isNull(unpriced.of("lab", "qwen-7b").price)
  })

  it("without the catalogue, only routing prices and local are known", () => {
    const bare = pricesOf(providers, { lab: { "*": { input: 0.2, output: 0.6 } } }, undefined)
    assert.deepStrictEqual(bare.of("openai", "gpt-4o"), { price: null, source: null, catalogueModel: null })
    assert.strictEqual(bare.of("lab", "anything").source, "routing")
    assert.strictEqual(bare.of("local", "echo").source, "free")
  })
})

describe("needsCatalogue", () => {
  it("a gateway serving local alone does not load the catalogue; any other provider does", () => {
    assert.isFalse(needsCatalogue([spec("local", "local")]))
    assert.isFalse(needsCatalogue([]))
    assert.isTrue(needsCatalogue([spec("local", "local"), spec("lab", "openai-compatible", "http://10.0.0.7:8000/v1")]))
  })
})
