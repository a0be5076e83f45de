/**
 * The token counter stays linear: a run the pre-tokenizer keeps as one piece (100,000 letters took 12 s
 * to count whole) is counted in slices, and every other text exactly as gpt-tokenizer counts it.
 */
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { describe, expect, it } from "vitest"
import { boundedCounter, loadTokenizer } from "../../../src/kernel/Tokenizer.ts"

describe("the bounded o200k counter", () => {
  it("counts ordinary text, code and JSON exactly", async () => {
    const count = await loadTokenizer()
    const texts = [
      "",
      "hello world",
      "The quick brown fox jumps over the lazy dog. ".repeat(200),
      JSON.stringify({ items: Array.from({ length: 300 }, (_, i) => ({ id: i, name: `item ${i}`, ok: i % 2 === 0 })) }),
      "const x = (a: number) => a * 2;\n".repeat(100),
      Buffer.from(Array.from({ length: 3_000 }, (_, i) => (i * 7919) % 256)).toString("base64")
    ]
    for (const text of texts) expect(count(text)).toBe(countTokens(text))
  })

  it("counts a million-letter run in well under a second, within a few percent", async () => {
    const count = await loadTokenizer()
    const run = "x".repeat(1_000_000)
    const started = performance.now()
    const counted = count(`before ${run} after`)
    expect(performance.now() - started).toBeLessThan(5_000)
    // eight x's a token, as counted whole on a shorter run
    const exact = (countTokens("x".repeat(4_096)) / 4_096) * 1_000_000
    expect(Math.abs(counted - exact) / exact).toBeLessThan(0.05)
  })

  it("slices only the long runs: the text around them is counted as it is", () => {
    const seen: Array<string> = []
    const count = boundedCounter((text) => {
      seen.push(text)
      return text.length
    })
    const run = "y".repeat(300)
    expect(count(`a b ${run} c`)).toBe(`a b ${run} c`.length)
    expect(seen).toEqual(["a b ", "y".repeat(128), "y".repeat(128), "y".repeat(44), " c"])
    seen.length = 0
    const plain = "z ".repeat(200)
    count(plain)
    expect(seen).toEqual([plain])
  })
})
