/**
 * `addUsage`, which sums a tool loop's rounds: every count added; the cache-write counts present only when
 * a round reported them, so "none reported" stays apart from "0 written".
 */
import { assert, describe, it } from "@effect/vitest"
import { addUsage, emptyUsage, type Usage } from "../../../src/kernel/Canonical.ts"

const round = (fields: Partial<Usage>): Usage => ({ ...emptyUsage, ...fields })

describe("addUsage", () => {
  it("adds every count", () => {
    assert.deepStrictEqual(
      addUsage(
        round({ promptTokens: 10, completionTokens: 2, totalTokens: 12, cachedTokens: 4, reasoningTokens: 1 }),
        round({ promptTokens: 5, completionTokens: 3, totalTokens: 8, cachedTokens: 1, reasoningTokens: 2 })
      ),
      { promptTokens: 15, completionTokens: 5, totalTokens: 20, cachedTokens: 5, reasoningTokens: 3 }
    )
  })

  it("cache writes, and of them the 1-hour ones, are summed when a round reported them", () => {
    const sum = addUsage(
      round({ promptTokens: 100, cacheWriteTokens: 60, cacheWrite1hTokens: 40 }),
      round({ promptTokens: 50, cacheWriteTokens: 20 })
    )
    assert.deepStrictEqual([sum.cacheWriteTokens, sum.cacheWrite1hTokens], [80, 40])
    const none = addUsage(round({ promptTokens: 1 }), round({ promptTokens: 2 }))
    assert.isFalse("cacheWriteTokens" in none)
    assert.isFalse("cacheWrite1hTokens" in addUsage(round({ cacheWriteTokens: 0 }), round({})))
  })
})
