/**
 * OpenAI's documented Responses API examples as fixtures for the Responses adapter's tests: whole
 * responses (the API reference's text answer, the function-calling guide's call, the reasoning guide's
 * summary with encrypted content, an answer cut by `max_output_tokens`), the event sequences of the
 * streaming guide and API reference (text, a function call built from argument deltas, reasoning
 * summaries with their encrypted content), error bodies and events, a Codex-like request, a call and
 * options.
 */
import { Duration, Redacted } from "effect"
import type { OpenAiCompatibleOptions } from "../../../src/providers/openai/OpenAiCompatible.ts"
import type { ProviderCall } from "../../../src/providers/Provider.ts"

export type Event = Readonly<Record<string, unknown>>

export const call = (overrides: Partial<ProviderCall> = {}): ProviderCall => ({
  modelId: "gpt-5",
  messages: [{ role: "user", content: "Hello" }],
  tools: undefined,
  toolChoice: undefined,
  maxTokens: undefined,
  passthrough: {},
  requestId: "req-42",
  ...overrides
})

/** A call that carries the client's own Responses request as it came; its first `clientTurns` messages are the client's. */
export const nativeCall = (
  body: Readonly<Record<string, unknown>>,
  overrides: Partial<ProviderCall> = {},
  clientTurns = 1
): ProviderCall =>
  call({ ...overrides, native: { request: { format: "openai-responses", body, headers: {} }, clientTurns } })

export const optionsOf = (overrides: Partial<OpenAiCompatibleOptions> = {}): OpenAiCompatibleOptions => ({
  name: "openai",
  baseUrl: "https://api.openai.test/v1/",
  apiKey: Redacted.make("sk-openai-test"),
  headers: { "x-title": "svc-gateway" },
  models: ["gpt-5"],
  timeouts: { firstByte: Duration.seconds(10), idle: Duration.seconds(10), total: Duration.seconds(30) },
  ...overrides
})

/**
 * What Codex sends (`codex exec`, wire_api = "responses"), fields as its captured requests have them:
 * instructions, developer and user messages, a reasoning item with its encrypted content, a call and its
 * output, an item type the gateway does not know, function and non-function tools.
 */
export const codexBody = {
  model: "openai/gpt-5-codex",
  instructions: "You are Codex, based on GPT-5. You are running as a coding agent in the Codex CLI.",
  input: [
    {
      type: "message",
      role: "developer",
      content: [{ type: "input_text", text: "<permissions instructions>workspace-write</permissions instructions>" }]
    },
    {
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: "<environment_context>\n  <cwd>/work</cwd>\n</environment_context>" }]
    },
    { type: "message", role: "user", content: [{ type: "input_text", text: "list the files" }] },
    {
      type: "reasoning",
      summary: [{ type: "summary_text", text: "**Listing the files**" }],
      content: null,
      encrypted_content: "gAAAAABo-encrypted-1"
    },
    { type: "function_call", name: "exec_command", arguments: "{\"cmd\":\"ls\"}", call_id: "call_ls" },
    { type: "function_call_output", call_id: "call_ls", output: "a.txt\nb.txt" },
    { type: "tool_search_call", id: "tsc_1", status: "completed", query: "git" }
  ],
  tools: [
    {
      type: "function",
      name: "exec_command",
      description: "Runs a command in a PTY, returning output or a session ID for ongoing interaction.",
      strict: false,
      parameters: {
        type: "object",
        properties: { cmd: { type: "string" } },
        required: ["cmd"],
        additionalProperties: false
      }
    },
    { type: "web_search", external_web_access: false },
    {
      type: "namespace",
      name: "mcp__docs",
      description: "Docs server",
      tools: [{ type: "function", name: "search", parameters: { type: "object" } }]
    },
    { type: "tool_search", max_results: 8 }
  ],
  tool_choice: "auto",
  parallel_tool_calls: false,
  reasoning: { effort: "medium", summary: "auto" },
  store: false,
  stream: true,
  include: ["reasoning.encrypted_content"],
  prompt_cache_key: "019a6f0c-7d1e-7a52-b4a3-6c2b1d9e0f11",
  client_metadata: { originator: "codex_exec", session_id: "019a6f0c" },
  text: { verbosity: "low" }
}

// --- whole responses -----------------------------------------------------------------------------

const responseFields = {
  error: null,
  incomplete_details: null,
  instructions: null,
  max_output_tokens: null,
  parallel_tool_calls: true,
  previous_response_id: null,
  reasoning: { effort: null, summary: null },
  store: true,
  temperature: 1.0,
  text: { format: { type: "text" } },
  tool_choice: "auto",
  tools: [],
  top_p: 1.0,
  truncation: "disabled",
  user: null,
  metadata: {}
}

export const storyText =
  "In a peaceful grove beneath a silver moon, a unicorn named Lumina discovered a hidden pool that reflected the stars."

/** The API reference's "Create a model response" answer. */
export const textResponse = {
  id: "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b",
  object: "response",
  created_at: 1741476542,
  status: "completed",
  ...responseFields,
  model: "gpt-4.1-2025-04-14",
  output: [{
    type: "message",
    id: "msg_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b",
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text: storyText, annotations: [] }]
  }],
  usage: {
    input_tokens: 36,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 87,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 123
  }
}

/** The function-calling guide's answer: one `get_weather` call. */
export const functionCallResponse = {
  id: "resp_fc_1",
  object: "response",
  created_at: 1741476600,
  status: "completed",
  ...responseFields,
  model: "gpt-4.1-2025-04-14",
  output: [{
    type: "function_call",
    id: "fc_12345xyz",
    call_id: "call_12345xyz",
    name: "get_weather",
    arguments: "{\"location\":\"Paris, France\"}",
    status: "completed"
  }],
  usage: {
    input_tokens: 291,
    input_tokens_details: { cached_tokens: 256 },
    output_tokens: 23,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 314
  }
}

export const reasoningItem = {
  id: "rs_6876cf02e0bc8192b74af0fb64b715ff06fa2fcced15a5ac",
  type: "reasoning",
  summary: [
    { type: "summary_text", text: "**Answering a simple question**\n\nI'm looking at a straightforward question." },
    { type: "summary_text", text: "**Checking the answer**\n\nParis it is." }
  ],
  encrypted_content: "gAAAAABodsgCVVyiG-encrypted-reasoning"
}

const reasoningAnswer = {
  id: "msg_6876cf054f58",
  type: "message",
  status: "completed",
  role: "assistant",
  content: [{ type: "output_text", annotations: [], text: "The capital of France is Paris." }]
}

/** The reasoning guide's answer: a summarised, encrypted reasoning item, then the text. */
export const reasoningResponse = {
  id: "resp_6876cf02",
  object: "response",
  created_at: 1752616706,
  status: "completed",
  ...responseFields,
  model: "o4-mini-2025-04-16",
  reasoning: { effort: "medium", summary: "detailed" },
  store: false,
  output: [reasoningItem, reasoningAnswer],
  usage: {
    input_tokens: 13,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 143,
    output_tokens_details: { reasoning_tokens: 128 },
    total_tokens: 156
  }
}

/** The reasoning guide's answer cut by `max_output_tokens` while still reasoning. */
export const incompleteResponse = {
  id: "resp_incomplete",
  object: "response",
  created_at: 1741476700,
  status: "incomplete",
  ...responseFields,
  incomplete_details: { reason: "max_output_tokens" },
  model: "o4-mini-2025-04-16",
  output: [{ id: "rs_cut", type: "reasoning", summary: [] }],
  usage: {
    input_tokens: 75,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 300,
    output_tokens_details: { reasoning_tokens: 300 },
    total_tokens: 375
  }
}

// --- streams ---------------------------------------------------------------------------------------

let sequence = 0
const event = (type: string, data: Readonly<Record<string, unknown>> = {}): Event => ({
  type,
  sequence_number: sequence++,
  ...data
})
const inProgress = (response: Readonly<Record<string, unknown>>) => ({
  ...response,
  status: "in_progress",
  output: [],
  usage: null
})

const streamedId = "msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654"
const streamedMessage = {
  id: streamedId,
  type: "message",
  status: "completed",
  role: "assistant",
  content: [{ type: "output_text", text: "Hi there! How can I assist you today?", annotations: [] }]
}
const streamedResponse = {
  id: "resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654",
  object: "response",
  created_at: 1741290958,
  status: "completed",
  ...responseFields,
  instructions: "You are a helpful assistant.",
  model: "gpt-4.1-2025-04-14",
  output: [streamedMessage],
  usage: { input_tokens: 37, output_tokens: 11, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 48 }
}

/** The API reference's streamed "Hi there! How can I assist you today?", every event of it. */
export const textEvents = (): ReadonlyArray<Event> => {
  sequence = 0
  const at = { item_id: streamedId, output_index: 0, content_index: 0 }
  return [
    event("response.created", { response: inProgress(streamedResponse) }),
    event("response.in_progress", { response: inProgress(streamedResponse) }),
    event("response.output_item.added", {
      output_index: 0,
      item: { ...streamedMessage, status: "in_progress", content: [] }
    }),
    event("response.content_part.added", { ...at, part: { type: "output_text", text: "", annotations: [] } }),
    ...["Hi", " there", "!", " How", " can", " I", " assist", " you", " today", "?"].map((delta) =>
      event("response.output_text.delta", { ...at, delta, logprobs: [] })
    ),
    event("response.output_text.done", { ...at, text: "Hi there! How can I assist you today?", logprobs: [] }),
    event("response.content_part.done", { ...at, part: streamedMessage.content[0] }),
    event("response.output_item.done", { output_index: 0, item: streamedMessage }),
    event("response.completed", { response: streamedResponse })
  ]
}

const callItem = {
  type: "function_call",
  id: "fc_1234xyz",
  call_id: "call_1234xyz",
  name: "get_weather",
  arguments: "{\"location\":\"Paris, France\"}",
  status: "completed"
}

/** The function-calling guide's streamed `get_weather` call. */
export const functionCallEvents = (): ReadonlyArray<Event> => {
  sequence = 0
  const response = { ...functionCallResponse, id: "resp_1234xyz", output: [callItem] }
  const at = { response_id: "resp_1234xyz", item_id: "fc_1234xyz", output_index: 0 }
  return [
    event("response.created", { response: inProgress(response) }),
    event("response.in_progress", { response: inProgress(response) }),
    event("response.output_item.added", {
      response_id: "resp_1234xyz",
      output_index: 0,
      item: { ...callItem, arguments: "", status: "in_progress" }
    }),
    ...["{\"", "location", "\":\"", "Paris", ",", " France", "\"}"].map((delta) =>
      event("response.function_call_arguments.delta", { ...at, delta })
    ),
    event("response.function_call_arguments.done", { ...at, arguments: callItem.arguments }),
    event("response.output_item.done", { response_id: "resp_1234xyz", output_index: 0, item: callItem }),
    event("response.completed", { response })
  ]
}

/** The reasoning guide's streamed summaries (two parts), the item's encrypted content, then the text. */
export const reasoningEvents = (): ReadonlyArray<Event> => {
  sequence = 0
  const response = reasoningResponse
  const rs = { item_id: reasoningItem.id, output_index: 0 }
  const message = reasoningAnswer
  const text = { item_id: message.id, output_index: 1, content_index: 0 }
  const [first, second] = reasoningItem.summary
  return [
    event("response.created", { response: inProgress(response) }),
    event("response.in_progress", { response: inProgress(response) }),
    event("response.output_item.added", {
      output_index: 0,
      item: { id: reasoningItem.id, type: "reasoning", summary: [] }
    }),
    event("response.reasoning_summary_part.added", {
      ...rs,
      summary_index: 0,
      part: { type: "summary_text", text: "" }
    }),
    event("response.reasoning_summary_text.delta", {
      ...rs,
      summary_index: 0,
      delta: "**Answering a simple question**\n\n"
    }),
    event("response.reasoning_summary_text.delta", {
      ...rs,
      summary_index: 0,
      delta: "I'm looking at a straightforward question."
    }),
    event("response.reasoning_summary_text.done", { ...rs, summary_index: 0, text: first!.text }),
    event("response.reasoning_summary_part.done", { ...rs, summary_index: 0, part: first }),
    event("response.reasoning_summary_part.added", {
      ...rs,
      summary_index: 1,
      part: { type: "summary_text", text: "" }
    }),
    event("response.reasoning_summary_text.delta", { ...rs, summary_index: 1, delta: second!.text }),
    event("response.reasoning_summary_text.done", { ...rs, summary_index: 1, text: second!.text }),
    event("response.reasoning_summary_part.done", { ...rs, summary_index: 1, part: second }),
    event("response.output_item.done", { output_index: 0, item: reasoningItem }),
    event("response.output_item.added", { output_index: 1, item: { ...message, status: "in_progress", content: [] } }),
    event("response.content_part.added", { ...text, part: { type: "output_text", text: "", annotations: [] } }),
    event("response.output_text.delta", { ...text, delta: "The capital of France is Paris." }),
    event("response.output_text.done", { ...text, text: "The capital of France is Paris." }),
    event("response.content_part.done", { ...text, part: message.content[0] }),
    event("response.output_item.done", { output_index: 1, item: message }),
    event("response.completed", { response })
  ]
}

/** A stream cut by `max_output_tokens`: `response.incomplete` ends it. */
export const incompleteEvents = (): ReadonlyArray<Event> => {
  sequence = 0
  return [
    event("response.created", { response: inProgress(incompleteResponse) }),
    event("response.output_item.added", { output_index: 0, item: { id: "rs_cut", type: "reasoning", summary: [] } }),
    event("response.output_item.done", { output_index: 0, item: { id: "rs_cut", type: "reasoning", summary: [] } }),
    event("response.incomplete", { response: incompleteResponse })
  ]
}

/** A `response.failed` event whose response carries the error (the API reference's `ResponseError`). */
export const failedEvent = (code: string, message: string): Event =>
  event("response.failed", {
    response: { ...inProgress(streamedResponse), status: "failed", error: { code, message } }
  })

/** The streaming guide's `error` event, flat as documented. */
export const errorEvent = (code: string, message: string): Event => event("error", { code, message, param: null })
