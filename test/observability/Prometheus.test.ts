/**
 * The registry's text format, read back with a strict parser: counters add up, histogram buckets are
 * cumulative and end at `+Inf` = `_count`, label values are escaped, families are capped, and recording
 * costs well under a microsecond.
 */
import { describe, expect, it } from "vitest"
import { escapeLabelValue, OTHER, Registry } from "../../src/observability/Prometheus.ts"
import { parsePrometheus, sampleValue } from "./PromText.ts"

describe("Prometheus registry", () => {
  it("counters: HELP, TYPE, one sample per label set, increments add up", () => {
    const registry = new Registry()
    const c = registry.counter("x_total", "Things\nthat \\ happened.", ["a", "b"])
    c.inc(["1", "p"])
    c.inc(["1", "p"], 2)
    c.inc(["2", "p"])
    c.inc(["2", "p"], -5) // ignored: counters only grow
    c.inc(["2", "p"], NaN)
    const text = registry.render()
    expect(text).toContain("# HELP x_total Things\\nthat \\\\ happened.\n# TYPE x_total counter\n")
    const families = parsePrometheus(text)
    expect(families.get("x_total")?.type).toBe("counter")
    expect(families.get("x_total")?.help).toBe("Things\nthat \\ happened.")
    expect(sampleValue(families, "x_total", { a: "1", b: "p" })).toBe(3)
    expect(sampleValue(families, "x_total", { a: "2", b: "p" })).toBe(1)
    expect(families.get("x_total")?.samples).toHaveLength(2)
  })

  it("a family with no observations renders only its HELP and TYPE", () => {
    const registry = new Registry()
    registry.counter("empty_total", "Nothing yet.")
    expect(registry.render()).toBe("# HELP empty_total Nothing yet.\n# TYPE empty_total counter\n")
  })

  it("histograms: cumulative buckets, +Inf equals _count, _sum adds the observations", () => {
    const registry = new Registry()
    const h = registry.histogram("d_seconds", "Durations.", ["m"], [0.1, 0.5, 1])
    for (const v of [0.05, 0.1, 0.3, 0.7, 5, 5]) h.observe(["a"], v)
    h.observe(["a"], NaN) // ignored
    const families = parsePrometheus(registry.render())
    const bucket = (le: string) => sampleValue(families, "d_seconds", { m: "a", le }, "d_seconds_bucket")
    // 0.1 is inside the le="0.1" bucket: bounds are inclusive upper bounds
    expect([bucket("0.1"), bucket("0.5"), bucket("1"), bucket("+Inf")]).toEqual([2, 3, 4, 6])
    expect(sampleValue(families, "d_seconds", { m: "a" }, "d_seconds_count")).toBe(6)
    expect(sampleValue(families, "d_seconds", { m: "a" }, "d_seconds_sum")).toBeCloseTo(11.15, 10)
    const buckets = families.get("d_seconds")!.samples.filter((s) => s.name === "d_seconds_bucket")
    expect(buckets.map((s) => s.labels["le"])).toEqual(["0.1", "0.5", "1", "+Inf"])
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value)
  })

  it("label values are escaped (backslash, quote, line feed) and read back intact", () => {
    const registry = new Registry()
    const nasty = "a\\b\"c\nd}e,f=g"
    registry.counter("esc_total", "Escaping.", ["v"]).inc([nasty])
    const text = registry.render()
    expect(text).toContain(`esc_total{v="a\\\\b\\"c\\nd}e,f=g"} 1\n`)
    expect(escapeLabelValue("\"")).toBe("\\\"")
    expect(parsePrometheus(text).get("esc_total")?.samples[0]?.labels).toEqual({ v: nasty })
  })

  it("caps the label sets of a family: the rest fold into one `other` series", () => {
    const registry = new Registry(3)
    const c = registry.counter("cap_total", "Capped.", ["model", "provider"])
    const h = registry.histogram("cap_seconds", "Capped.", ["model"], [1])
    for (let i = 0; i < 10; i++) {
      c.inc([`m${i}`, "p"])
      h.observe([`m${i}`], 0.5)
    }
    c.inc(["m0", "p"]) // an existing series still counts
    const families = parsePrometheus(registry.render())
    expect(families.get("cap_total")?.samples).toHaveLength(4)
    expect(sampleValue(families, "cap_total", { model: "m0", provider: "p" })).toBe(2)
    expect(sampleValue(families, "cap_total", { model: OTHER, provider: OTHER })).toBe(7)
    expect(sampleValue(families, "cap_seconds", { model: OTHER }, "cap_seconds_count")).toBe(7)
    expect(c.size).toBe(3)
  })

  it("callback metrics are read at scrape time; a failing source renders NaN, not an error", () => {
    const registry = new Registry()
    let depth = 3
    registry.gauge("depth", "Depth.", () => depth)
    registry.counterFrom("broken_total", "Broken.", () => {
      throw new Error("source gone")
    })
    depth = 7
    const families = parsePrometheus(registry.render())
    expect(sampleValue(families, "depth")).toBe(7)
    expect(families.get("depth")?.type).toBe("gauge")
    expect(sampleValue(families, "broken_total")).toBeNaN()
  })

  it("rejects invalid names, reserved labels and duplicate families", () => {
    const registry = new Registry()
    expect(() => registry.counter("bad-name", "x")).toThrow(/metric name/)
    expect(() => registry.counter("ok_total", "x", ["le"])).toThrow(/label name/)
    expect(() => registry.counter("ok2_total", "x", ["__x"])).toThrow(/label name/)
    expect(() => registry.histogram("h", "x", [], [])).toThrow(/bucket/)
    registry.counter("dup_total", "x")
    expect(() => registry.counter("dup_total", "x")).toThrow(/twice/)
  })

  it("recording costs well under a microsecond", () => {
    const registry = new Registry()
    const c = registry.counter("perf_total", "x", ["status", "model", "provider"])
    const h = registry.histogram("perf_seconds", "x", ["model", "provider"], [0.01, 0.1, 1, 10, 100])
    const models = ["openai/gpt-4o", "groq/llama", "local/echo"]
    const run = (n: number) => {
      for (let i = 0; i < n; i++) {
        const model = models[i % 3]!
        c.inc(["200", model, "openai"])
        h.observe([model, "openai"], (i % 100) / 10)
      }
    }
    run(100_000) // warm up the JIT
    const n = 500_000
    const start = process.hrtime.bigint()
    run(n)
    const nsPerRecord = Number(process.hrtime.bigint() - start) / (2 * n)
    // typically 30-100 ns on a laptop; the bound leaves room for a slow, busy CI machine
    expect(nsPerRecord).toBeLessThan(1000)
  })
})
