/** Keys by last use: a use moves a key behind the others, and only those idle since the cutoff are taken. */
import { describe, expect, it } from "vitest"
import { LastUsed } from "../../../src/kernel/LastUsed.ts"

describe("LastUsed", () => {
  it("takes the keys last used at or before the cutoff, longest idle first, and keeps the rest", () => {
    const sessions = new LastUsed<string>()
    sessions.use("a", 0)
    sessions.use("b", 100)
    sessions.use("c", 200)
    sessions.use("a", 300) // used again: no longer the oldest
    expect(sessions.takeIdle(50)).toEqual([])
    expect(sessions.takeIdle(200)).toEqual(["b", "c"])
    expect(sessions.size).toBe(1)
    expect(sessions.takeIdle(299)).toEqual([])
    expect(sessions.takeIdle(300)).toEqual(["a"])
    expect(sessions.size).toBe(0)
  })

  it("forgets a key, and takes nothing twice", () => {
    const sessions = new LastUsed<string>()
    sessions.use("a", 0)
    sessions.use("b", 0)
    sessions.forget("a")
    sessions.forget("never used")
    expect(sessions.takeIdle(10)).toEqual(["b"])
    expect(sessions.takeIdle(10)).toEqual([])
  })
})
