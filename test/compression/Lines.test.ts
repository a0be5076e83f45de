/** Trailing whitespace, blank runs and identical runs. */
import { describe, expect, it } from "vitest"
import { repeatMarker, tidyLines } from "../../src/compression/Lines.ts"

describe("tidyLines", () => {
  it("drops trailing whitespace and makes blank runs one blank line, none at the ends", () => {
    expect(tidyLines(["", "a  ", "\t", "", "", "b\t", "", ""])).toEqual(["a", "", "b"])
  })

  it("folds identical runs with a count when that is shorter", () => {
    const line = "npm warn deprecated inflight@1.0.6: This module is not supported"
    expect(tidyLines([line, line, line, line, "end"])).toEqual([line, repeatMarker(3), "end"])
    expect(tidyLines(["ok", "ok", "ok"])).toEqual(["ok", "ok", "ok"])
    expect(repeatMarker(1)).toBe("[previous line repeated 1 more time]")
  })

  it("is idempotent", () => {
    const line = "x".repeat(50)
    const once = tidyLines([line, line, line, "", "", "y  "])
    expect(tidyLines(once)).toEqual(once)
  })
})
