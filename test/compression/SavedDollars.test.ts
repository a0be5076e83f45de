/**
 * Compression's saving in money: saved tokens at the rate they would have been billed at (a cache read
 * within the cached share of the prompt, input elsewhere, the tier of the prompt sent), less the prompt
 * cache the gateway broke when `svc_expand_output` first joined the tools.
 */
import { describe, expect, it } from "vitest"
import { requestCompression } from "../../src/compression/RequestCompression.ts"
import { savedMicroDollars } from "../../src/compression/SavedDollars.ts"
import type { ChatMessage } from "../../src/kernel/Canonical.ts"
import type { ModelPrice, Rate } from "../../src/prices/ModelPrice.ts"

const flat = (base: number): Rate => ({ base, tiers: [] })

/** $3 input, $0.30 cache reads, $3.75 cache writes, $15 output per million tokens. */
const ANTHROPIC: ModelPrice = {
  input: flat(3),
  cachedInput: flat(0.3),
  cacheWrite: flat(3.75),
  cacheWrite1h: flat(6),
  output: flat(15)
}

/** $2 input, $0.50 cache reads (written for free), $8 output. */
const OPENAI: ModelPrice = {
  input: flat(2),
  cachedInput: flat(0.5),
  cacheWrite: null,
  cacheWrite1h: null,
  output: flat(8)
}

describe("savedMicroDollars", () => {
  it("a saving outside the cached share saves input; inside it, only the cache read", () => {
    const usage = { promptTokens: 10_000, cachedTokens: 6_000 }
    // 1,000 tokens at 0.8 of the prompt (not cached): 1,000 x 3; 1,000 at 0.2 (cached): 1,000 x 0.3
    expect(savedMicroDollars([{ tokens: 1_000, at: 0.8 }], usage, ANTHROPIC, 0)).toBe(3_000)
    expect(savedMicroDollars([{ tokens: 1_000, at: 0.2 }], usage, ANTHROPIC, 0)).toBe(300)
    expect(savedMicroDollars([{ tokens: 1_000, at: 0.2 }, { tokens: 1_000, at: 0.8 }], usage, OPENAI, 0)).toBe(2_500)
  })

  it("a provider that caches nothing: every saved token saves input", () => {
    const plain: ModelPrice = { ...OPENAI, cachedInput: null }
    expect(savedMicroDollars([{ tokens: 1_000, at: 0 }], { promptTokens: 5_000, cachedTokens: 5_000 }, plain, 0.9))
      .toBe(2_000)
  })

  it("a tier applies by the prompt sent", () => {
    const tiered: ModelPrice = { ...OPENAI, input: { base: 1.25, tiers: [{ start: 200_000, price: 2.5 }] } }
    expect(savedMicroDollars([{ tokens: 1_000, at: 1 }], { promptTokens: 100_000, cachedTokens: 0 }, tiered, 0))
      .toBe(1_250)
    expect(savedMicroDollars([{ tokens: 1_000, at: 1 }], { promptTokens: 250_000, cachedTokens: 0 }, tiered, 0))
      .toBe(2_500)
  })

  it("a cache the gateway broke counts against the saving, at a write's price less a read's", () => {
    const usage = { promptTokens: 10_000, cachedTokens: 0 }
    // saved 1,000 at input (3,000); 80 % of the prompt written again at 3.75 instead of read at 0.30
    expect(savedMicroDollars([{ tokens: 1_000, at: 0.9 }], usage, ANTHROPIC, 0.8)).toBe(3_000 - 8_000 * 3_450 / 1_000)
    // OpenAI writes for free: read again at input instead of a cache read
    expect(savedMicroDollars([{ tokens: 1_000, at: 0.9 }], usage, OPENAI, 0.8)).toBe(2_000 - 8_000 * 1.5)
  })
})

describe("the cache break of aggressive compression", () => {
  // lines unlike each other (none folds as "similar"), shown again by the second run
  const repeated = ["inflight", "glob", "rimraf", "uuid", "request", "har-validator", "querystring", "domexception"]
    .map((name) => `npm warn deprecated ${name}: this module is not supported, use another one`)
  const call = (id: string): ChatMessage => ({
    role: "assistant",
    content: null,
    tool_calls: [{ id, type: "function", function: { name: "run", arguments: "{}" } }]
  })
  const earlier: ReadonlyArray<ChatMessage> = [
    { role: "user", content: "install it" },
    call("c1"),
    { role: "tool", tool_call_id: "c1", content: ["first run", ...repeated].join("\n") },
    call("c2")
  ]
  const again: ChatMessage = { role: "tool", tool_call_id: "c2", content: ["second run", ...repeated].join("\n") }

  it("the first cut of a conversation, in what the client just added: the previous turn's share is broken", () => {
    const compression = requestCompression("aggressive")
    const history = [...earlier, again]
    compression.wire(history)
    expect(compression.takeCuts().length).toBeGreaterThan(0)
    compression.expandOffered(history)
    const cacheBreak = compression.report().cacheBreak
    expect(cacheBreak).toBeGreaterThan(0.4)
    expect(cacheBreak).toBeLessThan(1)
  })

  it("a cut already made in an earlier turn: the tool was offered then, nothing breaks now", () => {
    const compression = requestCompression("aggressive")
    const history = [...earlier, again, { role: "assistant", content: "done" }, { role: "user", content: "thanks" }]
    compression.wire(history as ReadonlyArray<ChatMessage>)
    expect(compression.takeCuts().length).toBeGreaterThan(0)
    compression.expandOffered(history as ReadonlyArray<ChatMessage>)
    expect(compression.report().cacheBreak).toBeUndefined()
  })

  it("safe never cuts, so never breaks a cache", () => {
    const compression = requestCompression("safe")
    compression.wire([...earlier, again])
    compression.expandOffered([...earlier, again])
    expect(compression.report().cacheBreak).toBeUndefined()
  })
})
