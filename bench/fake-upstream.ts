/**
 * Benchmark fake upstream: a fast OpenAI-compatible `POST /v1/chat/completions` on 127.0.0.1.
 * Non-stream requests get a fixed small `chat.completion` with usage; `stream: true` gets a role chunk,
 * ten content chunks, a finish chunk, a usage chunk (`choices: []`) and `data: [DONE]`, one `res.write`
 * per event and no artificial delay. Run as a child of bench/run.ts (it reports its port over IPC and
 * exits when the parent goes away), or import `startFakeUpstream` directly.
 */
import http from "node:http"
import { pathToFileURL } from "node:url"
import { listen, serveAsChild, type RunningServer } from "./child.ts"

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
  Buffer.from(`data: ${JSON.stringify({
    id: ID,
    object: "chat.completion.chunk",
    created: CREATED,
    model: MODEL,
    choices,
    ...(usage === undefined ? {} : { usage })
  })}\n\n`)

/** Every SSE event of one streamed reply, serialised once. */
const streamEvents: ReadonlyArray<Buffer> = [
  chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]),
  ...TOKENS.map((t) => chunk([{ index: 0, delta: { content: t }, finish_reason: null }])),
  chunk([{ index: 0, delta: {}, finish_reason: "stop" }]),
  chunk([], USAGE),
  Buffer.from("data: [DONE]\n\n")
]

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
  if (req.method !== "POST" || path !== "/v1/chat/completions") {
    req.resume()
    return sendJson(res, 404, errorBody(`no route ${req.method ?? "?"} ${path ?? "/"}`))
  }
  const parts: Array<Buffer> = []
  req.on("data", (part: Buffer) => parts.push(part))
  req.on("end", () => {
    const stream = isStreamRequest(Buffer.concat(parts).toString("utf8"))
    if (stream === undefined) return sendJson(res, 400, errorBody("body is not a JSON object"))
    if (!stream) return sendJson(res, 200, completionBody)
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    for (const event of streamEvents) res.write(event)
    res.end()
  })
}

export const startFakeUpstream = (port = 0): Promise<RunningServer> => listen(http.createServer(handle), port)

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const port = Number(process.argv[2] ?? "0")
  void serveAsChild(() => startFakeUpstream(Number.isInteger(port) ? port : 0))
}
