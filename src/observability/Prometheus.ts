/**
 * A small Prometheus registry: counters, histograms and callback gauges with labels, recorded
 * synchronously into plain maps and number arrays, rendered in the text exposition format 0.0.4.
 *
 * Recording is the hot path (every request), so it allocates nothing but the series key: no Effect, no
 * fibers, no per-observation objects. Rendering (a scrape every few seconds) does the formatting work.
 *
 * Cardinality is bounded per family: past `maxSeries` distinct label sets, new label sets are folded
 * into one series whose every label is `other`, so a flood of unexpected values (say, made-up model
 * names) cannot grow memory or the scrape without bound. Existing series keep counting.
 */

/** The label value every label of a family takes once the family has reached its series cap. */
export const OTHER = "other"

/** The content type of the text exposition format this module renders. */
export const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

/** Label values longer than this are cut: label values are meant to be short identifiers. */
const MAX_LABEL_LENGTH = 200

/** `\`, `"` and line feed escaped, as the text format requires inside a label value. */
export const escapeLabelValue = (value: string): string =>
  value.replace(/[\\"\n]/g, (c) => (c === "\n" ? "\\n" : `\\${c}`))

/** `\` and line feed escaped, as the text format requires in HELP lines. */
const escapeHelp = (text: string): string => text.replace(/[\\\n]/g, (c) => (c === "\n" ? "\\n" : "\\\\"))

/** A sample value as Prometheus writes floats: `+Inf`, `-Inf`, `NaN` or a JS number. */
export const formatValue = (value: number): string =>
  Number.isNaN(value) ? "NaN" : value === Infinity ? "+Inf" : value === -Infinity ? "-Inf" : String(value)

/** `{a="x",b="y"}` from names and raw values; empty when there are no labels. */
const labelBlock = (names: ReadonlyArray<string>, values: ReadonlyArray<string>): string =>
  names.length === 0
    ? ""
    : `{${
      names.map((name, i) => `${name}="${escapeLabelValue((values[i] ?? "").slice(0, MAX_LABEL_LENGTH))}"`).join(",")
    }}`

/** Adds one more label to a rendered block (histograms add `le`). */
const withLabel = (block: string, name: string, value: string): string =>
  block === "" ? `{${name}="${value}"}` : `${block.slice(0, -1)},${name}="${value}"}`

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/

interface Series {
  /** The rendered label block, escaped once when the series is created. */
  readonly labels: string
}

/** One metric family: its series by label values, capped. */
abstract class Family<S extends Series> {
  readonly name: string
  readonly help: string
  readonly labelNames: ReadonlyArray<string>
  readonly maxSeries: number
  readonly #series = new Map<string, S>()
  readonly #otherValues: ReadonlyArray<string>
  #other: S | undefined

  constructor(name: string, help: string, labelNames: ReadonlyArray<string>, maxSeries: number) {
    this.name = name
    this.help = help
    this.labelNames = labelNames
    this.maxSeries = maxSeries
    if (!NAME.test(name)) throw new Error(`invalid metric name: ${name}`)
    for (const label of labelNames) {
      if (!LABEL.test(label) || label.startsWith("__") || label === "le") {
        throw new Error(`invalid label name: ${label}`)
      }
    }
    this.#otherValues = labelNames.map(() => OTHER)
  }

  protected abstract create(labels: string): S

  /** The series for these label values (in `labelNames` order), or the `other` series past the cap. */
  protected series(values: ReadonlyArray<string>): S {
    const key = values.length === 1 ? values[0]! : values.join("\u0000")
    const found = this.#series.get(key)
    if (found !== undefined) return found
    if (this.#series.size >= this.maxSeries) {
      return this.#other ??= this.create(labelBlock(this.labelNames, this.#otherValues))
    }
    const created = this.create(labelBlock(this.labelNames, values))
    this.#series.set(key, created)
    return created
  }

  /** Every series, the `other` one last. */
  protected all(): ReadonlyArray<S> {
    const all = [...this.#series.values()]
    if (this.#other !== undefined) all.push(this.#other)
    return all
  }

  /** How many distinct label sets are kept (the `other` series not counted). */
  get size(): number {
    return this.#series.size
  }

  protected header(type: string): string {
    return `# HELP ${this.name} ${escapeHelp(this.help)}\n# TYPE ${this.name} ${type}\n`
  }

  abstract render(): string
}

/** One counter series; keep it to record without looking the labels up again. */
export class CounterCell implements Series {
  readonly labels: string
  value = 0

  constructor(labels: string) {
    this.labels = labels
  }

  /** Adds `by` (default 1); negative or non-finite amounts are ignored: a counter only grows. */
  inc(by = 1): void {
    if (by >= 0 && by !== Infinity) this.value += by
  }
}

/** A monotonic counter per label set. */
export class Counter extends Family<CounterCell> {
  protected create(labels: string): CounterCell {
    return new CounterCell(labels)
  }

  /** The series of these label values (in `labelNames` order), or the `other` one past the cap. */
  labels(values: ReadonlyArray<string>): CounterCell {
    return this.series(values)
  }

  /** Adds `by` (default 1) to the series of these label values. */
  inc(values: ReadonlyArray<string>, by = 1): void {
    this.series(values).inc(by)
  }

  render(): string {
    let out = this.header("counter")
    for (const s of this.all()) out += `${this.name}${s.labels} ${formatValue(s.value)}\n`
    return out
  }
}

/** One histogram series; keep it to record without looking the labels up again. */
export class HistogramCell implements Series {
  readonly labels: string
  readonly bounds: ReadonlyArray<number>
  /** Observations per bucket, not cumulative (the last slot is above the last bound); made cumulative when rendered. */
  readonly counts: Array<number>
  sum = 0
  count = 0

  constructor(labels: string, bounds: ReadonlyArray<number>) {
    this.labels = labels
    this.bounds = bounds
    this.counts = new Array<number>(bounds.length + 1).fill(0)
  }

  /** Records one observation; NaN is ignored. */
  observe(value: number): void {
    if (Number.isNaN(value)) return
    const bounds = this.bounds
    let i = 0
    while (i < bounds.length && value > bounds[i]!) i++
    this.counts[i]!++
    this.sum += value
    this.count++
  }
}

/** A histogram per label set, over fixed upper bounds (seconds, say). */
export class Histogram extends Family<HistogramCell> {
  readonly bounds: ReadonlyArray<number>
  readonly #le: ReadonlyArray<string>

  constructor(
    name: string,
    help: string,
    labelNames: ReadonlyArray<string>,
    bounds: ReadonlyArray<number>,
    maxSeries: number
  ) {
    super(name, help, labelNames, maxSeries)
    const sorted = [...bounds].filter((b) => Number.isFinite(b)).sort((a, b) => a - b)
    if (sorted.length === 0 || sorted.some((b, i) => i > 0 && b === sorted[i - 1])) {
      throw new Error(`histogram ${name} needs distinct finite bucket bounds`)
    }
    this.bounds = sorted
    this.#le = [...sorted.map(formatValue), "+Inf"]
  }

  protected create(labels: string): HistogramCell {
    return new HistogramCell(labels, this.bounds)
  }

  /** The series of these label values (in `labelNames` order), or the `other` one past the cap. */
  labels(values: ReadonlyArray<string>): HistogramCell {
    return this.series(values)
  }

  /** Records one observation in the series of these label values. */
  observe(values: ReadonlyArray<string>, value: number): void {
    this.series(values).observe(value)
  }

  render(): string {
    let out = this.header("histogram")
    for (const s of this.all()) {
      let cumulative = 0
      for (let i = 0; i < this.#le.length; i++) {
        cumulative += s.counts[i]!
        out += `${this.name}_bucket${withLabel(s.labels, "le", this.#le[i]!)} ${cumulative}\n`
      }
      out += `${this.name}_sum${s.labels} ${formatValue(s.sum)}\n`
      out += `${this.name}_count${s.labels} ${s.count}\n`
    }
    return out
  }
}

/** One gauge series: a value set, not added to. */
export class GaugeCell implements Series {
  readonly labels: string
  value = 0

  constructor(labels: string) {
    this.labels = labels
  }
}

/** A gauge per label set, set where its state changes (a circuit's state per target). */
export class Gauge extends Family<GaugeCell> {
  protected create(labels: string): GaugeCell {
    return new GaugeCell(labels)
  }

  set(values: ReadonlyArray<string>, value: number): void {
    this.series(values).value = value
  }

  render(): string {
    let out = this.header("gauge")
    for (const s of this.all()) out += `${this.name}${s.labels} ${formatValue(s.value)}\n`
    return out
  }
}

/** A value read when scraped (queue depth, memory): nothing is recorded on the hot path. */
export class CallbackMetric {
  readonly name: string
  readonly help: string
  readonly type: "gauge" | "counter"
  readonly read: () => number

  constructor(name: string, help: string, type: "gauge" | "counter", read: () => number) {
    this.name = name
    this.help = help
    this.type = type
    this.read = read
    if (!NAME.test(name)) throw new Error(`invalid metric name: ${name}`)
  }

  render(): string {
    let value: number
    try {
      value = this.read()
    } catch {
      // a broken source must not break the whole scrape
      value = NaN
    }
    return `# HELP ${this.name} ${escapeHelp(this.help)}\n# TYPE ${this.name} ${this.type}\n${this.name} ${
      formatValue(value)
    }\n`
  }
}

/** The families of one registry, rendered in registration order. */
export class Registry {
  readonly #families: Array<{ render(): string }> = []
  readonly #names = new Set<string>()
  readonly maxSeries: number

  constructor(maxSeries = 1000) {
    this.maxSeries = maxSeries
  }

  #add<F extends { readonly name: string; render(): string }>(family: F): F {
    if (this.#names.has(family.name)) throw new Error(`metric ${family.name} registered twice`)
    this.#names.add(family.name)
    this.#families.push(family)
    return family
  }

  counter(name: string, help: string, labelNames: ReadonlyArray<string> = []): Counter {
    return this.#add(new Counter(name, help, labelNames, this.maxSeries))
  }

  histogram(name: string, help: string, labelNames: ReadonlyArray<string>, bounds: ReadonlyArray<number>): Histogram {
    return this.#add(new Histogram(name, help, labelNames, bounds, this.maxSeries))
  }

  gaugeSet(name: string, help: string, labelNames: ReadonlyArray<string>): Gauge {
    return this.#add(new Gauge(name, help, labelNames, this.maxSeries))
  }

  gauge(name: string, help: string, read: () => number): CallbackMetric {
    return this.#add(new CallbackMetric(name, help, "gauge", read))
  }

  /** A counter whose total is kept elsewhere (it must only grow), read when scraped. */
  counterFrom(name: string, help: string, read: () => number): CallbackMetric {
    return this.#add(new CallbackMetric(name, help, "counter", read))
  }

  /** The whole registry in the text exposition format 0.0.4. */
  render(): string {
    let out = ""
    for (const family of this.#families) out += family.render()
    return out
  }
}
