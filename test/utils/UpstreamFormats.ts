/**
 * The upstream formats as a fake upstream plays them, for tests that run a client against each: a text
 * answer and a tool call (`get_weather` for Paris), whole or streamed, in OpenAI-compatible chat, OpenAI
 * Responses, Anthropic and Gemini; and what the upstream received, read from its own format. The
 * providers they are routed to are `upstreamProviders`'s, on one fake upstream.
 */
import { anthropicMessage, anthropicStream } from "./FakeAnthropic.ts"
import {
  chunk,
  completion,
  type Reply,
  reply,
  textStream,
  toolCall,
  type UpstreamRequest,
  usage,
  usageChunk
} from "./FakeUpstream.ts"

export const TEXT = "Hello from upstream"
export const CITY = { city: "Paris" }
export const SCHEMA = { type: "object", properties: { city: { type: "string" } }, required: ["city"] }

export type Json = Record<string, unknown>
export interface Answer {
  readonly text: string
  readonly call: { readonly name: string; readonly args: unknown } | undefined
}

export interface Upstream {
  readonly name: string
  readonly model: string
  readonly reply: (kind: "text" | "tool", stream: boolean) => Reply | undefined
  /** The model id and tool names the upstream received, read from its own format. */
  readonly received: (
    request: UpstreamRequest
  ) => { readonly model: string | undefined; readonly tools: ReadonlyArray<string> }
}

let seq = 0
const responseEvent = (type: string, data: Json = {}) => ({ type, sequence_number: seq++, ...data })
const responseBody = (output: ReadonlyArray<Json>) => ({
  id: "resp_up",
  object: "response",
  created_at: 1,
  status: "completed",
  model: "gpt-up",
  output,
  usage: { input_tokens: 5, output_tokens: 3, total_tokens: 8 }
})
const textItem = {
  id: "msg_up",
  type: "message",
  status: "completed",
  role: "assistant",
  content: [{ type: "output_text", text: TEXT, annotations: [] }]
}
const callItem = {
  id: "fc_up",
  type: "function_call",
  status: "completed",
  call_id: "call_up",
  name: "get_weather",
  arguments: JSON.stringify(CITY)
}
const geminiBody = (parts: ReadonlyArray<Json>) => ({
  candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
  usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 3, totalTokenCount: 8 }
})
const names = (tools: unknown, key: (tool: Json) => unknown): ReadonlyArray<string> =>
  Array.isArray(tools) ? tools.map((tool) => String(key(tool as Json))) : []

export const upstreams: ReadonlyArray<Upstream> = [
  {
    name: "OpenAI-compatible chat",
    model: "fake/m-chat",
    reply: (kind, stream) =>
      kind === "text"
        ? stream ? reply.sse(textStream(["Hello", " from upstream"])) : reply.json(completion({ content: TEXT }))
        : stream
        ? reply.sse([
          chunk({
            role: "assistant",
            tool_calls: [{
              index: 0,
              id: "call_up",
              type: "function",
              function: { name: "get_weather", arguments: "" }
            }]
          }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(CITY) } }] }, "tool_calls"),
          usageChunk(usage(5, 3))
        ])
        : reply.json(completion({ toolCalls: [toolCall("call_up", "get_weather", CITY)] })),
    received: (request) => ({
      model: request.body.model,
      tools: names(request.body.tools, (tool) => (tool["function"] as Json)["name"])
    })
  },
  {
    name: "OpenAI Responses",
    model: "oresp/m-resp",
    reply: (kind, stream) => {
      const item = kind === "text" ? textItem : callItem
      if (!stream) return reply.json(responseBody([item]))
      seq = 0
      const deltas = kind === "text"
        ? [
          responseEvent("response.output_text.delta", {
            item_id: "msg_up",
            output_index: 0,
            content_index: 0,
            delta: TEXT
          })
        ]
        : [
          responseEvent("response.function_call_arguments.delta", {
            item_id: "fc_up",
            output_index: 0,
            delta: JSON.stringify(CITY)
          })
        ]
      return reply.sse([
        responseEvent("response.created", { response: { ...responseBody([]), status: "in_progress", usage: null } }),
        responseEvent("response.output_item.added", {
          output_index: 0,
          item: kind === "text" ? { ...textItem, content: [] } : { ...callItem, arguments: "" }
        }),
        ...deltas,
        responseEvent("response.output_item.done", { output_index: 0, item }),
        responseEvent("response.completed", { response: responseBody([item]) })
      ], { named: true, end: "end" })
    },
    received: (request) => ({ model: request.body.model, tools: names(request.body.tools, (tool) => tool["name"]) })
  },
  {
    name: "Anthropic",
    model: "anthropic/m-claude",
    reply: (kind, stream) => {
      const content = kind === "text"
        ? [{ type: "text" as const, text: TEXT }]
        : [{ type: "tool_use" as const, id: "toolu_up", name: "get_weather", input: CITY }]
      return stream ? anthropicStream({ content }) : reply.json(anthropicMessage({ content }))
    },
    received: (request) => ({ model: request.body.model, tools: names(request.body.tools, (tool) => tool["name"]) })
  },
  {
    name: "Gemini",
    model: "gem/m-gemini",
    reply: (kind, stream) => {
      const parts = kind === "text" ? [{ text: TEXT }] : [{ functionCall: { name: "get_weather", args: CITY } }]
      if (!stream) return reply.json(geminiBody(parts))
      return kind === "text"
        ? reply.sse([
          { candidates: [{ content: { role: "model", parts: [{ text: "Hello" }] } }] },
          geminiBody([{ text: " from upstream" }])
        ], { end: "end" })
        : reply.sse([geminiBody(parts)], { end: "end" })
    },
    received: (request) => ({
      model: /\/models\/([^:]+):/.exec(request.path)?.[1],
      tools: names(
        ((request.body.tools as Array<Json> | undefined)?.[0])?.["functionDeclarations"],
        (tool) => tool["name"]
      )
    })
  },
  {
    name: "local",
    model: "local/echo",
    reply: () => undefined,
    received: () => ({ model: undefined, tools: [] })
  }
]

/** The routing file's providers for `upstreams` (beside `fake`, the OpenAI-compatible one), on `url`. */
export const upstreamProviders = (url: string) => ({
  oresp: { adapter: "openai-responses", base_url: `${url}/v1`, api_key_env: "FAKE_KEY" },
  anthropic: { adapter: "anthropic", base_url: url, api_key_env: "FAKE_KEY" },
  gem: { adapter: "gemini", base_url: `${url}/v1beta`, api_key_env: "FAKE_KEY" }
})
