/**
 * Anthropic's documented examples as fixtures for the anthropic adapter's tests: whole messages (text,
 * tool use, extended thinking with its signature, redacted thinking), the event sequences of the
 * "Streaming Messages" page (a basic text answer, a tool use built from `input_json_delta`s, extended
 * thinking with its `signature_delta`, a web search whose server tool blocks are the API's own), a
 * recorded stream whose `message_delta` restates the input usage, error bodies, and a call and options.
 */
import { Duration, Redacted } from "effect"
import type { AnthropicOptions } from "../../../src/providers/anthropic/Anthropic.ts"
import type { ProviderCall } from "../../../src/providers/Provider.ts"

export type Event = Readonly<Record<string, unknown>>

export const call = (overrides: Partial<ProviderCall> = {}): ProviderCall => ({
  modelId: "claude-opus-4-1-20250805",
  messages: [{ role: "user", content: "Hello" }],
  tools: undefined,
  toolChoice: undefined,
  maxTokens: undefined,
  passthrough: {},
  requestId: "req-42",
  ...overrides
})

/** A call that carries the client's own Messages request (`body`, `headers`) as it came. */
export const nativeCall = (
  body: Readonly<Record<string, unknown>>,
  headers: Readonly<Record<string, string>>,
  overrides: Partial<ProviderCall> = {},
  clientTurns = 1
): ProviderCall => call({ ...overrides, native: { request: { format: "anthropic", body, headers }, clientTurns } })

export const optionsOf = (overrides: Partial<AnthropicOptions> = {}): AnthropicOptions => ({
  name: "anthropic",
  baseUrl: "https://api.anthropic.test",
  apiKey: Redacted.make("sk-ant-test"),
  headers: { "x-title": "svc-gateway" },
  models: ["claude-opus-4-1-20250805"],
  timeouts: { firstByte: Duration.seconds(10), idle: Duration.seconds(10), total: Duration.seconds(30) },
  ...overrides
})

/** The documented get_weather tool. */
export const weatherTool = {
  name: "get_weather",
  description: "Get the current weather in a given location",
  input_schema: {
    type: "object",
    properties: { location: { type: "string", description: "The city and state, e.g. San Francisco, CA" } },
    required: ["location"]
  }
}

// --- whole messages (Messages API reference, tool use and extended thinking guides) ---------------

export const textMessage = {
  id: "msg_013Zva2CMHLNnXjNJJKqJ2EF",
  type: "message",
  role: "assistant",
  model: "claude-opus-4-1-20250805",
  content: [{ type: "text", text: "Hi! My name is Claude." }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 2095, output_tokens: 503 }
}

export const toolUseMessage = {
  id: "msg_01Aq9w938a90dw8q",
  type: "message",
  role: "assistant",
  model: "claude-opus-4-1-20250805",
  content: [
    { type: "text", text: "I'll check the current weather in San Francisco for you." },
    {
      type: "tool_use",
      id: "toolu_01A09q90qw90lq917835lq9",
      name: "get_weather",
      input: { location: "San Francisco, CA", unit: "celsius" }
    }
  ],
  stop_reason: "tool_use",
  stop_sequence: null,
  usage: { input_tokens: 472, output_tokens: 89, cache_read_input_tokens: 1024, cache_creation_input_tokens: 256 }
}

export const thinkingMessage = {
  id: "msg_01Thinking",
  type: "message",
  role: "assistant",
  model: "claude-opus-4-1-20250805",
  content: [
    {
      type: "thinking",
      thinking: "Let me analyze this step by step...",
      signature: "WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL...."
    },
    { type: "text", text: "Based on my analysis..." }
  ],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 50, output_tokens: 300 }
}

export const redactedThinkingMessage = {
  ...thinkingMessage,
  id: "msg_01Redacted",
  content: [
    { type: "thinking", thinking: "Let me analyze this step by step...", signature: "sig_a" },
    {
      type: "redacted_thinking",
      data:
        "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pLmN3kF8/dW5hR7xJ0aP1oLs9yTcMnKVf2wRpEGjH9XZaBt4UvDcPrQ..."
    },
    { type: "text", text: "Based on my analysis..." }
  ]
}

// --- streams (the "Streaming Messages" page's full HTTP stream responses) ---------------------------

/** "Basic streaming request". */
export const basicTextEvents: ReadonlyArray<Event> = [
  {
    type: "message_start",
    message: {
      id: "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY",
      type: "message",
      role: "assistant",
      content: [],
      model: "claude-opus-4-1-20250805",
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 25, output_tokens: 1 }
    }
  },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "ping" },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hello" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "!" } },
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 15 } },
  { type: "message_stop" }
]

const textDeltas = (index: number, pieces: ReadonlyArray<string>): Array<Event> =>
  pieces.map((text) => ({ type: "content_block_delta", index, delta: { type: "text_delta", text } }))

const jsonDeltas = (index: number, pieces: ReadonlyArray<string>): Array<Event> =>
  pieces.map((partial_json) => ({
    type: "content_block_delta",
    index,
    delta: { type: "input_json_delta", partial_json }
  }))

export const toolUseText = "Okay, let's check the weather for San Francisco, CA:"
export const toolUseArguments = [
  "",
  "{\"location\":",
  " \"San",
  " Francisc",
  "o,",
  " CA\"",
  ", ",
  "\"unit\": \"fah",
  "renheit\"}"
]

/** "Streaming request with tool use": text, then a tool use whose input arrives as partial JSON. */
export const toolUseEvents: ReadonlyArray<Event> = [
  {
    type: "message_start",
    message: {
      id: "msg_014p7gG3wDgGV9EUtLvnow3U",
      type: "message",
      role: "assistant",
      model: "claude-opus-4-1-20250805",
      stop_sequence: null,
      usage: { input_tokens: 472, output_tokens: 2 },
      content: [],
      stop_reason: null
    }
  },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "ping" },
  ...textDeltas(0, [
    "Okay",
    ",",
    " let",
    "'s",
    " check",
    " the",
    " weather",
    " for",
    " San",
    " Francisco",
    ",",
    " CA",
    ":"
  ]),
  { type: "content_block_stop", index: 0 },
  {
    type: "content_block_start",
    index: 1,
    content_block: { type: "tool_use", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", input: {} }
  },
  ...jsonDeltas(1, toolUseArguments),
  { type: "content_block_stop", index: 1 },
  { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 89 } },
  { type: "message_stop" }
]

export const thinkingText = [
  "Let me solve this step by step:\n\n1. First break down 27 * 453",
  "\n2. 453 = 400 + 50 + 3",
  "\n3. 27 * 400 = 10,800",
  "\n4. 27 * 50 = 1,350",
  "\n5. 27 * 3 = 81",
  "\n6. 10,800 + 1,350 + 81 = 12,231"
]
export const thinkingSignature = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds..."

/** "Streaming request with extended thinking" (its message_start and message_delta carry no usage). */
export const thinkingEvents: ReadonlyArray<Event> = [
  {
    type: "message_start",
    message: {
      id: "msg_01...",
      type: "message",
      role: "assistant",
      content: [],
      model: "claude-opus-4-1-20250805",
      stop_reason: null,
      stop_sequence: null
    }
  },
  { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
  ...thinkingText.map((thinking) => ({
    type: "content_block_delta",
    index: 0,
    delta: { type: "thinking_delta", thinking }
  })),
  { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: thinkingSignature } },
  { type: "content_block_stop", index: 0 },
  { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "27 * 453 = 12,231" } },
  { type: "content_block_stop", index: 1 },
  { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null } },
  { type: "message_stop" }
]

/**
 * "Streaming request with web search tool use", shortened: a server tool's use and result are the API's
 * own blocks, and the final `message_delta` restates the input usage.
 */
export const webSearchEvents: ReadonlyArray<Event> = [
  {
    type: "message_start",
    message: {
      id: "msg_01G...",
      type: "message",
      role: "assistant",
      model: "claude-opus-4-1-20250805",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 2679, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 3 }
    }
  },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  ...textDeltas(0, ["I'll check", " the current weather in New York City for you"]),
  { type: "ping" },
  ...textDeltas(0, ["."]),
  { type: "content_block_stop", index: 0 },
  {
    type: "content_block_start",
    index: 1,
    content_block: { type: "server_tool_use", id: "srvtoolu_014hJH82Qum7Td6UV8gDXThB", name: "web_search", input: {} }
  },
  ...jsonDeltas(1, ["", "{\"query", "\":", " \"weather", " NY", "C to", "day\"}"]),
  { type: "content_block_stop", index: 1 },
  {
    type: "content_block_start",
    index: 2,
    content_block: {
      type: "web_search_tool_result",
      tool_use_id: "srvtoolu_014hJH82Qum7Td6UV8gDXThB",
      content: [{
        type: "web_search_result",
        title: "Weather in New York City in May 2025",
        url: "https://world-weather.info/forecast/usa/new_york/may-2025/",
        encrypted_content: "Ev0DCioIAxgCIiQ3NmU4ZmI4OC1k...",
        page_age: null
      }]
    }
  },
  { type: "content_block_stop", index: 2 },
  { type: "content_block_start", index: 3, content_block: { type: "text", text: "" } },
  ...textDeltas(3, ["Here's the current weather information for New York", " City."]),
  { type: "content_block_stop", index: 3 },
  {
    type: "message_delta",
    delta: { stop_reason: "end_turn", stop_sequence: null },
    usage: {
      input_tokens: 10682,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 510,
      server_tool_use: { web_search_requests: 1 }
    }
  },
  { type: "message_stop" }
]

/** A redacted thinking block streamed: it arrives whole in its start. */
export const redactedThinkingEvents: ReadonlyArray<Event> = [
  {
    type: "message_start",
    message: {
      id: "msg_02",
      type: "message",
      role: "assistant",
      content: [],
      model: "claude-3-7-sonnet-20250219",
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 12, cache_read_input_tokens: 100, cache_creation_input_tokens: 40, output_tokens: 1 }
    }
  },
  {
    type: "content_block_start",
    index: 0,
    content_block: { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix..." }
  },
  { type: "content_block_stop", index: 0 },
  { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Done." } },
  { type: "content_block_stop", index: 1 },
  { type: "message_delta", delta: { stop_reason: "max_tokens", stop_sequence: null }, usage: { output_tokens: 7 } },
  { type: "message_stop" }
]

/** The documented error event. */
export const overloadedEvent: Event = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }

/** Events as the API frames them: each named by its `type`. */
export const sseText = (events: ReadonlyArray<Event | string>): string =>
  events.map((event) =>
    typeof event === "string"
      ? `data: ${event}\n\n`
      : `event: ${String(event["type"])}\ndata: ${JSON.stringify(event)}\n\n`
  ).join("")

/** Anthropic's error body, as the API answers a non-2xx. */
export const errorBody = (type: string, message: string) => ({
  type: "error",
  error: { type, message },
  request_id: "req_011CSHoEeqs5C35K2UUqR7Fy"
})
