/**
 * Reads a request body as JSON whatever its content type says (`curl -d` sends a form type), within
 * the configured size limit and `MAX_DEPTH` levels of nesting, and names what went wrong when it cannot.
 */
import { Effect } from "effect"
import { HttpIncomingMessage, HttpServerRequest } from "effect/http"
import { BodyTooLarge, InvalidJson, RequestError } from "../kernel/RequestError.ts"
import { bodyText } from "./BodyText.ts"

/**
 * The deepest nesting taken. V8 parses any depth, but the gateway serialises what it forwards (the
 * upstream body, the log's prompt), and `JSON.stringify` overflows the stack at a few thousand levels:
 * without this limit such a body was a 500. Real requests (tool schemas included) nest a few dozen.
 */
export const MAX_DEPTH = 256

/**
 * Whether `text` nests arrays and objects deeper than `limit`; a linear scan that jumps over strings
 * with `indexOf`, so a body of prose costs little more than finding its quotes.
 */
export const nestsDeeperThan = (text: string, limit: number): boolean => {
  let depth = 0
  const length = text.length
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i)
    if (c === 34) {
      // to the closing quote: one not preceded by an odd run of backslashes
      let end = text.indexOf("\"", i + 1)
      while (end !== -1) {
        let slashes = 0
        while (text.charCodeAt(end - 1 - slashes) === 92) slashes++
        if (slashes % 2 === 0) break
        end = text.indexOf("\"", end + 1)
      }
      if (end === -1) return false
      i = end
    } else if (c === 91 || c === 123) {
      if (++depth > limit) return true
    } else if (c === 93 || c === 125) {
      depth--
    }
  }
  return false
}

const parse = (text: string): Effect.Effect<unknown, RequestError> => {
  if (nestsDeeperThan(text, MAX_DEPTH)) {
    return Effect.fail(
      new RequestError({
        reason: new InvalidJson({ message: `The request body nests deeper than ${MAX_DEPTH} levels.` })
      })
    )
  }
  try {
    return Effect.succeed(JSON.parse(text))
  } catch {
    // an empty body is told apart only once parsing failed: no copy of every body on the way
    return /^\s*$/.test(text)
      ? Effect.succeed(null)
      : Effect.fail(new RequestError({ reason: new InvalidJson({ message: "The request body is not valid JSON." }) }))
  }
}

/** The limit the body is read under (App.ts sets it from `GATEWAY_BODY_LIMIT_BYTES`), as a refusal. */
const tooLarge = Effect.gen(function*() {
  const limit = yield* HttpIncomingMessage.MaxBodySize
  return yield* new RequestError({ reason: new BodyTooLarge({ limitBytes: limit === undefined ? 0 : Number(limit) }) })
})

/** The body of `request`, parsed (`readJsonBody` reads the request from the context). */
export const readJsonBodyOf = Effect.fnUntraced(function*(request: HttpServerRequest.HttpServerRequest) {
  // a body declared over the limit is refused before any of it is read
  const limit = yield* HttpIncomingMessage.MaxBodySize
  const declared = request.headers["content-length"]
  if (limit !== undefined && declared !== undefined && declared.length > 0 && Number(declared) > Number(limit)) {
    return yield* tooLarge
  }
  const text = yield* bodyText(request, limit).pipe(
    Effect.catchTag("HttpServerError", (error) =>
      Effect.gen(function*() {
        if (error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge") return yield* tooLarge
        return yield* new RequestError({
          reason: new InvalidJson({ message: "The request body is not valid JSON." })
        })
      }))
  )
  const json = yield* parse(text)
  if (json === null) {
    return yield* new RequestError({
      reason: new InvalidJson({ message: "The request body is empty; send a JSON object." })
    })
  }
  return json
})

export const readJsonBody = Effect.flatMap(HttpServerRequest.HttpServerRequest, readJsonBodyOf)
