/**
 * The bench's paired figures: two targets' rounds compared round by round, the median taken.
 */
import { assert, describe, it } from "vitest"
import { pairedFigure, pairedText } from "../../../bench/paired.ts"

const figures = (...pairs: ReadonlyArray<[number, number]>) => pairs.map(([rps, p50Ms]) => ({ rps, p50Ms }))

describe("the bench's paired figures", () => {
  it("a slow spell on one round of one target moves the pooled p50, not the paired median", () => {
    const current = figures([3300, 0.262], [3250, 0.265], [2300, 0.4], [3280, 0.263], [3310, 0.26])
    const reference = figures([3350, 0.255], [3200, 0.27], [3300, 0.258], [3260, 0.262], [3400, 0.252])
    const figure = pairedFigure("gateway", "baseline", "non-stream", 1, current, reference)!
    assert.strictEqual(figure.rounds, 5)
    // per round: +0.007, -0.005, +0.142, +0.001, +0.008
    assert.closeTo(figure.p50DifferenceMs, 0.007, 1e-9)
    // per round: 0.985, 1.016, 0.697, 1.006, 0.974
    assert.closeTo(figure.rpsRatio, 3300 / 3350, 1e-9)
  })

  it("pairs rounds by index and stops at the shorter list (a target dropped mid-cell)", () => {
    const figure = pairedFigure(
      "gateway",
      "gateway-log-off",
      "stream",
      16,
      figures([900, 2], [950, 2]),
      figures([1000, 1.5], [1000, 1.9], [1000, 1.9])
    )!
    assert.strictEqual(figure.rounds, 2)
    assert.closeTo(figure.rpsRatio, 0.925, 1e-9)
    assert.closeTo(figure.p50DifferenceMs, 0.3, 1e-9)
  })

  it("no shared round: no figure; a reference round that answered nothing has no ratio", () => {
    assert.isUndefined(pairedFigure("gateway", "baseline", "stream", 1, figures([1, 1]), []))
    const figure = pairedFigure(
      "gateway",
      "baseline",
      "stream",
      1,
      figures([500, 1], [600, 1]),
      figures([0, 0], [
        600,
        1
      ])
    )!
    assert.strictEqual(figure.rpsRatio, 1)
    assert.strictEqual(figure.p50DifferenceMs, 0.5)
  })

  it("prints one line per comparison, the difference signed", () => {
    const text = pairedText([
      pairedFigure("gateway", "baseline", "non-stream", 1, figures([3000, 0.27]), figures([3100, 0.26]))!,
      pairedFigure("gateway", "baseline", "stream", 16, figures([8000, 1.6]), figures([7500, 1.8]))!
    ])
    const lines = text.split("\n")
    assert.strictEqual(lines.length, 4)
    assert.match(lines[2]!, /^gateway\s+baseline\s+whole c=1\s+1\s+0\.968\s+\+0\.010$/)
    assert.match(lines[3]!, /^gateway\s+baseline\s+streamed c=16\s+1\s+1\.067\s+-0\.200$/)
  })
})
