/**
 * The bench guard's judgement: paired rounds, medians, and which figure is judged where.
 */
import { assert, describe, it } from "vitest"
import { type CellVerdict, confirmedFailures, judge, median, type Round } from "../../../bench/verdict.ts"

const tolerances = { rpsTolerance: 0.15, p50ToleranceMs: 0.05, p50ToleranceShare: 0.2 }
const round = (current: [number, number], baseline: [number, number]): Round => ({
  current: { rps: current[0], p50Ms: current[1] },
  baseline: { rps: baseline[0], p50Ms: baseline[1] }
})

describe("the guard's verdict", () => {
  it("median: the middle value, or the mean of the two middle ones", () => {
    assert.strictEqual(median([3, 1, 2]), 2)
    assert.strictEqual(median([4, 1, 3, 2]), 2.5)
    assert.isNaN(median([]))
  })

  it("an unchanged build passes, and the figures are the medians", () => {
    const verdict = judge({ mode: "non-stream", concurrency: 16 }, [
      round([5000, 2.4], [5100, 2.3]),
      round([5200, 2.3], [5000, 2.4]),
      round([4900, 2.5], [5000, 2.4])
    ], tolerances)
    assert.deepStrictEqual(verdict.failures, [])
    assert.strictEqual(verdict.rps.current, 5000)
    assert.strictEqual(verdict.rps.baseline, 5000)
    assert.closeTo(verdict.rps.ratio, 0.98, 0.001)
  })

  it("more than 15 % fewer requests a second fails; 15 % exactly does not", () => {
    const slower = judge({ mode: "stream", concurrency: 16 }, [
      round([800, 3], [1000, 3]),
      round([840, 3], [1000, 3]),
      round([820, 3], [1000, 3])
    ], tolerances)
    assert.deepStrictEqual(slower.failures, ["streamed c=16: RPS 18.0 % below the baseline's (at most 15 %)"])
    const edge = judge({ mode: "stream", concurrency: 16 }, [round([850, 3], [1000, 3])], tolerances)
    assert.deepStrictEqual(edge.failures, [])
  })

  it("the median of the per-round ratios decides: one bad round does not", () => {
    const verdict = judge({ mode: "non-stream", concurrency: 16 }, [
      round([1000, 2], [1000, 2]),
      round([500, 4], [1000, 2]),
      round([990, 2], [1000, 2])
    ], tolerances)
    assert.deepStrictEqual(verdict.failures, [])
  })

  it("p50 more than 0.05 ms above the baseline's fails at c=1", () => {
    const verdict = judge({ mode: "non-stream", concurrency: 1 }, [
      round([4000, 0.21], [4200, 0.15]),
      round([4000, 0.22], [4200, 0.15])
    ], tolerances)
    assert.deepStrictEqual(verdict.failures, ["whole c=1: p50 0.065 ms above the baseline's (at most 0.05 ms)"])
    const edge = judge({ mode: "non-stream", concurrency: 1 }, [round([4000, 0.19], [4200, 0.15])], tolerances)
    assert.deepStrictEqual(edge.failures, [])
  })

  it("on a slow machine p50 may exceed the baseline's by 20 % of the baseline's own p50, no more", () => {
    // the baseline at 0.8 ms: 0.16 ms allowed, where 0.05 ms is inside one build's noise against itself
    const within = judge({ mode: "stream", concurrency: 1 }, [
      round([1000, 0.95], [1100, 0.8]),
      round([1000, 0.9], [1100, 0.8])
    ], tolerances)
    assert.deepStrictEqual(within.failures, [])
    const slower = judge({ mode: "stream", concurrency: 1 }, [
      round([1000, 0.98], [1100, 0.8]),
      round([1000, 0.97], [1100, 0.8])
    ], tolerances)
    assert.deepStrictEqual(slower.failures, [
      "streamed c=1: p50 0.175 ms above the baseline's (at most 0.160 ms, 20 % of its 0.800 ms)"
    ])
  })

  it("p50 at c=16 is not judged (it moves with the RPS, which is)", () => {
    const verdict = judge({ mode: "non-stream", concurrency: 16 }, [round([1000, 3.0], [1000, 2.5])], tolerances)
    assert.deepStrictEqual(verdict.failures, [])
  })

  it("a slowdown is confirmed only in a cell that failed in every measurement", () => {
    const verdict = (cell: string, failures: ReadonlyArray<string>): CellVerdict => ({
      cell,
      rps: { current: 1, baseline: 1, ratio: 1 },
      p50Ms: { current: 1, baseline: 1, difference: 0 },
      failures
    })
    const first = [verdict("whole c=1", ["whole c=1: first"]), verdict("streamed c=1", [])]
    // a neighbour slowed a different cell each time: not confirmed
    assert.deepStrictEqual(
      confirmedFailures([first, [verdict("whole c=1", []), verdict("streamed c=1", ["streamed c=1: second"])]]),
      []
    )
    assert.deepStrictEqual(
      confirmedFailures([first, [verdict("whole c=1", ["whole c=1: second"]), verdict("streamed c=1", [])]]),
      ["whole c=1: first", "whole c=1: second"]
    )
    // the same cell twice, then not: a third measurement clears it
    const second = [verdict("whole c=1", ["whole c=1: second"]), verdict("streamed c=1", [])]
    assert.deepStrictEqual(
      confirmedFailures([first, second, [verdict("whole c=1", []), verdict("streamed c=1", [])]]),
      []
    )
    assert.deepStrictEqual(
      confirmedFailures([first, second, [verdict("whole c=1", ["whole c=1: third"]), verdict("streamed c=1", [])]]),
      ["whole c=1: first", "whole c=1: second", "whole c=1: third"]
    )
    assert.deepStrictEqual(confirmedFailures([]), [])
  })

  it("a cell without rounds is an error, not a pass", () => {
    assert.throws(() => judge({ mode: "stream", concurrency: 1 }, [], tolerances), /no rounds/)
  })
})
