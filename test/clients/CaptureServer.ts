/**
 * A tiny stand-in for the Anthropic API on 127.0.0.1 (a random port), for watching what a real client
 * such as Claude Code sends: it records every request (method, url, headers, body) and answers
 * `POST /v1/messages` (with or without a query such as `?beta=true`) with a scripted message, streamed
 * as the Messages API's server-sent events when the request asks for `stream: true` and as one JSON body
 * otherwise. Anything else gets a 404 in Anthropic's error shape. Plain node:http, no gateway code.
 */
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

export interface CapturedRequest {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  /** The body parsed as JSON when it is JSON, the raw text otherwise ("" when there is none). */
  readonly body: unknown
}

export type AnswerBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown }

/** What the server answers to one `POST /v1/messages`: the blocks of the assistant's message. */
export type Script = (request: CapturedRequest, messagesSoFar: number) => ReadonlyArray<AnswerBlock>

export interface CaptureServer {
  readonly url: string
  readonly requests: ReadonlyArray<CapturedRequest>
  /** The recorded `POST /v1/messages` requests, in order. */
  readonly messages: () => ReadonlyArray<CapturedRequest>
  readonly close: () => Promise<void>
}

export const isMessagesRequest = (request: CapturedRequest): boolean =>
  request.method === "POST" && (request.url === "/v1/messages" || request.url.startsWith("/v1/messages?"))

const sayHi: Script = () => [{ type: "text", text: "Hi from the capture server." }]

const modelOf = (body: unknown): string => {
  const model = typeof body === "object" && body !== null ? (body as { model?: unknown }).model : undefined
  return typeof model === "string" ? model : "claude-capture-1"
}

const wantsStream = (body: unknown): boolean =>
  typeof body === "object" && body !== null && (body as { stream?: unknown }).stream === true

/** The whole message for `blocks`, as a non-streamed answer carries it. */
export const wholeMessage = (blocks: ReadonlyArray<AnswerBlock>, model: string, id: string) => ({
  id,
  type: "message",
  role: "assistant",
  model,
  content: blocks,
  stop_reason: blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
})

/** The documented event sequence of a streamed message with `blocks`, as `[event name, data]` pairs. */
export const streamEvents = (
  blocks: ReadonlyArray<AnswerBlock>,
  model: string,
  id: string
): ReadonlyArray<readonly [string, Readonly<Record<string, unknown>>]> => {
  const whole = wholeMessage(blocks, model, id)
  const events: Array<readonly [string, Readonly<Record<string, unknown>>]> = [
    ["message_start", {
      type: "message_start",
      message: { ...whole, content: [], stop_reason: null, usage: { ...whole.usage, output_tokens: 1 } }
    }]
  ]
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      events.push(["content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" }
      }])
      if (index === 0) events.push(["ping", { type: "ping" }])
      for (const text of block.text.match(/\S+\s*|\s+/g) ?? []) {
        events.push(["content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "text_delta", text }
        }])
      }
    } else {
      events.push(["content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} }
      }])
      if (index === 0) events.push(["ping", { type: "ping" }])
      const json = JSON.stringify(block.input)
      const half = Math.floor(json.length / 2)
      for (const partial_json of ["", json.slice(0, half), json.slice(half)]) {
        events.push(["content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json }
        }])
      }
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }])
  })
  events.push(["message_delta", {
    type: "message_delta",
    delta: { stop_reason: whole.stop_reason, stop_sequence: null },
    usage: { output_tokens: whole.usage.output_tokens }
  }])
  events.push(["message_stop", { type: "message_stop" }])
  return events
}

const parseBody = (text: string): unknown => {
  if (text === "") return ""
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

/** Starts the server on 127.0.0.1 with a random port; `script` decides each message's blocks. */
export const startCaptureServer = async (script: Script = sayHi): Promise<CaptureServer> => {
  const requests: Array<CapturedRequest> = []
  let answered = 0
  const server = createServer((req, res) => {
    const parts: Array<Buffer> = []
    req.on("data", (part: Buffer) => parts.push(part))
    req.on("end", () => {
      const request: CapturedRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: parseBody(Buffer.concat(parts).toString("utf8"))
      }
      requests.push(request)
      if (!isMessagesRequest(request)) {
        res.writeHead(404, { "content-type": "application/json" })
        res.end(
          JSON.stringify({
            type: "error",
            error: { type: "not_found_error", message: `Not found: ${request.method} ${request.url}` }
          })
        )
        return
      }
      const blocks = script(request, answered)
      answered += 1
      const id = `msg_capture${String(answered).padStart(3, "0")}`
      const model = modelOf(request.body)
      if (!wantsStream(request.body)) {
        res.writeHead(200, { "content-type": "application/json", "request-id": `req_capture${answered}` })
        res.end(JSON.stringify(wholeMessage(blocks, model, id)))
        return
      }
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        "request-id": `req_capture${answered}`
      })
      for (const [event, data] of streamEvents(blocks, model, id)) {
        res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
      }
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    messages: () => requests.filter(isMessagesRequest),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
