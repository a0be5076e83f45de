/**
 * Ids: the random ones use the whole base62 alphabet, and time-ordered ones sort by the millisecond
 * they were minted in, as text, whatever their random part, and tell that millisecond back.
 */
import { assert, describe, it } from "@effect/vitest"
import { newId, newTimeOrderedId, timeOfOrderedId } from "../../src/Ids.ts"

describe("newId", () => {
  it("is the prefix and 20 base62 characters, different every time", () => {
    const ids = Array.from({ length: 1000 }, () => newId("key"))
    for (const id of ids) assert.match(id, /^key_[0-9A-Za-z]{20}$/)
    assert.strictEqual(new Set(ids).size, ids.length)
  })
})

describe("newTimeOrderedId", () => {
  it("is the prefix, 9 base-36 time characters and 14 random base62 ones", () => {
    const id = newTimeOrderedId("req")
    assert.match(id, /^req_[0-9a-z]{9}[0-9A-Za-z]{14}$/)
    assert.strictEqual(Number.parseInt(id.slice(4, 13), 36) <= Date.now(), true)
  })

  it("spells the time in base 36, padded to 9 characters", () => {
    const times = [0, 1, 35, 36, 1295, 1296, 1_700_000_000_000, 1_800_000_123_456, 36 ** 9 - 1]
    for (let n = 0; n < 100; n++) times.push(Math.floor(Math.random() * 36 ** 9))
    for (const time of times) {
      assert.strictEqual(newTimeOrderedId("req", time).slice(4, 13), time.toString(36).padStart(9, "0"))
    }
  })

  it("sorts by mint time as plain text, including across a change in the number of digits", () => {
    const times = [0, 1, 35, 36, 1_700_000_000_000, 1_700_000_000_001, 1_800_000_000_000, 36 ** 9 - 1]
    for (let i = 1; i < times.length; i++) {
      // many random suffixes: the earlier id must sort first whatever they are
      for (let n = 0; n < 50; n++) {
        const earlier = newTimeOrderedId("req", times[i - 1]!)
        const later = newTimeOrderedId("req", times[i]!)
        assert.isTrue(earlier < later, `${earlier} < ${later}`)
      }
    }
  })

  it("is unique within one millisecond", () => {
    const ids = Array.from({ length: 10_000 }, () => newTimeOrderedId("req", 1_700_000_000_000))
    assert.strictEqual(new Set(ids).size, ids.length)
  })
})

describe("timeOfOrderedId", () => {
  it("reads back the millisecond an ordered id was minted in", () => {
    for (const time of [0, 35, 1_700_000_000_000, 1_800_000_123_456, 36 ** 9 - 1]) {
      assert.strictEqual(timeOfOrderedId(newTimeOrderedId("req", time), "req"), time)
    }
    const now = Date.now()
    assert.strictEqual(timeOfOrderedId(newTimeOrderedId("req", now), "req"), now)
  })

  it("is undefined for an id of another shape or prefix", () => {
    const ordered = newTimeOrderedId("req", 1_700_000_000_000)
    for (
      const id of [
        newId("req"), // random, as request ids were before they were time-ordered
        newTimeOrderedId("key", 1_700_000_000_000),
        `${ordered}x`,
        ordered.slice(0, -1),
        `reqx${ordered.slice(4)}`,
        `req_${ordered.slice(4, 12)}A${ordered.slice(13)}`, // a capital letter among the time's digits
        `req_${ordered.slice(4, 26)}-`, // not base62 in the random part
        "",
        "req_"
      ]
    ) assert.isUndefined(timeOfOrderedId(id, "req"), id)
  })
})
