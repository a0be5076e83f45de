/**
 * A scriptable fake of an OpenAI-compatible upstream for end-to-end tests: a `node:http` server on
 * 127.0.0.1 and a random port. It records every request (method, path, headers, parsed JSON body) and
 * answers with whatever the test's handler returns: a JSON body, an OpenAI error, an SSE stream written
 * event by event (optionally slowly, optionally cut off), a request left hanging, or a dropped socket.
 * Each recorded request also tells whether the client (the gateway) closed its connection before the
 * answer was complete: how the tests see that the gateway aborted an upstream call.
 *
 * Every loop here is bounded by the events a test scripts, and `close()` ends every connection.
 */
import { createServer } from "node:http"
import type { IncomingHttpHeaders, ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { writeRouting } from "./TestGateway.ts"

/** The JSON body an OpenAI-compatible client sends, loosely typed: tests compare it with `toEqual`. */
export interface UpstreamBody {
  readonly model?: string
  readonly messages?: ReadonlyArray<Readonly<Record<string, unknown>>>
  readonly stream?: boolean
  readonly stream_options?: Readonly<Record<string, unknown>>
  readonly tools?: ReadonlyArray<unknown>
  readonly [field: string]: unknown
}

export interface UpstreamRequest {
  /** 1-based arrival order. */
  readonly seq: number
  readonly method: string
  /** The path with its query, e.g. `/v1/chat/completions`. */
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly rawBody: string
  /** The body parsed as a JSON object; `{}` when empty or not an object. */
  readonly body: UpstreamBody
  /** True once the client closed the connection before the answer was complete. */
  readonly closedByClient: () => boolean
  /** Resolves true as soon as the client closes the connection early, false if it has not within `ms`. */
  readonly waitForClientClose: (ms: number) => Promise<boolean>
}

/** One SSE event: a JSON payload, or the exact text after `data: ` (say, a broken payload). */
export type SseEvent = { readonly raw: string } | Readonly<Record<string, unknown>>

export type Reply =
  | {
    readonly _tag: "Json"
    readonly status: number
    readonly body: unknown
    readonly headers?: Readonly<Record<string, string>>
  }
  | {
    readonly _tag: "Sse"
    readonly events: ReadonlyArray<SseEvent>
    /** Pause before each event after the first. */
    readonly delayMs: number
    /** After the events: `[DONE]` and end, end without `[DONE]`, drop the socket, or keep it open. */
    readonly end: "done" | "end" | "destroy" | "hang"
    /** Each event named by its payload's `type` (`event: message_start`), as Anthropic frames them. */
    readonly named?: boolean
  }
  /** Never answer; the connection stays open until the client or `close()` ends it. */
  | { readonly _tag: "Hang" }
  /** A JSON answer's headers and the start of its body, then nothing more. */
  | { readonly _tag: "JsonHang"; readonly status: number; readonly start: string }
  /** Drop the socket without a byte of answer. */
  | { readonly _tag: "Destroy" }

export type Handler = (request: UpstreamRequest) => Reply

export const reply = {
  json: (body: unknown, status = 200): Reply => ({ _tag: "Json", status, body }),
  /** OpenAI's error body `{"error":{"message","type","param","code"}}` with the given status. */
  error: (
    status: number,
    message: string,
    details: {
      readonly type?: string
      readonly code?: string | null
      readonly param?: string | null
      /** More response headers (`retry-after`). */
      readonly headers?: Readonly<Record<string, string>>
    } = {}
  ): Reply => ({
    _tag: "Json",
    status,
    ...(details.headers === undefined ? {} : { headers: details.headers }),
    body: {
      error: {
        message,
        type: details.type ?? "invalid_request_error",
        param: details.param ?? null,
        code: details.code ?? null
      }
    }
  }),
  sse: (
    events: ReadonlyArray<SseEvent>,
    options: {
      readonly delayMs?: number
      readonly end?: "done" | "end" | "destroy" | "hang"
      readonly named?: boolean
    } = {}
  ): Reply => ({
    _tag: "Sse",
    events,
    delayMs: options.delayMs ?? 0,
    end: options.end ?? "done",
    named: options.named ?? false
  }),
  hang: { _tag: "Hang" } as Reply,
  /** `application/json` headers and `start`, then the body never ends. */
  jsonHang: (start = "{", status = 200): Reply => ({ _tag: "JsonHang", status, start }),
  destroy: { _tag: "Destroy" } as Reply
}

// ---------------------------------------------------------------------------------------------------
// OpenAI wire builders for scripting answers.

const CREATED = 1_700_000_000

export interface UsageBody {
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly total_tokens: number
  readonly prompt_tokens_details: { readonly cached_tokens: number }
  readonly completion_tokens_details: { readonly reasoning_tokens: number }
}

export const usage = (prompt: number, completion: number, cached = 0, reasoning = 0): UsageBody => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  prompt_tokens_details: { cached_tokens: cached },
  completion_tokens_details: { reasoning_tokens: reasoning }
})

export interface ToolCallBody {
  readonly id: string
  readonly type: "function"
  readonly function: { readonly name: string; readonly arguments: string }
}

export const toolCall = (id: string, name: string, args: unknown): ToolCallBody => ({
  id,
  type: "function",
  function: { name, arguments: JSON.stringify(args) }
})

/** A whole `chat.completion` as an upstream sends it. */
export const completion = (options: {
  readonly content?: string | null
  readonly toolCalls?: ReadonlyArray<ToolCallBody>
  readonly finishReason?: string
  readonly usage?: UsageBody
  readonly model?: string
  readonly extra?: Readonly<Record<string, unknown>>
}) => ({
  id: "chatcmpl-upstream",
  object: "chat.completion",
  created: CREATED,
  model: options.model ?? "some-model-2024",
  choices: [{
    index: 0,
    message: {
      role: "assistant",
      content: options.content === undefined ? null : options.content,
      ...(options.toolCalls === undefined ? {} : { tool_calls: options.toolCalls })
    },
    finish_reason: options.finishReason ?? (options.toolCalls === undefined ? "stop" : "tool_calls")
  }],
  usage: options.usage ?? usage(5, 3),
  ...options.extra
})

/** One `chat.completion.chunk` with a single choice. */
export const chunk = (delta: Readonly<Record<string, unknown>>, finishReason: string | null = null) => ({
  id: "chatcmpl-upstream",
  object: "chat.completion.chunk",
  created: CREATED,
  model: "some-model-2024",
  choices: [{ index: 0, delta, finish_reason: finishReason }]
})

/** The usage-only last chunk OpenAI sends when asked for `include_usage`. */
export const usageChunk = (body: UsageBody = usage(5, 3)) => ({
  id: "chatcmpl-upstream",
  object: "chat.completion.chunk",
  created: CREATED,
  model: "some-model-2024",
  choices: [],
  usage: body
})

/** A whole streamed answer: role, one chunk per piece of text, the finish reason, then usage. */
export const textStream = (pieces: ReadonlyArray<string>, body: UsageBody = usage(5, pieces.length)) => [
  chunk({ role: "assistant", content: "" }),
  ...pieces.map((content) => chunk({ content })),
  chunk({}, "stop"),
  usageChunk(body)
]

// ---------------------------------------------------------------------------------------------------

export interface FakeUpstream {
  /** `http://127.0.0.1:<port>`; the gateway's `base_url` is this plus `/v1`. */
  readonly url: string
  /** Every request so far, in arrival order. */
  readonly requests: ReadonlyArray<UpstreamRequest>
  /** Requests to the chat-completions path only. */
  readonly chatRequests: () => ReadonlyArray<UpstreamRequest>
  /** The last request; fails the test when there is none. */
  readonly last: () => UpstreamRequest
  /** Sets how every following request is answered. */
  readonly handle: (handler: Handler) => void
  /** Forgets the recorded requests (between tests that share one upstream). */
  readonly reset: () => void
  readonly close: () => Promise<void>
}

const notScripted: Handler = () =>
  reply.error(500, "the fake upstream has no handler for this test", { type: "server_error" })

const parseBody = (text: string): UpstreamBody => {
  try {
    const json: unknown = JSON.parse(text)
    return typeof json === "object" && json !== null && !Array.isArray(json) ? json as UpstreamBody : {}
  } catch {
    return {}
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const frame = (event: SseEvent, named: boolean) => {
  const data = `data: ${"raw" in event && typeof event.raw === "string" ? event.raw : JSON.stringify(event)}\n\n`
  const type = "type" in event ? event.type : undefined
  return named && typeof type === "string" ? `event: ${type}\n${data}` : data
}

const writeSse = async (res: ServerResponse, script: Extract<Reply, { _tag: "Sse" }>, destroy: () => void) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  res.flushHeaders()
  for (const [i, event] of script.events.entries()) {
    if (i > 0 && script.delayMs > 0) await sleep(script.delayMs)
    if (res.destroyed) return
    res.write(frame(event, script.named === true))
  }
  if (script.delayMs > 0) await sleep(script.delayMs)
  if (res.destroyed) return
  switch (script.end) {
    case "done":
      res.end("data: [DONE]\n\n")
      return
    case "end":
      res.end()
      return
    case "destroy":
      // let the written events reach the client first, so the cut is really mid-stream
      await sleep(50)
      destroy()
      return
    case "hang":
      return
  }
}

export const startFakeUpstream = async (initial: Handler = notScripted): Promise<FakeUpstream> => {
  let handler = initial
  let requests: Array<UpstreamRequest> = []
  let seq = 0
  let closing = false

  const server = createServer((req, res) => {
    const parts: Array<Buffer> = []
    req.on("data", (part: Buffer) => parts.push(part))
    req.on("end", () => {
      let closedEarly = false
      let destroyedByUs = false
      let notify: (closed: boolean) => void = () => {}
      const closed = new Promise<boolean>((resolve) => (notify = resolve))
      res.on("close", () => {
        closedEarly = !res.writableFinished && !destroyedByUs && !closing
        notify(closedEarly)
      })
      const destroy = () => {
        destroyedByUs = true
        res.destroy()
      }
      const rawBody = Buffer.concat(parts).toString("utf8")
      const request: UpstreamRequest = {
        seq: ++seq,
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        rawBody,
        body: parseBody(rawBody),
        closedByClient: () => closedEarly,
        waitForClientClose: (ms) => Promise.race([closed, sleep(ms).then(() => closedEarly)])
      }
      requests.push(request)
      let script: Reply
      try {
        script = handler(request)
      } catch (error) {
        script = reply.error(500, `the fake upstream's handler threw: ${String(error)}`, { type: "server_error" })
      }
      switch (script._tag) {
        case "Json":
          res.writeHead(script.status, { "content-type": "application/json", ...script.headers })
          res.end(JSON.stringify(script.body))
          return
        case "Sse":
          void writeSse(res, script, destroy)
          return
        case "Hang":
          return
        case "JsonHang":
          res.writeHead(script.status, { "content-type": "application/json" })
          res.write(script.start)
          return
        case "Destroy":
          destroy()
          return
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests
    },
    chatRequests: () => requests.filter((r) => r.path.endsWith("/chat/completions")),
    last: () => {
      const request = requests.at(-1)
      if (request === undefined) throw new Error("the fake upstream received no request")
      return request
    },
    handle: (next) => {
      handler = next
    },
    reset: () => {
      requests = []
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing = true
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** A URL on 127.0.0.1 where nothing listens: a port that was free a moment ago. */
export const refusedUrl = async (): Promise<string> => {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}`
}

/** The upstream API key the gateway is given for the fake provider; the fake sees it as a bearer token. */
export const UPSTREAM_KEY = "sk-upstream"

/**
 * Gateway settings that route author `fake` to this upstream (`fake/<model>` arrives as `<model>`),
 * with optional more providers, fallbacks and settings.
 */
export const fakeGatewayEnv = (
  upstream: { readonly url: string },
  options: {
    readonly providers?: Readonly<Record<string, unknown>>
    readonly fallbacks?: Readonly<Record<string, ReadonlyArray<string>>>
    readonly routes?: ReadonlyArray<unknown>
    /** The routing file's `mcp_servers`: the operator's MCP servers. */
    readonly mcpServers?: Readonly<Record<string, unknown>>
    readonly env?: Readonly<Record<string, string>>
  } = {}
): Record<string, string> => ({
  GATEWAY_CONFIG: writeRouting({
    providers: {
      fake: { adapter: "openai-compatible", base_url: `${upstream.url}/v1`, api_key_env: "FAKE_KEY" },
      ...options.providers
    },
    fallbacks: options.fallbacks ?? {},
    ...(options.routes === undefined ? {} : { routes: options.routes }),
    ...(options.mcpServers === undefined ? {} : { mcp_servers: options.mcpServers })
  }),
  FAKE_KEY: UPSTREAM_KEY,
  ...options.env
})
