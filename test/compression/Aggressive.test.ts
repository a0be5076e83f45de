/** The aggressive level: retrievable cuts, deterministic, never longer, kept blocks untouched. */
import { describe, expect, it } from "vitest"
import { compressAggressive, cutId, seenLinesOf } from "../../src/compression/Aggressive.ts"
import { compressSafe } from "../../src/compression/Safe.ts"

const none = new Set<string>()
const markerOf = (text: string) => text.split("\n").find((line) => line.startsWith("[svc: "))

describe("compressAggressive", () => {
  it("folds near-identical lines (numbers aside) to the first and last, the middle retrievable", () => {
    const lines = Array.from(
      { length: 50 },
      (_, i) => `2026-11-25T10:00:${String(i).padStart(2, "0")}Z progress ${i * 2}% (${i}/50)`
    )
    const text = ["starting", ...lines, "done"].join("\n")
    const { cuts, text: out } = compressAggressive(text, none)
    const middle = lines.slice(1, -1).join("\n")
    expect(cuts).toEqual([{ id: cutId(middle), text: middle }])
    expect(out).toBe(
      [
        "starting",
        lines[0],
        `[svc: 48 similar lines (they differ only in numbers) cut; svc_expand_output id "${
          cutId(middle)
        }" returns them]`,
        lines[49],
        "done"
      ].join("\n")
    )
  })

  it("cuts runs of lines an earlier tool result already showed", () => {
    const banner = [
      "npm warn config production Use `--omit=dev` instead.",
      "npm warn deprecated inflight@1.0.6: This module is not supported",
      "npm warn deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported"
    ]
    const seen = new Set(seenLinesOf(["added 3 packages", ...banner].join("\n")))
    const { cuts, text } = compressAggressive(
      [...banner, "added 1 package, and audited 2 packages in 1s"].join("\n"),
      seen
    )
    expect(cuts.map((cut) => cut.text)).toEqual([banner.join("\n")])
    expect(text).toBe(
      `[svc: 3 lines already shown by an earlier tool result cut; svc_expand_output id "${
        cuts[0]!.id
      }" returns them]\nadded 1 package, and audited 2 packages in 1s`
    )
    // nothing seen before: nothing of this kind is cut
    expect(compressAggressive(banner.join("\n"), none).cuts).toEqual([])
  })

  it("keeps the head and the tail of a very long result", () => {
    const lines = Array.from(
      { length: 1000 },
      (_, i) => `src/module${i}/file${i % 7}.ts: export ${"abcdefg".slice(0, i % 7)} symbol_${i}`
    )
    const { cuts, text } = compressAggressive(lines.join("\n"), none)
    const out = text.split("\n")
    expect(out.slice(0, 80)).toEqual(lines.slice(0, 80))
    expect(out.slice(-80)).toEqual(lines.slice(-80))
    expect(markerOf(text)).toMatch(
      /^\[svc: 840 lines \(\d+ bytes\) cut; svc_expand_output id "cut_[\w-]{16}" returns them\]$/
    )
    expect(cuts[0]!.text).toBe(lines.slice(80, 920).join("\n"))
  })

  it("cuts one huge line by characters, never inside a surrogate pair", () => {
    const huge = JSON.stringify({ data: Array.from({ length: 20_000 }, (_, i) => ({ i, e: "😀" })) })
    const { cuts, text } = compressAggressive(huge, none)
    expect(text.length).toBeLessThan(20_000)
    const [head, , tail] = text.split("\n")
    expect(head! + cuts[0]!.text + tail!).toBe(huge)
    expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/)
  })

  it("leaves fenced and tagged blocks byte for byte; is never longer than safe; is idempotent and deterministic", () => {
    const repeated = Array.from({ length: 30 }, (_, i) => `tick ${i}`)
    const text = ["<system-reminder>", ...repeated, "</system-reminder>", "```", ...repeated, "```", ...repeated].join(
      "\n"
    )
    const once = compressAggressive(text, none)
    expect(
      once.text.startsWith(
        ["<system-reminder>", ...repeated, "</system-reminder>", "```", ...repeated, "```"].join("\n")
      )
    ).toBe(true)
    expect(once.text.length).toBeLessThanOrEqual(compressSafe(text).length)
    expect(compressAggressive(once.text, none).text).toBe(once.text)
    expect(compressAggressive(text, none)).toEqual(once)
  })

  it("a text with nothing to cut is the safe text, with no cuts", () => {
    expect(compressAggressive("short output\nwith two lines", none)).toEqual({
      text: "short output\nwith two lines",
      cuts: []
    })
  })
})
