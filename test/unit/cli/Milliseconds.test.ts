/** The CLI's latencies as a person reads them: to a hundredth at most, in every command that prints one. */
import { describe, expect, it } from "vitest"
import { ms } from "../../../src/cli/LogFlags.ts"

describe("ms", () => {
  it.each([
    [3.3367330000000948, "3.34"],
    [789.9999999, "790"],
    [50, "50"],
    [0.004, "0"],
    [12.5, "12.5"]
  ])("%s → %s", (value, expected) => expect(ms(value)).toBe(expected))
})
