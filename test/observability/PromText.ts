/**
 * A strict reader of the Prometheus text exposition format 0.0.4, for asserting on `/metrics`: every
 * line must be a HELP, a TYPE or a sample, label values are unescaped, and each sample must belong to a
 * family declared by a TYPE line before it. Throws on anything else, so a format slip fails the test.
 */

export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface Family {
  readonly name: string
  readonly type: string
  readonly help: string
  readonly samples: Array<Sample>
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*/

const parseValue = (text: string): number => {
  if (text === "+Inf") return Infinity
  if (text === "-Inf") return -Infinity
  if (text === "NaN") return NaN
  const value = Number(text)
  if (text === "" || Number.isNaN(value)) throw new Error(`bad sample value '${text}'`)
  return value
}

/** `{a="x",b="y\"z"}` from position 0; returns the labels and the rest of the line. */
const parseLabels = (line: string): { labels: Record<string, string>; rest: string } => {
  const labels: Record<string, string> = {}
  let i = 1
  for (;;) {
    if (line[i] === "}") return { labels, rest: line.slice(i + 1) }
    const name = LABEL.exec(line.slice(i))?.[0]
    if (name === undefined || line[i + name.length] !== "=" || line[i + name.length + 1] !== "\"") {
      throw new Error(`bad label at ${i} in: ${line}`)
    }
    i += name.length + 2
    let value = ""
    for (;;) {
      const c = line[i]
      if (c === undefined) throw new Error(`unterminated label value in: ${line}`)
      if (c === "\"") break
      if (c === "\\") {
        const next = line[i + 1]
        if (next === "n") value += "\n"
        else if (next === "\\" || next === "\"") value += next
        else throw new Error(`bad escape \\${next} in: ${line}`)
        i += 2
      } else {
        value += c
        i++
      }
    }
    if (name in labels) throw new Error(`duplicate label ${name} in: ${line}`)
    labels[name] = value
    i++
    if (line[i] === ",") i++
    else if (line[i] !== "}") throw new Error(`expected , or } at ${i} in: ${line}`)
  }
}

/** The families of a scrape by name, samples in order. */
export const parsePrometheus = (text: string): Map<string, Family> => {
  const families = new Map<string, Family>()
  const helps = new Map<string, string>()
  if (text !== "" && !text.endsWith("\n")) throw new Error("the exposition must end with a line feed")
  for (const line of text.split("\n")) {
    if (line === "") continue
    const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line)
    if (comment !== null) {
      const kind = comment[1]
      const name = comment[2] ?? ""
      const rest = comment[3] ?? ""
      if (kind === "HELP") helps.set(name, rest.replace(/\\n/g, "\n").replace(/\\\\/g, "\\"))
      else {
        if (families.has(name)) throw new Error(`TYPE ${name} declared twice`)
        if (!["counter", "gauge", "histogram", "summary", "untyped"].includes(rest)) {
          throw new Error(`bad type: ${line}`)
        }
        families.set(name, { name, type: rest, help: helps.get(name) ?? "", samples: [] })
      }
      continue
    }
    if (line.startsWith("#")) throw new Error(`unexpected comment: ${line}`)
    const name = NAME.exec(line)?.[0]
    if (name === undefined) throw new Error(`bad sample line: ${line}`)
    let rest = line.slice(name.length)
    let labels: Record<string, string> = {}
    if (rest.startsWith("{")) ({ labels, rest } = parseLabels(rest))
    if (!rest.startsWith(" ")) throw new Error(`expected a space before the value: ${line}`)
    const value = parseValue(rest.slice(1).trim())
    const base = name.replace(/_(bucket|sum|count)$/, "")
    const family = families.get(name) ?? families.get(base)
    if (family === undefined) throw new Error(`sample ${name} has no TYPE line before it`)
    family.samples.push({ name, labels, value })
  }
  return families
}

/** The one sample of `family` whose labels include `labels` (and whose name is `name`, default the family's). */
export const sampleValue = (
  families: Map<string, Family>,
  family: string,
  labels: Readonly<Record<string, string>> = {},
  name: string = family
): number | undefined => {
  const matches = (families.get(family)?.samples ?? []).filter((s) =>
    s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)
  )
  if (matches.length > 1) throw new Error(`${matches.length} samples of ${name} match ${JSON.stringify(labels)}`)
  return matches[0]?.value
}

/** The one unlabelled sample of `family` in a whole `/metrics` text, read strictly; throws when absent. */
export const metricValue = (text: string, family: string): number => {
  const value = sampleValue(parsePrometheus(text), family)
  if (value === undefined) throw new Error(`no sample of ${family} in the metrics`)
  return value
}
