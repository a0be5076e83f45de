/**
 * The cost of one upstream call in micro-dollars, for each upstream's usage as its adapter reports it:
 * OpenAI's prompt tokens include the cached ones; Anthropic's input leaves out cache reads and writes,
 * which its adapter adds back; Gemini's thoughts are output. Tiers apply by the call's prompt tokens,
 * parts are rounded once and always add up to the total.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Usage } from "../../../src/kernel/Canonical.ts"
import { addCost, costOf, dollars, ZERO_COST } from "../../../src/prices/Cost.ts"
import { FREE, type ModelPrice } from "../../../src/prices/ModelPrice.ts"
import { usageOf as anthropicUsage } from "../../../src/providers/anthropic/AnthropicResponse.ts"
import { geminiUsage } from "../../../src/providers/gemini/GeminiResponse.ts"

const flat = (base: number) => ({ base, tiers: [] })

const gpt4o: ModelPrice = {
  input: flat(2.5),
  cachedInput: flat(1.25),
  cacheWrite: null,
  cacheWrite1h: null,
  output: flat(10)
}
const sonnet: ModelPrice = {
  input: flat(3),
  cachedInput: flat(0.3),
  cacheWrite: flat(3.75),
  cacheWrite1h: flat(6),
  output: flat(15)
}
const geminiPro: ModelPrice = {
  input: { base: 1.25, tiers: [{ start: 200_000, price: 2.5 }] },
  cachedInput: { base: 0.125, tiers: [{ start: 200_000, price: 0.25 }] },
  cacheWrite: null,
  cacheWrite1h: null,
  output: { base: 10, tiers: [{ start: 200_000, price: 15 }] }
}

const usage = (fields: Partial<Usage> & Pick<Usage, "promptTokens" | "completionTokens">): Usage => ({
  totalTokens: fields.promptTokens + fields.completionTokens,
  cachedTokens: 0,
  reasoningTokens: 0,
  ...fields
})

describe("costOf", () => {
  it("OpenAI: cached tokens are part of the prompt, billed at the cache-read rate", () => {
    // 1,000 prompt tokens of which 200 cached, 100 output: 800 x 2.5 + 200 x 1.25 + 100 x 10 micro-dollars
    const cost = costOf(gpt4o, usage({ promptTokens: 1000, cachedTokens: 200, completionTokens: 100 }))
    assert.deepStrictEqual(cost, { input: 2000, cachedInput: 250, cacheWrite: 0, output: 1000, total: 3250 })
  })

  it("Anthropic: input_tokens leave out cache reads and writes; each is billed at its own rate", () => {
    const reported = anthropicUsage({
      input_tokens: 50,
      cache_read_input_tokens: 10_000,
      cache_creation_input_tokens: 2_000,
      output_tokens: 300
    })
    assert.strictEqual(reported.promptTokens, 12_050)
    assert.deepStrictEqual(costOf(sonnet, reported), {
      input: 150,
      cachedInput: 3000,
      cacheWrite: 7500,
      output: 4500,
      total: 15_150
    })
  })

  it("Anthropic: writes to the 1-hour cache at their own rate, the rest at the 5-minute one", () => {
    const reported = anthropicUsage({
      input_tokens: 0,
      cache_creation_input_tokens: 1_000,
      cache_creation: { ephemeral_5m_input_tokens: 400, ephemeral_1h_input_tokens: 600 },
      output_tokens: 0
    })
    // 400 x 3.75 + 600 x 6
    assert.strictEqual(costOf(sonnet, reported).cacheWrite, 1_500 + 3_600)
    // a price without a 1-hour rate bills them as 5-minute writes
    assert.strictEqual(costOf({ ...sonnet, cacheWrite1h: null }, reported).cacheWrite, 3_750)
  })

  it("Gemini: thoughts are output; above 200k prompt tokens every rate is the tier's", () => {
    const small = geminiUsage({ promptTokenCount: 1000, candidatesTokenCount: 100, thoughtsTokenCount: 400 })
    assert.deepStrictEqual(costOf(geminiPro, small), {
      input: 1250,
      cachedInput: 0,
      cacheWrite: 0,
      output: 5000,
      total: 6250
    })
    const large = geminiUsage({ promptTokenCount: 300_000, cachedContentTokenCount: 100_000, candidatesTokenCount: 10 })
    assert.deepStrictEqual(costOf(geminiPro, large), {
      input: 500_000,
      cachedInput: 25_000,
      cacheWrite: 0,
      output: 150,
      total: 525_150
    })
  })

  it("a part the price leaves out is billed as input; a free model costs 0", () => {
    const noCacheRate: ModelPrice = { ...gpt4o, cachedInput: null }
    assert.strictEqual(
      costOf(noCacheRate, usage({ promptTokens: 1000, cachedTokens: 200, completionTokens: 0 })).total,
      2500
    )
    assert.deepStrictEqual(costOf(FREE, usage({ promptTokens: 5000, completionTokens: 500 })), ZERO_COST)
  })

  it("parts are rounded once and add up to the total; sums stay exact", () => {
    const cheap: ModelPrice = { ...gpt4o, input: flat(0.15), cachedInput: flat(0.075), output: flat(0.6) }
    const one = costOf(cheap, usage({ promptTokens: 7, cachedTokens: 3, completionTokens: 1 }))
    assert.strictEqual(one.total, one.input + one.cachedInput + one.cacheWrite + one.output)
    let sum = ZERO_COST
    for (let i = 0; i < 1000; i++) sum = addCost(sum, costOf(gpt4o, usage({ promptTokens: 3, completionTokens: 1 })))
    assert.strictEqual(sum.total, 1000 * (8 + 10))
  })

  it("counts reported as more cached than prompt do not make a negative part", () => {
    const odd = costOf(gpt4o, usage({ promptTokens: 10, cachedTokens: 50, cacheWriteTokens: 5, completionTokens: 0 }))
    assert.deepStrictEqual(odd, { input: 0, cachedInput: 13, cacheWrite: 0, output: 0, total: 13 })
  })
})

describe("dollars", () => {
  it("writes micro-dollars with six decimals, exactly", () => {
    assert.deepStrictEqual([0, 1, 1250, 3_250_000, 123_456_789].map(dollars), [
      "0.000000",
      "0.000001",
      "0.001250",
      "3.250000",
      "123.456789"
    ])
  })
})
