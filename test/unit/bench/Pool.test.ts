/**
 * Several bench runs' paired figures taken together: rounds compared within their run, the median taken
 * over every run's rounds at once.
 */
import { assert, describe, it } from "vitest"
import { pooledFigure } from "../../../bench/paired.ts"
import { cellsOfRun, pooledFigures } from "../../../bench/pool.ts"

const figures = (...pairs: ReadonlyArray<[number, number]>) => pairs.map(([rps, p50Ms]) => ({ rps, p50Ms }))

const cell = (target: string, rounds: ReturnType<typeof figures>) => ({
  target,
  mode: "non-stream" as const,
  concurrency: 16,
  rounds
})

describe("the bench's pooled figures", () => {
  it("takes the median over every run's rounds, not the median of the runs' medians", () => {
    // run 1's rounds: 0.80, 0.80, 0.80 (its median 0.80); run 2's: 1.00, 1.00, 0.90, 0.95, 1.00 (0.95)
    const figure = pooledFigure("gateway", "baseline", "non-stream", 16, [
      [figures([800, 1], [800, 1], [800, 1]), figures([1000, 1], [1000, 1], [1000, 1])],
      [
        figures([1000, 1.1], [1000, 1.1], [900, 1.1], [950, 1.1], [1000, 1.1]),
        figures([1000, 1], [1000, 1], [1000, 1], [1000, 1], [1000, 1])
      ]
    ])!
    assert.strictEqual(figure.rounds, 8)
    // sorted: 0.8 0.8 0.8 0.9 0.95 1 1 1; the medians' median would be 0.875
    assert.closeTo(figure.rpsRatio, 0.925, 1e-9)
    // 0, 0, 0 and five of +0.1: +0.1 (the medians' median would be +0.05)
    assert.closeTo(figure.p50DifferenceMs, 0.1, 1e-9)
  })

  it("pairs rounds only within a run, and a run without the reference adds nothing", () => {
    const run1 = [
      cell("gateway", figures([900, 2], [950, 2])),
      cell("gateway-log-off", figures([1000, 1.5], [1000, 1.5]))
    ]
    const run2 = [cell("gateway", figures([10, 9])), cell("baseline", figures([20, 8]))]
    const pooled = pooledFigures([run1, run2])
    const logOff = pooled.find((f) => f.reference === "gateway-log-off")!
    assert.strictEqual(logOff.rounds, 2)
    assert.closeTo(logOff.rpsRatio, 0.925, 1e-9)
    const baseline = pooled.find((f) => f.reference === "baseline")!
    assert.strictEqual(baseline.rounds, 1)
    assert.closeTo(baseline.rpsRatio, 0.5, 1e-9)
    assert.strictEqual(pooled.length, 2)
  })

  it("refuses a document that is not a bench run's, naming the file", () => {
    assert.throws(() => cellsOfRun("a.json", { meta: {} }), /^a\.json: not a bench result/)
    assert.throws(() => cellsOfRun("b.json", null), /^b\.json: not a bench result/)
    assert.throws(
      () => cellsOfRun("c.json", { cells: [cell("gateway", figures([1, 1])), { target: "x", rounds: [] }] }),
      /^c\.json: cell 1 has no target/
    )
    assert.throws(
      () => cellsOfRun("d.json", { cells: [{ ...cell("gateway", []), rounds: [{ rps: "fast", p50Ms: 1 }] }] }),
      /^d\.json: cell 0/
    )
    assert.strictEqual(cellsOfRun("e.json", { cells: [cell("gateway", figures([1, 1]))] }).length, 1)
  })
})
