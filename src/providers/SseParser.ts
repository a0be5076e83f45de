/**
 * An upstream's Server-Sent Events text into events: what `Sse.makeParser` from `effect/encoding` does,
 * event for event (the same `Event` and `Retry` values, the same `SseError` when an event outgrows
 * `maxEventSize`; `SseParser.test.ts` feeds both the same text cut at random places and compares), in
 * a sixth of the time. Effect's parser looks at every character in JavaScript; this one lets `indexOf`
 * find the line ends and the colons. The bench's streamed answer (14 events, 2.3 KB) took 11-14 µs to
 * parse with Effect's and 1.5-2 µs with this, where the gateway spends 300-400 µs of CPU on the whole
 * streamed request.
 */
import { Duration } from "effect"
import { Sse } from "effect/encoding"

/** Effect's own default: the most one event may hold, its data and any unterminated line together. */
const DEFAULT_MAX_EVENT_SIZE = 10 * 1024 * 1024

const LF = 10
const SPACE = 32
const RETRY_VALUE = /^\d+$/

export interface SseParser {
  /** Parses the next piece of the body; an error when the event being read grew past the limit. */
  readonly feed: (text: string) => Sse.SseError | undefined
}

export const makeSseParser = (
  onParse: (event: Sse.AnyEvent) => void,
  maxEventSize: number = DEFAULT_MAX_EVENT_SIZE
): SseParser => {
  let first = true
  // the start of a line whose end has not arrived yet
  let pending = ""
  // the previous piece ended in CR: an LF starting this one belongs to it
  let skipLF = false
  let lastEventId: string | undefined
  let eventName: string | undefined
  let data = ""
  let hasData = false
  // `data`'s size as the standard counts it, one newline after each line
  let dataSize = 0

  const reset = () => {
    first = true
    pending = ""
    skipLF = false
    lastEventId = undefined
    eventName = undefined
    data = ""
    hasData = false
    dataSize = 0
  }

  const line = (text: string): void => {
    if (text.length === 0) {
      const name = eventName
      eventName = undefined
      if (!hasData) return
      const payload = data
      data = ""
      hasData = false
      dataSize = 0
      onParse({
        _tag: "Event",
        id: lastEventId,
        event: name === undefined || name === "" ? "message" : name,
        data: payload
      })
      return
    }
    const colon = text.indexOf(":")
    // a comment: a line that starts with a colon
    if (colon === 0) return
    const field = colon === -1 ? text : text.slice(0, colon)
    const value = colon === -1 ? "" : text.slice(text.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1)
    if (field === "data") {
      data = hasData ? `${data}\n${value}` : value
      hasData = true
      dataSize += value.length + 1
    } else if (field === "event") {
      eventName = value
    } else if (field === "id") {
      if (!value.includes("\u0000")) lastEventId = value
    } else if (field === "retry" && RETRY_VALUE.test(value)) {
      onParse(new Sse.Retry({ duration: Duration.millis(parseInt(value, 10)), lastEventId }))
    }
  }

  const feed = (piece: string): Sse.SseError | undefined => {
    if (piece.length === 0) return undefined
    let chunk = piece
    if (first) {
      first = false
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1)
    }
    let position = 0
    if (skipLF) {
      skipLF = false
      if (chunk.charCodeAt(0) === LF) position = 1
    }
    const length = chunk.length
    // the next LF and CR at or after `position`, -1 once there are no more
    let lf = chunk.indexOf("\n", position)
    let cr = chunk.indexOf("\r", position)
    while (position < length) {
      if (lf !== -1 && lf < position) lf = chunk.indexOf("\n", position)
      if (cr !== -1 && cr < position) cr = chunk.indexOf("\r", position)
      const end = lf === -1 ? cr : cr === -1 || lf < cr ? lf : cr
      if (end === -1) {
        pending += chunk.slice(position)
        break
      }
      let complete = chunk.slice(position, end)
      if (pending !== "") {
        complete = pending + complete
        pending = ""
      }
      if (end === cr) {
        if (end + 1 === length) skipLF = true
        position = chunk.charCodeAt(end + 1) === LF ? end + 2 : end + 1
      } else {
        position = end + 1
      }
      line(complete)
    }
    if (pending.length + dataSize > maxEventSize) {
      reset()
      return new Sse.SseError({ reason: new Sse.EventTooLarge({ maxEventSize }) })
    }
    return undefined
  }

  return { feed }
}
