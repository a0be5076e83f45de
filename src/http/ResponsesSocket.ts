/**
 * The Responses API over a WebSocket (`GET /v1/responses` with `Upgrade: websocket`), as Codex uses it
 * for a provider with `supports_websockets = true`: each text frame is a `response.create` event
 * (a Responses request body with `"type": "response.create"`), answered by the stream's events, one
 * JSON object per frame, ending with `response.completed` (or `response.failed`); errors before the
 * stream are `{"type":"error","status":...,"error":{...}}` and the connection stays open.
 *
 * Each request runs through the same pipeline as `POST /v1/responses` (auth, limits, shared tools,
 * failover, the log row), given the handshake's headers: the socket only carries it. What the socket
 * adds is continuation: a request may name the previous response of the connection
 * (`previous_response_id`) and send only its new items (`ResponseChain`). A request with
 * `"generate": false` (Codex's warm-up) calls no model: it is answered at once with an empty response
 * whose id the next request continues. The key is checked at the handshake, so a wrong one is a 401
 * the client can read, not a socket that closes.
 */
import { Effect, Exit, Option, Scope, Stream } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import type { Socket } from "effect/socket"
import { Auth } from "../auth/Auth.ts"
import { GatewayConfig } from "../Config.ts"
import { describeError } from "../core/Problem.ts"
import { OpenAiResponses } from "../dialects/responses/ResponsesDialect.ts"
import { newTimeOrderedId } from "../Ids.ts"
import { isRecord } from "../kernel/Json.ts"
import { MethodNotAllowed, RequestError } from "../kernel/RequestError.ts"
import { errorResponse } from "./ErrorResponse.ts"
import { pipeline } from "./Pipeline.ts"
import { ResponseChain } from "./ResponseChain.ts"

const dialect = OpenAiResponses

/** Handshake headers that describe the socket, not the request each frame makes. */
const SOCKET_HEADERS = new Set([
  "connection",
  "upgrade",
  "content-length",
  "transfer-encoding",
  "sec-websocket-key",
  "sec-websocket-version",
  "sec-websocket-extensions",
  "sec-websocket-protocol",
  "openai-beta"
])

/** An error event, as the Responses WebSocket sends one: the connection stays open after it. */
export const errorEvent = (status: number, error: unknown) => JSON.stringify({ type: "error", status, error })

const refused = (code: string, message: string, status = 400) =>
  errorEvent(status, { type: "invalid_request_error", code, message, param: null })

/** The request one frame makes: the handshake's headers and URL, the frame's body. */
const frameRequest = (handshake: HttpServerRequest.HttpServerRequest, body: unknown) => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(handshake.headers)) {
    if (!SOCKET_HEADERS.has(name)) headers.set(name, value)
  }
  headers.set("content-type", "application/json")
  const url = new URL(handshake.url, "http://gateway.invalid")
  return HttpServerRequest.fromWeb(
    new Request(url, { method: "POST", headers, body: JSON.stringify(body) })
  )
}

/** The data of each server-sent event in `text`, and what is left of an event not yet whole. */
export const sseData = (text: string): { readonly data: ReadonlyArray<string>; readonly rest: string } => {
  const events = text.split(/\r?\n\r?\n/)
  const rest = events.pop() ?? ""
  const data: Array<string> = []
  for (const event of events) {
    const lines = event.split(/\r?\n/).filter((line) => line.startsWith("data:"))
    if (lines.length === 0) continue
    const joined = lines.map((line) => line.slice(line.startsWith("data: ") ? 6 : 5)).join("\n")
    if (joined !== "[DONE]") data.push(joined)
  }
  return { data, rest }
}

/** The warm-up's answer: an empty response, created and completed, to continue from. */
const warmUp = (body: Readonly<Record<string, unknown>>) => {
  const response = {
    id: newTimeOrderedId("resp"),
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "completed",
    model: typeof body["model"] === "string" ? body["model"] : null,
    output: [],
    usage: null
  }
  return {
    id: response.id,
    events: [
      JSON.stringify({
        type: "response.created",
        sequence_number: 0,
        response: { ...response, status: "in_progress" }
      }),
      JSON.stringify({ type: "response.completed", sequence_number: 1, response })
    ]
  }
}

/** One `response.create` frame, answered on `writer`. */
const answerFrame = (
  respond: Effect.Success<ReturnType<typeof pipeline>>,
  handshake: HttpServerRequest.HttpServerRequest,
  chain: ResponseChain,
  writer: Socket.Writer,
  frame: string
) =>
  Effect.gen(function*() {
    const config = yield* GatewayConfig
    if (Buffer.byteLength(frame) > config.bodyLimitBytes) {
      return yield* writer.write(
        refused(
          "request_too_large",
          `The event is larger than the gateway's limit of ${config.bodyLimitBytes} bytes.`,
          413
        )
      )
    }
    let event: unknown
    try {
      event = JSON.parse(frame)
    } catch {
      return yield* writer.write(refused("invalid_json", "The event is not valid JSON."))
    }
    if (!isRecord(event) || event["type"] !== "response.create") {
      return yield* writer.write(refused(
        "unsupported_event",
        `Expected an event of type 'response.create'${
          isRecord(event) && typeof event["type"] === "string" ? `, not '${event["type"].slice(0, 60)}'` : ""
        }.`
      ))
    }
    const { generate, type: _, ...asked } = event
    const body = chain.continued(asked)
    if (body === undefined) {
      return yield* writer.write(refused(
        "previous_response_not_found",
        `Previous response with id '${String(asked["previous_response_id"])}' not found on this connection.`
      ))
    }
    if (generate === false) {
      const warm = warmUp(body)
      chain.remember(warm.id, body["input"], [])
      return yield* writer.writeAll(warm.events as [string, ...Array<string>])
    }
    const scope = yield* Scope.make()
    const response = yield* respond.pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, frameRequest(handshake, { ...body, stream: true })),
      Scope.provide(scope)
    )
    const sent = response.body
    if (sent._tag !== "Stream") {
      yield* Scope.close(scope, Exit.void)
      const text = sent._tag === "Uint8Array" ? new TextDecoder().decode(sent.body) : "{}"
      const parsed: unknown = JSON.parse(text)
      return yield* writer.write(errorEvent(response.status, isRecord(parsed) ? parsed["error"] : parsed))
    }
    // the pipeline's stream closes the request's scope when it ends, whichever way
    const decoder = new TextDecoder()
    let rest = ""
    // the body is `sseResponse`'s, which never fails (a failure becomes its error event): typed `unknown` as
    // every response body is
    yield* Stream.runForEach(sent.stream as Stream.Stream<Uint8Array>, (bytes) => {
      const read = sseData(rest + decoder.decode(bytes, { stream: true }))
      rest = read.rest
      if (read.data.length === 0) return Effect.void
      for (const data of read.data) {
        // a completed response is what the next request may continue
        if (data.includes("\"response.completed\"")) chain.rememberCompleted(JSON.parse(data), body["input"])
      }
      return writer.writeAll(read.data as [string, ...Array<string>])
    })
  })

/** A WebSocket handshake on the Responses path: the key checked, then frames answered in turn. */
export const responsesSocket = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  if (request.headers["upgrade"]?.toLowerCase() !== "websocket") {
    return errorResponse(
      new RequestError({
        reason: new MethodNotAllowed({ method: request.method, path: request.url, allowed: ["POST"] })
      })
    ).pipe(HttpServerResponse.setHeader("allow", "POST"))
  }
  const caller = yield* Effect.result((yield* Auth).authenticateKey(dialect.apiKey(request.headers)))
  if (caller._tag === "Failure") {
    const { body, status } = dialect.errorBody(describeError(caller.failure))
    return HttpServerResponse.jsonUnsafe(body, { status })
  }
  yield* Effect.scoped(Effect.gen(function*() {
    const socket = yield* request.upgrade
    const writer = yield* socket.writer
    const reader = yield* socket.reader
    const chain = new ResponseChain()
    const decoder = new TextDecoder()
    const idle = (yield* GatewayConfig).socketIdleTimeout
    // the pipeline made once a connection: its frames are its requests
    const respond = yield* pipeline(dialect)
    // frames in turn: a request's events all go out before the next request is read; a socket silent
    // for the idle timeout between requests is closed (Codex opens a new one when it needs it)
    for (;;) {
      const frames = yield* Effect.timeoutOption(reader.pull, idle)
      if (Option.isNone(frames)) return
      for (const frame of frames.value) {
        yield* answerFrame(respond, request, chain, writer, typeof frame === "string" ? frame : decoder.decode(frame))
      }
    }
  })).pipe(
    // the client closed the connection (Codex drops it without a close frame when it exits)
    Effect.catchTag("SocketError", () => Effect.void),
    Effect.catchTag("HttpServerError", () => Effect.void)
  )
  return HttpServerResponse.empty()
})
