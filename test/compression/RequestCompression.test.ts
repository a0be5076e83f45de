/** One request's compression at each level: what goes upstream and what is reported. */
import { describe, expect, it } from "vitest"
import { factsOf, isCounting, requestCompression, uncountedFacts } from "../../src/compression/RequestCompression.ts"
import type { ChatMessage } from "../../src/kernel/Canonical.ts"

const PRETTY = JSON.stringify({ files: ["a.ts", "b.ts", "c.ts"], count: 3 }, null, 2)
const history: ReadonlyArray<ChatMessage> = [
  { role: "user", content: "list" },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "c", type: "function", function: { name: "ls", arguments: "{}" } }]
  },
  { role: "tool", tool_call_id: "c", content: PRETTY }
]
const usage = { promptTokens: 100, cachedTokens: 0 }

describe("requestCompression", () => {
  it("off: the history as it is, nothing to count", async () => {
    const compression = requestCompression("off")
    expect(compression.wire(history)).toBe(history)
    const report = compression.report()
    expect(isCounting(report)).toBe(false)
    expect(uncountedFacts(report)).toEqual({
      level: "off",
      saved: 0,
      savedNet: 0,
      savedMicro: 0,
      shadowSafe: null,
      shadowAggressive: null
    })
  })

  it("safe: the tool result compressed; each message counted once over the rounds", async () => {
    const compression = requestCompression("safe")
    const sent = compression.wire(history)
    expect(sent[2]!.content).toBe(JSON.stringify(JSON.parse(PRETTY)))
    expect(sent[0]).toBe(history[0])
    // a later round: the same messages and one more; the tool result is not counted twice
    compression.wire([...history, { role: "assistant", content: "three files" }])
    const facts = await factsOf(compression.report(), usage)
    expect(facts.level).toBe("safe")
    expect(facts.saved).toBeGreaterThan(10)
    expect(facts.savedNet).toBe(facts.saved)
    expect([facts.shadowSafe, facts.shadowAggressive]).toEqual([null, null])
  })

  it("shadow: the history as it is; what safe would have saved counted", async () => {
    const compression = requestCompression("shadow")
    expect(compression.wire(history)).toBe(history)
    const facts = await factsOf(compression.report(), usage)
    expect(facts.saved).toBe(0)
    expect(facts.shadowSafe).toBeGreaterThan(10)
    expect(facts.shadowAggressive).toBeGreaterThanOrEqual(facts.shadowSafe!)
  })
})
