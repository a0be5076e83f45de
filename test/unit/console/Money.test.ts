/**
 * The console's dollar figures and UTC-day periods, as pure functions: costs read exactly from the
 * API's figures (numbers or six-decimal strings) into whole micro-dollars, rounded for reading without
 * a small spend reading as $0.00; periods of whole UTC days, with the API's exclusive end.
 */
import { assert, describe, it } from "@effect/vitest"
import { microsOf, usd, usdExact } from "../../../src/console/web/parts/Money.ts"
import {
  daysOf,
  describePeriod,
  lastDays,
  lastMonth,
  monthToDate,
  periodOf,
  problemOf
} from "../../../src/console/web/parts/Period.ts"

describe("console money", () => {
  it("reads the API's dollars, as numbers or six-decimal text, as whole micro-dollars", () => {
    assert.deepStrictEqual(
      [microsOf(0.00125), microsOf("0.001250"), microsOf(12.345678), microsOf("12.345678"), microsOf(0.0026)],
      [1_250, 1_250, 12_345_678, 12_345_678, 2_600]
    )
    // 0.1 + 0.2 is 0.30000000000000004 as a float; the figure is still 300,000 micro-dollars
    assert.strictEqual(microsOf(0.1 + 0.2), 300_000)
    assert.strictEqual(microsOf("123456789.000001"), 123_456_789_000_001)
    assert.isNaN(microsOf("twelve"))
    assert.isNaN(microsOf(Number.NaN))
  })

  it("rounds for reading: cents from a dollar up, four decimals at most below, never $0.00 for a spend", () => {
    const cases: ReadonlyArray<readonly [number, string]> = [
      [0, "$0.00"],
      [1, "<$0.0001"],
      [49, "<$0.0001"],
      [50, "$0.0001"],
      [1_250, "$0.0013"],
      [2_600, "$0.0026"],
      [4_000, "$0.004"],
      [10_000, "$0.01"],
      [100_000, "$0.10"],
      [12_500, "$0.0125"],
      [250_000, "$0.25"],
      [500_000, "$0.50"],
      [999_949, "$0.9999"],
      [999_950, "$1.00"],
      [1_000_000, "$1.00"],
      [12_004_999, "$12.00"],
      [12_005_000, "$12.01"],
      [1_234_567_890_000, "$1,234,567.89"]
    ]
    assert.deepStrictEqual(cases.map(([micros]) => usd(micros)), cases.map(([, text]) => text))
    assert.strictEqual(usd(-1_250), "-$0.0013")
  })

  it("writes the exact figure as the API does", () => {
    assert.deepStrictEqual([usdExact(1_250), usdExact(12_000_000), usdExact(0), usdExact(-5)], [
      "$0.001250",
      "$12.000000",
      "$0.000000",
      "-$0.000005"
    ])
  })
})

describe("console periods of UTC days", () => {
  const now = Date.parse("2026-03-15T23:30:00Z")

  it("the last n days end today, UTC, and end before the next day", () => {
    assert.deepStrictEqual(lastDays(30, now), { from: "2026-02-14", to: "2026-03-16" })
    assert.strictEqual(daysOf(lastDays(30, now)).length, 30)
    assert.deepStrictEqual(monthToDate(now), { from: "2026-03-01", to: "2026-03-16" })
    assert.deepStrictEqual(lastMonth(now), { from: "2026-02-01", to: "2026-03-01" })
    assert.deepStrictEqual(lastMonth(Date.parse("2026-01-10T00:00:00Z")), { from: "2025-12-01", to: "2026-01-01" })
    assert.strictEqual(describePeriod(lastMonth(now)), "2026-02-01 to 2026-02-28 (28 days, UTC)")
  })

  it("reads the address, the last 30 days without one, and says when it cannot", () => {
    const read = (search: string) => periodOf(new URLSearchParams(search), now)
    assert.deepStrictEqual(read(""), { period: lastDays(30, now), invalid: false })
    assert.deepStrictEqual(read("from=2026-01-01&to=2026-02-01"), {
      period: { from: "2026-01-01", to: "2026-02-01" },
      invalid: false
    })
    for (const bad of ["from=2026-02-30&to=2026-03-01", "from=2026-03-01&to=2026-03-01", "from=2026-01-01", "to=x"]) {
      assert.deepStrictEqual(read(bad), { period: lastDays(30, now), invalid: true }, bad)
    }
    assert.match(problemOf({ from: "2020-01-01", to: "2026-01-01" }) ?? "", /1,000 days at most/)
  })
})
