/**
 * The gateway's SSE parser gives what Effect's gives, event for event: the same text, cut into pieces
 * at random places, goes through both, over lines ended by LF, CR and CRLF (a CRLF cut between its two
 * characters too), comments, every field, a byte order mark, and events that outgrow the limit.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration } from "effect"
import { Sse } from "effect/encoding"
import { makeSseParser } from "../../src/providers/SseParser.ts"

type Seen = ReadonlyArray<unknown>

/** Events and errors as plain values, in the order they came. */
const run = (
  make: (onParse: (event: Sse.AnyEvent) => void) => { feed: (text: string) => Sse.SseError | undefined },
  pieces: ReadonlyArray<string>
): Seen => {
  const seen: Array<unknown> = []
  const parser = make((event) =>
    seen.push(
      event._tag === "Retry"
        ? { _tag: "Retry", millis: Duration.toMillis(event.duration), lastEventId: event.lastEventId }
        : { ...event }
    )
  )
  for (const piece of pieces) {
    const error = parser.feed(piece)
    if (error !== undefined) seen.push({ error: error.message })
  }
  return seen
}

const effects = (max?: number) => (onParse: (event: Sse.AnyEvent) => void) =>
  Sse.makeParser(onParse, max === undefined ? undefined : { maxEventSize: max })
const ours = (max?: number) => (onParse: (event: Sse.AnyEvent) => void) => makeSseParser(onParse, max)

/** A small seeded generator: every run of the suite tries the same cases. */
const random = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
}

const LINES = [
  "data: {\"choices\":[]}",
  "data:no space",
  "data:  two spaces",
  "data",
  "data:",
  "event: message_delta",
  "event:",
  "event",
  "id: 7",
  "id: a\u0000b",
  "id",
  "retry: 1500",
  "retry: 15x",
  "retry",
  ": a comment",
  ":",
  "unknown: field",
  "data: ünïcödé ✓",
  "",
  ""
]
const ENDS = ["\n", "\r", "\r\n"]

const document = (next: () => number, lines: number): string => {
  let out = next() < 0.2 ? "\uFEFF" : ""
  for (let i = 0; i < lines; i++) {
    out += LINES[Math.floor(next() * LINES.length)]! + ENDS[Math.floor(next() * ENDS.length)]!
  }
  // sometimes the text stops mid-line
  return next() < 0.3 ? out + "data: cut" : out
}

/** `text` in pieces cut at random places, empty pieces among them. */
const cut = (next: () => number, text: string): Array<string> => {
  const pieces: Array<string> = []
  let at = 0
  while (at < text.length) {
    const size = Math.floor(next() * 12)
    pieces.push(text.slice(at, at + size))
    at += size
  }
  return pieces
}

describe("SseParser", () => {
  it("gives the events of a streamed answer", () => {
    const text = "data: {\"a\":1}\n\nevent: ping\ndata: x\ndata: y\n\nid: 3\ndata: [DONE]\n\n"
    assert.deepStrictEqual(run(ours(), [text]), [
      { _tag: "Event", id: undefined, event: "message", data: "{\"a\":1}" },
      { _tag: "Event", id: undefined, event: "ping", data: "x\ny" },
      { _tag: "Event", id: "3", event: "message", data: "[DONE]" }
    ])
  })

  it("takes a CRLF cut between its CR and its LF as one line end", () => {
    assert.deepStrictEqual(run(ours(), ["data: a\r", "\n\r", "\ndata: b\r\n\r\n"]), [
      { _tag: "Event", id: undefined, event: "message", data: "a" },
      { _tag: "Event", id: undefined, event: "message", data: "b" }
    ])
  })

  it("gives a retry field as a Retry, and fails an event past the limit", () => {
    assert.deepStrictEqual(run(ours(), ["id: 9\nretry: 250\n\n"]), [
      { _tag: "Retry", millis: 250, lastEventId: "9" }
    ])
    assert.deepStrictEqual(run(ours(16), ["data: 0123456789", "abcdef"]), [
      { error: "Pending SSE event exceeded the maximum size of 16" }
    ])
  })

  it("gives what Effect's parser gives, over 3,000 documents cut at random places", () => {
    const next = random(20261127)
    for (let i = 0; i < 3000; i++) {
      const text = document(next, 1 + Math.floor(next() * 30))
      const pieces = cut(next, text)
      // a small limit on some documents, so the size check and the reset after it are compared too
      const max = next() < 0.2 ? 8 + Math.floor(next() * 40) : undefined
      assert.deepStrictEqual(run(ours(max), pieces), run(effects(max), pieces), JSON.stringify(pieces))
    }
  })

  it("parses one long line that arrives a character at a time", () => {
    const data = "x".repeat(5000)
    const pieces = [..."data: ", ...data, "\n", "\n"]
    assert.deepStrictEqual(run(ours(), pieces), [{ _tag: "Event", id: undefined, event: "message", data }])
  })
})
