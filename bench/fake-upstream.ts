/**
 * Benchmark fake upstream on 127.0.0.1: a fast OpenAI-compatible `POST /v1/chat/completions`, a fast
 * Anthropic `POST /v1/messages` and a fast OpenAI `POST /v1/responses`, answering the same text. Chat completions: non-stream requests get a
 * fixed small `chat.completion` with usage; `stream: true` gets a role chunk, ten content chunks, a
 * finish chunk, a usage chunk (`choices: []`) and `data: [DONE]`. Messages: a fixed `message`, or the
 * Messages API's events (start, block start, ping, ten text deltas, block stop, delta, stop). Responses:
 * a fixed `response`, or the Responses API's events (created, in progress, item and part added, ten
 * text deltas, text, part and item done, completed with usage). One
 * `res.write` per event and no artificial delay. Run as a child of bench/run.ts (it reports its port over IPC and
 * exits when the parent goes away), or import `startFakeUpstream` directly.
 */
import http from "node:http"
import { pathToFileURL } from "node:url"
import { listen, type RunningServer, serveAsChild } from "./child.ts"

const ID = "chatcmpl-bench"
const CREATED = 1_700_000_000
const MODEL = "fake-model"
const TOKENS = ["Hello", " from", " the", " fake", " upstream", ",", " a", " bench", " reply", "."]
/** The assistant text every reply carries, whole or streamed; sanity checks compare against it. */
export const EXPECTED_CONTENT = TOKENS.join("")
const USAGE = { prompt_tokens: 12, completion_tokens: TOKENS.length, total_tokens: 12 + TOKENS.length }

const completionBody = Buffer.from(JSON.stringify({
  id: ID,
  object: "chat.completion",
  created: CREATED,
  model: MODEL,
  choices: [{ index: 0, message: { role: "assistant", content: EXPECTED_CONTENT }, finish_reason: "stop" }],
  usage: USAGE
}))

const chunk = (choices: ReadonlyArray<unknown>, usage?: typeof USAGE): Buffer =>
  Buffer.from(`data: ${
    JSON.stringify({
      id: ID,
      object: "chat.completion.chunk",
      created: CREATED,
      model: MODEL,
      choices,
      ...(usage === undefined ? {} : { usage })
    })
  }\n\n`)

/** Every SSE event of one streamed reply, serialised once. */
const streamEvents: ReadonlyArray<Buffer> = [
  chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]),
  ...TOKENS.map((t) => chunk([{ index: 0, delta: { content: t }, finish_reason: null }])),
  chunk([{ index: 0, delta: {}, finish_reason: "stop" }]),
  chunk([], USAGE),
  Buffer.from("data: [DONE]\n\n")
]

/** The Messages API's terminator, as the gateway writes it (sanity checks and the load compare against it). */
export const MESSAGES_STREAM_END = "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

const MESSAGES_USAGE = { input_tokens: 12, output_tokens: TOKENS.length }

const messageBody = Buffer.from(JSON.stringify({
  id: "msg_bench",
  type: "message",
  role: "assistant",
  model: MODEL,
  content: [{ type: "text", text: EXPECTED_CONTENT }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: MESSAGES_USAGE
}))

const event = (data: Readonly<Record<string, unknown>>): Buffer =>
  Buffer.from(`event: ${String(data["type"])}\ndata: ${JSON.stringify(data)}\n\n`)

const messageEvents: ReadonlyArray<Buffer> = [
  event({
    type: "message_start",
    message: {
      id: "msg_bench",
      type: "message",
      role: "assistant",
      model: MODEL,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 1 }
    }
  }),
  event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
  event({ type: "ping" }),
  ...TOKENS.map((text) => event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })),
  event({ type: "content_block_stop", index: 0 }),
  event({
    type: "message_delta",
    delta: { stop_reason: "end_turn", stop_sequence: null },
    usage: { output_tokens: TOKENS.length }
  }),
  Buffer.from(MESSAGES_STREAM_END)
]

/** The Responses API's last event, as every Responses stream ends (sanity checks and the load look for it). */
export const RESPONSES_LAST_EVENT = "response.completed"

const RESPONSES_USAGE = {
  input_tokens: 12,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: TOKENS.length,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 12 + TOKENS.length
}
const outputText = { type: "output_text", text: EXPECTED_CONTENT, annotations: [] }
const outputMessage = {
  id: "msg_bench",
  type: "message",
  status: "completed",
  role: "assistant",
  content: [outputText]
}
const response = (status: string, output: ReadonlyArray<unknown>, usage: typeof RESPONSES_USAGE | null) => ({
  id: "resp_bench",
  object: "response",
  created_at: CREATED,
  status,
  error: null,
  incomplete_details: null,
  model: MODEL,
  output,
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
  usage
})

const responseBody = Buffer.from(JSON.stringify(response("completed", [outputMessage], RESPONSES_USAGE)))

const responseEvents: ReadonlyArray<Buffer> = (() => {
  let sequence = 0
  const next = (data: Readonly<Record<string, unknown>>): Buffer => event({ ...data, sequence_number: sequence++ })
  const at = { item_id: "msg_bench", output_index: 0, content_index: 0 }
  return [
    next({ type: "response.created", response: response("in_progress", [], null) }),
    next({ type: "response.in_progress", response: response("in_progress", [], null) }),
    next({
      type: "response.output_item.added",
      output_index: 0,
      item: { id: "msg_bench", type: "message", status: "in_progress", role: "assistant", content: [] }
    }),
    next({ type: "response.content_part.added", ...at, part: { type: "output_text", text: "", annotations: [] } }),
    ...TOKENS.map((delta) => next({ type: "response.output_text.delta", ...at, delta, logprobs: [] })),
    next({ type: "response.output_text.done", ...at, text: EXPECTED_CONTENT, logprobs: [] }),
    next({ type: "response.content_part.done", ...at, part: outputText }),
    next({ type: "response.output_item.done", output_index: 0, item: outputMessage }),
    next({ type: RESPONSES_LAST_EVENT, response: response("completed", [outputMessage], RESPONSES_USAGE) })
  ]
})()

const modelsBody = Buffer.from(JSON.stringify({
  object: "list",
  data: [{ id: MODEL, object: "model", created: CREATED, owned_by: "bench" }]
}))

const sendJson = (res: http.ServerResponse, status: number, body: Buffer): void => {
  res.writeHead(status, { "content-type": "application/json", "content-length": body.length })
  res.end(body)
}

const errorBody = (message: string): Buffer =>
  Buffer.from(JSON.stringify({ error: { message, type: "invalid_request_error", code: null } }))

const isStreamRequest = (raw: string): boolean | undefined => {
  try {
    const parsed: unknown = JSON.parse(raw)
    if (typeof parsed !== "object" || parsed === null) return undefined
    return "stream" in parsed && parsed.stream === true
  } catch {
    return undefined
  }
}

const handle = (req: http.IncomingMessage, res: http.ServerResponse): void => {
  const path = (req.url ?? "/").split("?")[0]
  if (req.method === "GET" && path === "/v1/models") return sendJson(res, 200, modelsBody)
  const messages = path === "/v1/messages"
  const responses = path === "/v1/responses"
  if (req.method !== "POST" || (path !== "/v1/chat/completions" && !messages && !responses)) {
    req.resume()
    return sendJson(res, 404, errorBody(`no route ${req.method ?? "?"} ${path ?? "/"}`))
  }
  const parts: Array<Buffer> = []
  req.on("data", (part: Buffer) => parts.push(part))
  req.on("end", () => {
    const stream = isStreamRequest(Buffer.concat(parts).toString("utf8"))
    if (stream === undefined) return sendJson(res, 400, errorBody("body is not a JSON object"))
    if (!stream) return sendJson(res, 200, messages ? messageBody : responses ? responseBody : completionBody)
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    for (const event of messages ? messageEvents : responses ? responseEvents : streamEvents) res.write(event)
    res.end()
  })
}

export const startFakeUpstream = (port = 0): Promise<RunningServer> => listen(http.createServer(handle), port)

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const port = Number(process.argv[2] ?? "0")
  void serveAsChild(() => startFakeUpstream(Number.isInteger(port) ? port : 0))
}
