/** Savings counted with o200k (from the pieces that differ), remembered, and priced with cache reads. */
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { compressAggressive } from "../../src/compression/Aggressive.ts"
import { compressSafe } from "../../src/compression/Safe.ts"
import { CACHE_READ_PRICE, countSavings, netSaved, tokensSaved, totalSaved } from "../../src/compression/Savings.ts"

describe("countSavings", () => {
  it("counts each change's tokens before less after, with the o200k tokenizer", async () => {
    const before = JSON.stringify({ list: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `n${i}` })) }, null, 2)
    const after = JSON.stringify(JSON.parse(before))
    const savings = await countSavings([{ before, after, at: 0.25 }, {
      before: "a   \n\n\nb",
      after: "a\n\nb",
      at: 0.75
    }])
    expect(savings).toEqual([
      { tokens: countTokens(before) - countTokens(after), at: 0.25 },
      { tokens: countTokens("a   \n\n\nb") - countTokens("a\n\nb"), at: 0.75 }
    ])
    expect(totalSaved(savings)).toBe(savings[0]!.tokens + savings[1]!.tokens)
    // the same change again: the same figure, from memory
    expect(await countSavings([{ before, after, at: 0.5 }])).toEqual([{ tokens: savings[0]!.tokens, at: 0.5 }])
  })

  it("nothing to count is nothing", async () => {
    expect(await countSavings([])).toEqual([])
  })
})

describe("netSaved", () => {
  it("prices changes inside the cached share of the prompt as cache reads", () => {
    const savings = [{ tokens: 100, at: 0.1 }, { tokens: 100, at: 0.9 }]
    expect(netSaved(savings, { promptTokens: 1000, cachedTokens: 500 })).toBe(Math.round(100 * CACHE_READ_PRICE + 100))
    expect(netSaved(savings, { promptTokens: 1000, cachedTokens: 0 })).toBe(200)
    expect(netSaved(savings, { promptTokens: 1000, cachedTokens: 1000 })).toBe(20)
    expect(netSaved(savings, { promptTokens: 0, cachedTokens: 0 })).toBe(200)
  })
})

describe("tokensSaved: only the pieces that differ are counted", () => {
  const corpusDir = fileURLToPath(new URL("../../bench/compression/corpus", import.meta.url))
  const corpus = readdirSync(corpusDir).flatMap((category) =>
    readdirSync(join(corpusDir, category)).map((name) => readFileSync(join(corpusDir, category, name), "utf8"))
  )

  it("gives exactly o200k's count before less after, over the corpus at both levels", () => {
    for (const text of corpus) {
      for (const after of [compressSafe(text), compressAggressive(text, new Set()).text]) {
        expect(tokensSaved(countTokens, text, after)).toBe(countTokens(text) - countTokens(after))
      }
    }
  })

  it("counts text holding a special token's spelling as text, without throwing", () => {
    const text = "log: <|endoftext|>   \n\n\n<|im_start|>"
    expect(() => tokensSaved(countTokens, text, compressSafe(text))).not.toThrow()
  })
})
