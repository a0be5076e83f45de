/**
 * Compression's promises, checked over the corpus (`bench/compression/corpus`, real tools' output) and
 * over generated inputs: nothing grows; a second pass changes nothing; every JSON value parses to the
 * same value; fenced and tagged blocks, and every line a reader would see (paths, numbers, identifiers,
 * error messages), survive byte for byte; lone surrogates, 50 MB and absurdly deep JSON are handled
 * within the time bound, without a crash.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { compressAggressive } from "../../src/compression/Aggressive.ts"
import { compressorOf } from "../../src/compression/CompressMessages.ts"
import { splitProtected } from "../../src/compression/Protected.ts"
import { compressSafe } from "../../src/compression/Safe.ts"
import { looksLikeTerminal, renderTerminal } from "../../src/compression/Terminal.ts"
import type { ChatMessage } from "../../src/kernel/Canonical.ts"

const corpusDir = fileURLToPath(new URL("../../bench/compression/corpus", import.meta.url))
const corpus = readdirSync(corpusDir).flatMap((category) =>
  readdirSync(join(corpusDir, category)).map((name) => ({
    name: `${category}/${name}`,
    text: readFileSync(join(corpusDir, category, name), "utf8")
  }))
)

const parsesAs = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The lines a reader sees: the final screen for terminal output, else the text's own lines. */
const visibleLines = (text: string): ReadonlyArray<string> =>
  (looksLikeTerminal(text) ? renderTerminal(text) ?? text : text).split("\n").map((line) => line.trimEnd()).filter((
    line
  ) => line !== "")

describe("safe over the corpus", () => {
  it("holds a real corpus of many kinds", () => {
    expect(corpus.length).toBeGreaterThan(30)
  })

  for (const output of corpus) {
    it(`${output.name}: never longer, idempotent, nothing a reader sees lost`, () => {
      const safe = compressSafe(output.text)
      expect(safe.length).toBeLessThanOrEqual(output.text.length)
      expect(compressSafe(safe)).toBe(safe)
      const json = parsesAs(output.text)
      if (json !== undefined) {
        expect(parsesAs(safe)).toEqual(json)
        return
      }
      for (const piece of splitProtected(output.text)) {
        if (piece.kept) expect(safe).toContain(piece.text.replace(/\n$/, ""))
      }
      // every line a reader sees is still there, byte for byte (a JSON block is compacted, so its lines
      // are checked as its value; repeats may be folded, so lines are checked as a set)
      const kept = new Set(safe.split("\n").map((line) => line.trimEnd()))
      const jsonBlockLines = new Set<string>()
      for (const line of safe.split("\n")) {
        const value = /^[[{]/.test(line) ? parsesAs(line) : undefined
        if (value !== undefined) {
          for (const original of JSON.stringify(value, null, 2).split("\n")) jsonBlockLines.add(original.trim())
        }
      }
      for (const line of visibleLines(output.text)) {
        if (kept.has(line)) continue
        expect(jsonBlockLines.has(line.trim()) || /^\s*[\]}],?$/.test(line), `${output.name}: ${JSON.stringify(line)}`)
          .toBe(true)
      }
    })
  }

  it("aggressive over the corpus: never longer than safe, idempotent, deterministic", () => {
    for (const output of corpus) {
      const once = compressAggressive(output.text, new Set())
      expect(once.text.length, output.name).toBeLessThanOrEqual(compressSafe(output.text).length)
      expect(compressAggressive(once.text, new Set()).text, output.name).toBe(once.text)
      expect(compressAggressive(output.text, new Set()), output.name).toEqual(once)
      for (const cut of once.cuts) expect(once.text, output.name).toContain(cut.id)
    }
  })
})

describe("prompt caching stays intact over the corpus", () => {
  const sessions = [...new Set(corpus.map((output) => output.name.split("/")[0]!))].map((category) =>
    corpus.filter((output) => output.name.startsWith(`${category}/`))
  )
  /** A session as the conversation an agent sends: a call, its result, and so on. */
  const conversation = (outputs: ReadonlyArray<{ readonly name: string; readonly text: string }>): Array<ChatMessage> =>
    outputs.flatMap((output, i) => [
      {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: `call_${i}`,
          type: "function",
          function: { name: "bash", arguments: JSON.stringify({ command: output.name }, null, 2) }
        }]
      },
      { role: "tool", tool_call_id: `call_${i}`, content: output.text }
    ])
  const sent = (level: "safe" | "aggressive", messages: ReadonlyArray<ChatMessage>) => {
    const compress = compressorOf(level)
    return JSON.stringify(messages.map((message) => compress(message).message))
  }

  for (const level of ["safe", "aggressive"] as const) {
    it(`${level}: deterministic, and turn N+1 sends turn N's messages as the same bytes`, () => {
      for (const outputs of sessions) {
        const whole = conversation(outputs)
        // decoded afresh, as every turn's request is: equal messages, new objects
        const again = JSON.parse(JSON.stringify(whole)) as Array<ChatMessage>
        expect(sent(level, again)).toBe(sent(level, whole))
        for (let turn = 2; turn < whole.length; turn += 2) {
          const earlier = JSON.parse(sent(level, whole.slice(0, turn))) as Array<unknown>
          const later = JSON.parse(sent(level, whole)) as Array<unknown>
          expect(JSON.stringify(later.slice(0, turn)), `${outputs[0]?.name} turn ${turn}`).toBe(JSON.stringify(earlier))
        }
      }
    })
  }
})

/** A small deterministic generator, so a failing case can be found again. */
const generator = (seed: number) => {
  let state = seed
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648
  const int = (n: number) => Math.floor(next() * n)
  const pick = <A>(items: ReadonlyArray<A>): A => items[int(items.length)]!
  return { next, int, pick }
}

const ESC = "\u001b"
const PIECES = [
  "a",
  "error TS2339",
  "src/a.ts:12:5",
  " ",
  "  ",
  "\t",
  "\n",
  "\n\n\n",
  "\r",
  "\r\n",
  `${ESC}[31m`,
  `${ESC}[0m`,
  `${ESC}[2K`,
  `${ESC}[1A`,
  `${ESC}[1G`,
  `${ESC}[K`,
  `${ESC}]8;;http://x${ESC}\\`,
  `${ESC}[`,
  "{",
  "}",
  "[",
  "]",
  "\"",
  "\\",
  ":",
  ",",
  "```",
  "~~~",
  "<system-reminder>",
  "</system-reminder>",
  "<x>",
  "12345678901234567890",
  "😀",
  "\ud800",
  "\udc00",
  "é",
  "\u0000",
  "[svc: x cut]"
]

describe("safe and aggressive over generated text", () => {
  it("5,000 random texts: no throw, never longer, idempotent", () => {
    const g = generator(42)
    for (let n = 0; n < 5000; n++) {
      const text = Array.from({ length: g.int(80) }, () => g.pick(PIECES)).join("")
      const safe = compressSafe(text)
      expect(safe.length, JSON.stringify(text)).toBeLessThanOrEqual(text.length)
      expect(compressSafe(safe), JSON.stringify(text)).toBe(safe)
      const aggressive = compressAggressive(text, new Set()).text
      expect(aggressive.length, JSON.stringify(text)).toBeLessThanOrEqual(safe.length)
    }
  })

  it("2,000 random JSON values, pretty-printed any way: the same value after safe, digits and all", () => {
    const g = generator(7)
    const value = (depth: number): string => {
      const kind = depth > 4 ? g.int(4) : g.int(6)
      if (kind === 0) {
        return g.pick([
          "0",
          "-1",
          "3.14",
          "1e-7",
          "9007199254740993",
          "12345678901234567890",
          "1.0",
          "true",
          "false",
          "null"
        ])
      }
      if (kind === 1 || kind === 2) {
        return JSON.stringify(g.pick(["", "a  b", "line\nbreak", "😀", "\u0000", "\\", "\"q\"", "\ud800", "  lead"]))
      }
      if (kind === 3) return JSON.stringify(g.pick(["x", "src/a.ts", "ERR_X"]))
      const space = () => g.pick(["", " ", "\n  ", "\t", "\r\n"])
      if (kind === 4) {
        return `[${space()}${
          Array.from({ length: g.int(5) }, () => value(depth + 1)).join(`${space()},${space()}`)
        }${space()}]`
      }
      return `{${space()}${
        Array.from({ length: g.int(5) }, (_, i) => `"k${i}"${space()}:${space()}${value(depth + 1)}`).join(
          `,${space()}`
        )
      }${space()}}`
    }
    for (let n = 0; n < 2000; n++) {
      const text = value(0)
      const safe = compressSafe(text)
      expect(parsesAs(safe), text).toEqual(parsesAs(text))
      // big integers keep their digits: the text of every number is unchanged
      for (const number of text.match(/-?\d+(?:\.\d+)?(?:e-?\d+)?/g) ?? []) expect(safe, text).toContain(number)
    }
  })
})

/** Where generated Markdown goes: the first line's prefix, the next lines', and a blank line's. */
interface Container {
  readonly first: string
  readonly rest: string
  readonly blank: ReadonlyArray<string>
}

const TOP: Container = { first: "", rest: "", blank: ["", "  "] }
const LIST_MARKERS = ["- ", "* ", "+ ", "-   ", "1. ", "2) ", "10. "]
const WORDS = ["alpha", "beta  gamma", "x = 1", "see `code` here", "~~ not a fence", "`` nor this", "end."]

/**
 * A Markdown document mixing paragraphs (trailing spaces, blank runs), bullet and ordered lists and block
 * quotes nested up to 3 deep, and fences of both kinds and lengths at every valid indentation, holding
 * blank lines, trailing spaces and lines that look like fences but do not close them; the last fence
 * may be left open. Returns the text and its fenced blocks, each as the text of its lines.
 */
const markdown = (seed: number): { readonly text: string; readonly blocks: ReadonlyArray<string> } => {
  const g = generator(seed)
  const lines: Array<string> = []
  const blocks: Array<string> = []
  const words = () => Array.from({ length: 1 + g.int(3) }, () => g.pick(WORDS)).join(" ") + " ".repeat(g.int(3))
  /** A line in `c`: its first line gets the first prefix. */
  const line = (c: { prefix: string; readonly rest: string }, content: string) => {
    lines.push(c.prefix + content)
    c.prefix = c.rest
  }
  const paragraph = (c: { prefix: string; readonly rest: string }) => {
    for (let n = 1 + g.int(3); n > 0; n--) line(c, words())
  }
  const fence = (
    c: { prefix: string; readonly rest: string; readonly blank: ReadonlyArray<string> },
    options: { readonly open: boolean; readonly afterList: boolean }
  ) => {
    const start = lines.length
    const char = g.pick(["`", "~"])
    const other = char === "`" ? "~" : "`"
    const length = 3 + g.int(3)
    // on a list marker's line the fence starts right after the marker (more spaces would widen the
    // item); after a list item, one indented as far as its content would be in it
    const onMarker = c.prefix !== c.rest && /[-+*.)] +$/.test(c.prefix)
    const indent = onMarker || options.afterList ? "" : " ".repeat(g.int(4))
    const info = g.pick(["", "ts", " python  ", char === "~" ? " a ` b" : " a b"])
    line(c, indent + char.repeat(length) + info)
    for (let n = g.int(7); n > 0; n--) {
      const kind = g.int(8)
      if (kind === 0) lines.push(g.pick(c.blank))
      else if (kind === 1) line(c, " ".repeat(g.int(4)) + other.repeat(3 + g.int(4)))
      else if (kind === 2) line(c, " ".repeat(g.int(4)) + char.repeat(1 + g.int(length - 1)))
      else if (kind === 3) line(c, " ".repeat(g.int(4)) + char.repeat(length + g.int(2)) + "x")
      else if (kind === 4) line(c, " ".repeat(4 + g.int(3)) + char.repeat(length))
      else if (kind === 5) line(c, g.pick(["- not a list", "> not a quote", "1. nor this", "<x> nor a tag"]))
      else line(c, words() + g.pick(["", "\t", "   "]))
    }
    if (!options.open) line(c, " ".repeat(g.int(4)) + char.repeat(length + g.int(2)) + g.pick(["", "  ", "\t"]))
    blocks.push(lines.slice(start).join("\n"))
  }
  /**
   * `count` blocks in `container`, blank lines between them (none before or after a fence, at times);
   * the kind of the last.
   */
  const content = (container: Container, depth: number, count: number): string => {
    const c = { prefix: container.first, rest: container.rest, blank: container.blank }
    let previous = ""
    for (let i = 0; i < count; i++) {
      const kind = depth < 3 ? g.pick(["paragraph", "fence", "list", "quote"]) : g.pick(["paragraph", "fence"])
      if (i > 0) {
        const least = kind === "fence" || previous === "fence" ? 0 : 1
        for (let n = least + g.int(3); n > 0; n--) lines.push(g.pick(c.blank))
      }
      if (kind === "paragraph") paragraph(c)
      else if (kind === "fence") fence(c, { open: false, afterList: previous === "list" })
      else if (kind === "list") {
        const marker = g.pick(LIST_MARKERS)
        const rest = c.rest + " ".repeat(marker.length)
        content({ first: c.prefix + marker, rest, blank: container.blank }, depth + 1, 1 + g.int(3))
      } else {
        const rest = c.rest + "> "
        content({ first: c.prefix + "> ", rest, blank: [rest.trimEnd(), rest] }, depth + 1, 1 + g.int(3))
      }
      c.prefix = c.rest
      previous = kind
    }
    return previous
  }
  const last = content(TOP, 0, 1 + g.int(5))
  if (g.int(4) === 0) {
    // a fence left open: it runs to the end, in a list item, a block quote or at the top
    for (let n = 1 + g.int(2); n > 0; n--) lines.push("")
    const container = g.pick<Container>([TOP, { first: "- ", rest: "  ", blank: [""] }, {
      first: "> ",
      rest: "> ",
      blank: [">"]
    }])
    fence({ prefix: container.first, rest: container.rest, blank: container.blank }, {
      open: true,
      afterList: last === "list"
    })
  }
  return { text: lines.join("\n"), blocks }
}

describe("fences in generated Markdown", () => {
  /** Whether `text` holds `block` as whole lines. */
  const holds = (text: string, block: string) => `\n${text}\n`.includes(`\n${block}\n`)

  it("300 documents: exactly the fenced blocks kept, byte for byte; the rest tidied; idempotent", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const { blocks, text } = markdown(seed)
      const why = `seed ${seed}: ${JSON.stringify(text)}`
      expect(splitProtected(text).filter((p) => p.kept).map((p) => p.text.replace(/\n$/, "")), why).toEqual(
        blocks.map((block) => block.replace(/\n$/, ""))
      )
      const safe = compressSafe(text)
      const aggressive = compressAggressive(text, new Set()).text
      for (const block of blocks) {
        expect(holds(safe, block), why).toBe(true)
        expect(holds(aggressive, block), why).toBe(true)
      }
      expect(safe.length, why).toBeLessThanOrEqual(text.length)
      expect(aggressive.length, why).toBeLessThanOrEqual(safe.length)
      expect(compressSafe(safe), why).toBe(safe)
      expect(compressAggressive(aggressive, new Set()).text, why).toBe(aggressive)
      // what lies outside the blocks is still compressed: no trailing white space, no blank runs
      if (safe !== text) {
        for (const piece of splitProtected(safe)) {
          if (!piece.kept) expect(/[ \t]\n|\n\n\n|[ \t]$/.test(piece.text), why).toBe(false)
        }
      }
    }
  })
})

describe("hard inputs", () => {
  it("lone surrogates and NUL: no throw, and what comes out is what went in where nothing changed", () => {
    const text = `ok \ud800 lone\u0000 \udc00 end   \n\n\n${ESC}[31mred${ESC}[0m`
    expect(compressSafe(text)).toBe(`ok \ud800 lone\u0000 \udc00 end\n\nred`)
  })

  it("50 MB of log compresses within the time bound, and 50 MB of colour too", () => {
    const line = "2026-11-25T10:00:00.000Z INFO  request served in 12ms path=/v1/chat/completions status=200   \n"
    const plain = line.repeat(Math.ceil(50e6 / line.length))
    let started = performance.now()
    const out = compressSafe(plain)
    expect(performance.now() - started).toBeLessThan(15_000)
    expect(out.length).toBeLessThan(plain.length)
    const coloured = `${ESC}[32m${line}${ESC}[0m`.repeat(Math.ceil(50e6 / (line.length + 9)))
    started = performance.now()
    expect(compressSafe(coloured).length).toBeLessThan(coloured.length)
    expect(performance.now() - started).toBeLessThan(15_000)
  }, 60_000)

  it("JSON nested 100,000 deep: safe leaves it alone, aggressive keeps its ends; no stack overflow", () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000)
    expect(compressSafe(deep)).toBe(deep)
    expect(compressorOf("safe")({ role: "tool", tool_call_id: "c", content: deep }).message.content).toBe(deep)
    const cut = compressorOf("aggressive")({ role: "tool", tool_call_id: "c", content: deep })
    expect(String(cut.message.content).startsWith("[".repeat(8192))).toBe(true)
    expect(cut.cuts).toHaveLength(1)
  })
})
