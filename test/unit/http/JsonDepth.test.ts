/** The body reader's depth scan: brackets inside strings (escaped quotes included) do not count. */
import { describe, expect, it } from "vitest"
import { MAX_DEPTH, nestsDeeperThan } from "../../../src/http/JsonBody.ts"

describe("nestsDeeperThan", () => {
  const cases: ReadonlyArray<readonly [string, number, boolean]> = [
    ["{}", 0, true],
    ["{}", 1, false],
    ["[[[]]]", 3, false],
    ["[[[]]]", 2, true],
    ["{\"a\":{\"b\":[1,{\"c\":2}]}}", 4, false],
    ["{\"a\":{\"b\":[1,{\"c\":2}]}}", 3, true],
    // brackets inside strings are text
    [`{"a":"[[[[[[[["}`, 1, false],
    [`{"a":"\\"[[[[[[[["}`, 1, false],
    [`{"a":"\\\\"}`, 1, false],
    [`{"a":"\\\\",[[]]}`, 2, true],
    // an unterminated string ends the scan: JSON.parse says what is wrong
    [`{"a":"[[[[`, 1, false]
  ]
  for (const [text, limit, expected] of cases) {
    it(`${text} deeper than ${limit}: ${expected}`, () => expect(nestsDeeperThan(text, limit)).toBe(expected))
  }

  it("a 10,000-deep body is refused, a 256-deep one taken", () => {
    expect(nestsDeeperThan("[".repeat(10_000) + "]".repeat(10_000), MAX_DEPTH)).toBe(true)
    expect(nestsDeeperThan("[".repeat(MAX_DEPTH) + "]".repeat(MAX_DEPTH), MAX_DEPTH)).toBe(false)
  })
})
