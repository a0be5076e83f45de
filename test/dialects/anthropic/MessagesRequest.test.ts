/**
 * Messages requests into the gateway's `ChatCall`, by the mapping: a Claude-Code-like request whole, the
 * request Claude Code really sent (test/fixtures/claude-code), tool results before the rest of their
 * turn, assistant turns with thinking and tool uses, every tool choice, the fields that pass through,
 * what is dropped and named rather than refused, and the 400s, each naming its field.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { describeError, type Problem } from "../../../src/core/Problem.ts"
import { parseMessagesCall } from "../../../src/dialects/anthropic/MessagesRequest.ts"
import type { ChatCall } from "../../../src/kernel/ChatCall.ts"
import type { RequestError } from "../../../src/kernel/RequestError.ts"

type Json = Record<string, unknown>

const decode = (body: unknown, headers: Record<string, string> = {}) => parseMessagesCall(body, headers)

/** The 400 a body gets, as the edge describes it. */
const refusal = (body: unknown): Effect.Effect<Problem, ChatCall> =>
  decode(body).pipe(
    Effect.flip,
    Effect.map((error: RequestError) => describeError(error))
  )

const minimal = { model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "hi" }] }

const TOOL_NAMES = [
  "Agent",
  "Bash",
  "Edit",
  "Glob",
  "Grep",
  "Read",
  "Write",
  "WebFetch",
  "WebSearch",
  "TodoWrite",
  "NotebookEdit",
  "Skill"
]
const schemaOf = (name: string) => ({
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: { [name.toLowerCase()]: { type: "string", description: `What ${name} acts on` } },
  required: [name.toLowerCase()],
  additionalProperties: false
})

describe("a Claude-Code-like request", () => {
  const system = [
    { type: "text", text: "x-anthropic-billing-header: cc_version=2.1.0; cc_entrypoint=cli;" },
    {
      type: "text",
      text: "You are Claude Code, Anthropic's official CLI for Claude.",
      cache_control: { type: "ephemeral" }
    },
    {
      type: "text",
      text: "\nYou are an interactive CLI tool that helps users with software engineering tasks.",
      cache_control: { type: "ephemeral", ttl: "1h" }
    }
  ]
  const userBlocks = [
    {
      type: "text",
      text:
        "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# claudeMd\n...\n</system-reminder>\n"
    },
    { type: "text", text: "<system-reminder>The todo list is empty.</system-reminder>" },
    { type: "text", text: "list the files here", cache_control: { type: "ephemeral" } }
  ]
  const tools = TOOL_NAMES.map((name, i) => ({
    name,
    description: `The ${name} tool.`,
    input_schema: schemaOf(name),
    ...(i === TOOL_NAMES.length - 1 ? { cache_control: { type: "ephemeral" } } : {})
  }))
  const body = {
    model: "claude-opus-4-6",
    max_tokens: 32000,
    stream: true,
    system,
    messages: [{ role: "user", content: userBlocks }],
    tools,
    metadata: { user_id: "user_2f1e_account_9a0b_session_75d4" },
    thinking: { type: "adaptive" },
    context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
    output_config: { effort: "high" }
  }
  const headers = {
    "anthropic-version": "2023-06-01",
    "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27",
    "x-api-key": "sk-svc-test",
    "user-agent": "claude-cli/2.1.0 (external, cli)"
  }

  it.effect("decodes to the expected call: blocks kept as parts with their breakpoints, every tool, the rest dropped and named", () =>
    Effect.gen(function*() {
      const call = yield* decode(body, headers)
      const expected: ChatCall = {
        model: "claude-opus-4-6",
        bareModelAuthor: "anthropic",
        messages: [
          {
            role: "system",
            content: [
              { type: "text", text: "x-anthropic-billing-header: cc_version=2.1.0; cc_entrypoint=cli;" },
              {
                type: "text",
                text: "You are Claude Code, Anthropic's official CLI for Claude.",
                cache_control: { type: "ephemeral" }
              },
              {
                type: "text",
                text: "\nYou are an interactive CLI tool that helps users with software engineering tasks.",
                cache_control: { type: "ephemeral", ttl: "1h" }
              }
            ]
          },
          {
            role: "user",
            content: [
              {
                type: "text",
                text:
                  "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# claudeMd\n...\n</system-reminder>\n"
              },
              { type: "text", text: "<system-reminder>The todo list is empty.</system-reminder>" },
              { type: "text", text: "list the files here", cache_control: { type: "ephemeral" } }
            ]
          }
        ],
        maxTokens: 32000,
        stream: true,
        includeUsage: true,
        streamOptions: {},
        tools: TOOL_NAMES.map((name, i) => ({
          type: "function" as const,
          function: { name, description: `The ${name} tool.`, parameters: schemaOf(name) },
          ...(i === TOOL_NAMES.length - 1 ? { cache_control: { type: "ephemeral" } } : {})
        })),
        toolChoice: undefined,
        svcToolIds: [],
        svcPendingId: undefined,
        tags: [],
        passthrough: { user: "user_2f1e_account_9a0b_session_75d4" },
        native: {
          format: "anthropic",
          body,
          headers: {
            "anthropic-version": "2023-06-01",
            "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27"
          }
        },
        dropped: ["thinking", "context_management", "output_config"]
      }
      expect(call).toStrictEqual(expected)
      // the request as received, not a copy: an Anthropic upstream gets it untouched
      expect(call.native?.body).toBe(body)
    }))
})

describe("the request Claude Code sent (test/fixtures/claude-code/messages-request.json)", () => {
  const fixture = JSON.parse(
    readFileSync(new URL("../../fixtures/claude-code/messages-request.json", import.meta.url), "utf8")
  ) as {
    readonly headers: Record<string, string>
    readonly body: Json
  }

  it.effect("decodes: its system blocks and system turn kept, its user blocks as parts, twelve tools, what only Anthropic takes named", () =>
    Effect.gen(function*() {
      const call = yield* decode(fixture.body, fixture.headers)
      const body = fixture.body
      expect(call.model).toBe(body["model"])
      expect(call.maxTokens).toBe(32000)
      expect(call.stream).toBe(true)
      expect(call.messages.map((m) => m.role)).toEqual(["system", "user", "system"])
      expect(call.messages[0]?.content).toEqual(body["system"])
      const user = (body["messages"] as Array<Json>)[0]!
      expect(call.messages[1]?.content).toEqual(user["content"])
      expect(call.tools?.map((tool) => tool.function.name)).toEqual(
        (body["tools"] as Array<Json>).map((tool) => tool["name"])
      )
      expect(call.tools).toHaveLength(12)
      expect(call.dropped).toEqual(["thinking", "context_management", "output_config"])
      expect(call.passthrough).toEqual({ user: (body["metadata"] as Json)["user_id"] })
      expect(call.native?.body).toBe(body)
      expect(call.native?.headers).toEqual({
        "anthropic-version": fixture.headers["anthropic-version"],
        "anthropic-beta": fixture.headers["anthropic-beta"]
      })
    }))
})

describe("turns", () => {
  it.effect("tool results become tool messages placed before the rest of their turn; is_error kept", () =>
    Effect.gen(function*() {
      const call = yield* decode({
        ...minimal,
        messages: [
          { role: "user", content: "Weather in Paris and Oslo?" },
          {
            role: "assistant",
            content: [
              { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } },
              { type: "tool_use", id: "toolu_02", name: "get_weather", input: { city: "Oslo" } }
            ]
          },
          {
            role: "user",
            content: [
              { type: "text", text: "Here you are." },
              { type: "tool_result", tool_use_id: "toolu_01", content: "18C" },
              {
                type: "tool_result",
                tool_use_id: "toolu_02",
                content: [{ type: "text", text: "station unreachable" }],
                is_error: true
              }
            ]
          },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_03" }] }
        ]
      })
      expect(call.messages).toEqual([
        { role: "user", content: "Weather in Paris and Oslo?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "toolu_01", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } },
            { id: "toolu_02", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Oslo\"}" } }
          ]
        },
        { role: "tool", tool_call_id: "toolu_01", content: "18C" },
        { role: "tool", tool_call_id: "toolu_02", content: "station unreachable", is_error: true },
        { role: "user", content: "Here you are." },
        // a turn of tool results only is tool messages only; a result without content is empty
        { role: "tool", tool_call_id: "toolu_03", content: "" }
      ])
    }))

  it.effect("a tool result's text blocks: one is a string, several stay parts, breakpoints kept; other blocks named", () =>
    Effect.gen(function*() {
      const call = yield* decode({
        ...minimal,
        messages: [{
          role: "user",
          content: [{
            type: "tool_result",
            tool_use_id: "toolu_01",
            content: [
              { type: "text", text: "a.txt" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
              { type: "text", text: "b.txt", cache_control: { type: "ephemeral" } }
            ]
          }]
        }]
      })
      expect(call.messages).toEqual([{
        role: "tool",
        tool_call_id: "toolu_01",
        content: [{ type: "text", text: "a.txt" }, {
          type: "text",
          text: "b.txt",
          cache_control: { type: "ephemeral" }
        }]
      }])
      expect(call.dropped).toEqual(["messages[0].content[0].content[1].image"])
    }))

  it.effect("an assistant turn: thinking blocks whole and first, their text as reasoning; text joined; tool uses as calls", () =>
    Effect.gen(function*() {
      const call = yield* decode({
        ...minimal,
        messages: [
          { role: "user", content: "What is the GCD of 1071 and 462?" },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "Euclid: ", signature: "sig-a" },
              { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
              { type: "thinking", thinking: "21.", signature: "sig-b" },
              { type: "text", text: "It is " },
              { type: "text", text: "21." },
              { type: "tool_use", id: "toolu_09", name: "check", input: {} }
            ]
          },
          { role: "assistant", content: "Plain text turn." }
        ]
      })
      expect(call.messages.slice(1)).toEqual([
        {
          role: "assistant",
          content: "It is 21.",
          tool_calls: [{ id: "toolu_09", type: "function", function: { name: "check", arguments: "{}" } }],
          reasoning_content: "Euclid: 21.",
          thinking_blocks: [
            { type: "thinking", thinking: "Euclid: ", signature: "sig-a" },
            { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
            { type: "thinking", thinking: "21.", signature: "sig-b" }
          ]
        },
        { role: "assistant", content: "Plain text turn." }
      ])
    }))

  it.effect("an assistant's text with a cache breakpoint stays parts; without text its content is null", () =>
    Effect.gen(function*() {
      const call = yield* decode({
        ...minimal,
        messages: [
          { role: "user", content: "go" },
          { role: "assistant", content: [{ type: "text", text: "Done.", cache_control: { type: "ephemeral" } }] },
          { role: "user", content: "and?" },
          { role: "assistant", content: [{ type: "thinking", thinking: "hmm", signature: "s" }] }
        ]
      })
      expect(call.messages[1]).toEqual({
        role: "assistant",
        content: [{ type: "text", text: "Done.", cache_control: { type: "ephemeral" } }]
      })
      expect(call.messages[3]).toMatchObject({ role: "assistant", content: null, reasoning_content: "hmm" })
    }))

  it.effect("images: base64 as a data: URL, a URL as it is, breakpoints kept", () =>
    Effect.gen(function*() {
      const call = yield* decode({
        ...minimal,
        messages: [{
          role: "user",
          content: [
            {
              type: "image",
              source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" },
              cache_control: { type: "ephemeral" }
            },
            { type: "image", source: { type: "url", url: "https://upload.wikimedia.org/cat.jpg" } },
            { type: "text", text: "Compare them." }
          ]
        }]
      })
      expect(call.messages).toEqual([{
        role: "user",
        content: [
          {
            type: "image_url",
            image_url: { url: "data:image/jpeg;base64,/9j/4AAQ" },
            cache_control: { type: "ephemeral" }
          },
          { type: "image_url", image_url: { url: "https://upload.wikimedia.org/cat.jpg" } },
          { type: "text", text: "Compare them." }
        ]
      }])
    }))

  it.effect("a system prompt: a string stays a string, blocks stay blocks; a system turn among the messages is taken", () =>
    Effect.gen(function*() {
      const plain = yield* decode({ ...minimal, system: "You are terse." })
      expect(plain.messages[0]).toEqual({ role: "system", content: "You are terse." })
      const blocks = yield* decode({
        ...minimal,
        system: [{ type: "text", text: "You are terse." }],
        messages: [{ role: "user", content: "hi" }, { role: "system", content: "# Environment" }]
      })
      expect(blocks.messages).toEqual([
        { role: "system", content: [{ type: "text", text: "You are terse." }] },
        { role: "user", content: "hi" },
        { role: "system", content: "# Environment" }
      ])
    }))

  it.effect("blocks with no chat-completions part are dropped and named, never refused", () =>
    Effect.gen(function*() {
      const call = yield* decode({
        ...minimal,
        system: [{ type: "text", text: "s" }, { type: "future_block", x: 1 }],
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "Summarise the attached." },
              { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } },
              { type: "search_result", source: "https://example.com", title: "t", content: [] },
              { type: "image", source: { type: "file", file_id: "file_011CNha8iCJcU1wXNR6q4V8w" } }
            ]
          },
          {
            role: "assistant",
            content: [
              { type: "server_tool_use", id: "srvtoolu_01", name: "web_search", input: { query: "x" } },
              { type: "web_search_tool_result", tool_use_id: "srvtoolu_01", content: [] },
              { type: "text", text: "Found it." }
            ]
          }
        ]
      })
      expect(call.messages.map((m) => m.content)).toEqual([
        [{ type: "text", text: "s" }],
        "Summarise the attached.",
        "Found it."
      ])
      expect(call.dropped).toEqual([
        "system[1].future_block",
        "messages[0].content[1].document",
        "messages[0].content[2].search_result",
        "messages[0].content[3].image",
        "messages[1].content[0].server_tool_use",
        "messages[1].content[1].web_search_tool_result"
      ])
    }))
})

describe("tools and tool choice", () => {
  const weather = {
    name: "get_weather",
    description: "Get the current weather in a given location",
    input_schema: { type: "object", properties: { location: { type: "string" } }, required: ["location"] }
  }

  it.effect("custom tools become functions; server tools are dropped and named", () =>
    Effect.gen(function*() {
      const call = yield* decode({
        ...minimal,
        tools: [
          { type: "custom", ...weather },
          { type: "web_search_20250305", name: "web_search", max_uses: 5 },
          { name: "no_description", input_schema: { type: "object" } },
          { type: "bash_20250124", name: "bash" }
        ]
      })
      expect(call.tools).toEqual([
        {
          type: "function",
          function: { name: "get_weather", description: weather.description, parameters: weather.input_schema }
        },
        { type: "function", function: { name: "no_description", parameters: { type: "object" } } }
      ])
      expect(call.dropped).toEqual(["tools[1].web_search_20250305", "tools[3].bash_20250124"])
    }))

  it.effect("only server tools: no tools at all", () =>
    Effect.gen(function*() {
      const call = yield* decode({
        ...minimal,
        tools: [{ type: "text_editor_20250728", name: "str_replace_based_edit_tool" }]
      })
      expect(call.tools).toBeUndefined()
    }))

  const choices: ReadonlyArray<readonly [string, Json, ChatCall["toolChoice"], Json]> = [
    ["auto", { type: "auto" }, "auto", {}],
    ["any", { type: "any" }, "required", {}],
    ["tool", { type: "tool", name: "get_weather" }, { type: "function", function: { name: "get_weather" } }, {}],
    ["none", { type: "none" }, "none", {}],
    ["auto without parallel calls", { type: "auto", disable_parallel_tool_use: true }, "auto", {
      parallel_tool_calls: false
    }],
    ["any without parallel calls", { type: "any", disable_parallel_tool_use: true }, "required", {
      parallel_tool_calls: false
    }],
    ["parallel calls allowed", { type: "auto", disable_parallel_tool_use: false }, "auto", {}]
  ]
  for (const [name, choice, expected, passthrough] of choices) {
    it.effect(`tool_choice ${name}`, () =>
      Effect.gen(function*() {
        const call = yield* decode({ ...minimal, tools: [weather], tool_choice: choice })
        expect(call.toolChoice).toEqual(expected)
        expect(call.passthrough).toEqual(passthrough)
      }))
  }

  it.effect("no tool_choice (or null): none set", () =>
    Effect.gen(function*() {
      expect((yield* decode({ ...minimal, tools: [weather] })).toolChoice).toBeUndefined()
      expect((yield* decode({ ...minimal, tools: [weather], tool_choice: null })).toolChoice).toBeUndefined()
    }))
})

describe("top-level fields", () => {
  it.effect("stop_sequences, temperature, top_p and metadata.user_id pass through in chat-completions names", () =>
    Effect.gen(function*() {
      const call = yield* decode({
        ...minimal,
        stop_sequences: ["\n\nHuman:", "###"],
        temperature: 0.2,
        top_p: 0.9,
        metadata: { user_id: "13803d75-b4b5-4c3e-b2a2-6f21399b021b" }
      })
      expect(call.passthrough).toEqual({
        stop: ["\n\nHuman:", "###"],
        temperature: 0.2,
        top_p: 0.9,
        user: "13803d75-b4b5-4c3e-b2a2-6f21399b021b"
      })
      expect(call.dropped).toEqual([])
    }))

  it.effect("Anthropic-only fields and unknown keys: dropped and named, not passed through, kept in native", () =>
    Effect.gen(function*() {
      const only = {
        top_k: 5,
        thinking: { type: "enabled", budget_tokens: 2048 },
        context_management: { edits: [] },
        output_config: { effort: "low" },
        service_tier: "auto",
        container: "container_01",
        mcp_servers: [{ type: "url", url: "https://mcp.example.com/sse", name: "example" }],
        inference_geo: "us",
        some_future_field: true
      }
      const body = { ...minimal, ...only }
      const call = yield* decode(body)
      expect(call.dropped).toEqual(Object.keys(only))
      expect(call.passthrough).toEqual({})
      expect(call.native?.body).toBe(body)
    }))

  it.effect("the gateway's own fields: read, never dropped, and left out of the native body", () =>
    Effect.gen(function*() {
      const body = {
        ...minimal,
        svc_tool_ids: ["svc_web_search"],
        svc_pending_id: "pend_01",
        tags: ["team-a", "ci"],
        top_k: 3
      }
      const call = yield* decode(body, { "anthropic-version": "2023-06-01" })
      expect(call.svcToolIds).toEqual(["svc_web_search"])
      expect(call.svcPendingId).toBe("pend_01")
      expect(call.tags).toEqual(["team-a", "ci"])
      expect(call.dropped).toEqual(["top_k"])
      expect(call.native).toEqual({
        format: "anthropic",
        body: { ...minimal, top_k: 3 },
        headers: { "anthropic-version": "2023-06-01" }
      })
    }))

  it.effect("the model as sent, a bare name's author named; stream off unless asked; usage always reported", () =>
    Effect.gen(function*() {
      const call = yield* decode({ ...minimal, stream: null, system: null, metadata: null, svc_tool_ids: null })
      expect(call).toMatchObject({
        model: "claude-sonnet-4-5",
        bareModelAuthor: "anthropic",
        maxTokens: 64,
        stream: false,
        includeUsage: true,
        svcToolIds: [],
        tags: []
      })
      expect(call.native?.headers).toEqual({})
      expect((yield* decode({ ...minimal, model: "openai/gpt-4o" })).model).toBe("openai/gpt-4o")
    }))
})

describe("refused requests name the field", () => {
  const cases: ReadonlyArray<readonly [string, unknown, string, string]> = [
    ["max_tokens missing", { model: "m", messages: minimal.messages }, "max_tokens", "missing_required_parameter"],
    ["max_tokens 0", { ...minimal, max_tokens: 0 }, "max_tokens", "invalid_value"],
    ["max_tokens not an integer", { ...minimal, max_tokens: 1.5 }, "max_tokens", "invalid_value"],
    ["model missing", { max_tokens: 5, messages: minimal.messages }, "model", "missing_required_parameter"],
    ["model empty", { ...minimal, model: "" }, "model", "invalid_value"],
    ["no messages", { ...minimal, messages: [] }, "messages", "invalid_value"],
    [
      "a role Anthropic does not have",
      { ...minimal, messages: [{ role: "tool", content: "x" }] },
      "messages[0].role",
      "invalid_value"
    ],
    [
      "a block without a type",
      { ...minimal, messages: [{ role: "user", content: [{ text: "x" }] }] },
      "messages[0].content[0].type",
      "missing_required_parameter"
    ],
    [
      "a text block without text",
      { ...minimal, messages: [{ role: "user", content: [{ type: "text" }] }] },
      "messages[0].content[0].text",
      "missing_required_parameter"
    ],
    [
      "a tool result without its tool_use_id",
      { ...minimal, messages: [{ role: "user", content: [{ type: "tool_result", content: "x" }] }] },
      "messages[0].content[0].tool_use_id",
      "missing_required_parameter"
    ],
    [
      "a tool result whose content is neither text nor blocks",
      { ...minimal, messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: 42 }] }] },
      "messages[0].content[0].content",
      "invalid_value"
    ],
    [
      "a tool use without a name",
      {
        ...minimal,
        messages: [{ role: "user", content: "x" }, {
          role: "assistant",
          content: [{ type: "tool_use", id: "t", input: {} }]
        }]
      },
      "messages[1].content[0].name",
      "missing_required_parameter"
    ],
    [
      "a tool use whose input is not an object",
      {
        ...minimal,
        messages: [{ role: "user", content: "x" }, {
          role: "assistant",
          content: [{ type: "tool_use", id: "t", name: "f", input: "{}" }]
        }]
      },
      "messages[1].content[0].input",
      "invalid_value"
    ],
    [
      "an image without a source",
      { ...minimal, messages: [{ role: "user", content: [{ type: "image" }] }] },
      "messages[0].content[0].source",
      "missing_required_parameter"
    ],
    [
      "a base64 image without data",
      {
        ...minimal,
        messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png" } }] }]
      },
      "messages[0].content[0].source.data",
      "invalid_value"
    ],
    [
      "a system block without text",
      { ...minimal, system: [{ type: "text", text: 1 }] },
      "system[0].text",
      "invalid_value"
    ],
    [
      "a tool without a name",
      { ...minimal, tools: [{ input_schema: { type: "object" } }] },
      "tools[0].name",
      "missing_required_parameter"
    ],
    [
      "a custom tool without input_schema",
      { ...minimal, tools: [{ name: "f" }] },
      "tools[0].input_schema",
      "missing_required_parameter"
    ],
    [
      "a custom tool whose input_schema is not an object",
      { ...minimal, tools: [{ name: "f", input_schema: "object" }] },
      "tools[0].input_schema",
      "invalid_value"
    ],
    [
      "a tool whose description is not a string",
      { ...minimal, tools: [{ name: "f", input_schema: {}, description: 3 }] },
      "tools[0].description",
      "invalid_value"
    ],
    [
      "a client tool named svc_",
      { ...minimal, tools: [{ name: "svc_web_search", input_schema: {} }] },
      "tools[0].name",
      "reserved_tool_name"
    ],
    [
      "an unknown tool_choice type",
      { ...minimal, tool_choice: { type: "required" } },
      "tool_choice.type",
      "invalid_value"
    ],
    [
      "tool_choice tool without a name",
      { ...minimal, tool_choice: { type: "tool" } },
      "tool_choice.name",
      "missing_required_parameter"
    ],
    [
      "disable_parallel_tool_use not a boolean",
      { ...minimal, tool_choice: { type: "auto", disable_parallel_tool_use: "yes" } },
      "tool_choice.disable_parallel_tool_use",
      "invalid_value"
    ],
    ["temperature not a number", { ...minimal, temperature: "hot" }, "temperature", "invalid_value"],
    ["stop_sequences not strings", { ...minimal, stop_sequences: [1] }, "stop_sequences[0]", "invalid_value"],
    ["metadata.user_id not a string", { ...minimal, metadata: { user_id: 7 } }, "metadata.user_id", "invalid_value"],
    ["svc_tool_ids not an array", { ...minimal, svc_tool_ids: "svc_web_search" }, "svc_tool_ids", "invalid_value"],
    ["tags not strings", { ...minimal, tags: [1] }, "tags[0]", "invalid_value"],
    ["stream not a boolean", { ...minimal, stream: "yes" }, "stream", "invalid_value"]
  ]
  for (const [name, body, param, code] of cases) {
    it.effect(`${name}: 400 ${code} on ${param}`, () =>
      Effect.gen(function*() {
        const problem = yield* refusal(body)
        expect(problem).toMatchObject({ status: 400, type: "invalid_request_error", code, param })
        expect(problem.message).toContain(`'${param}'`)
      }))
  }

  it.effect("a body that is not an object", () =>
    Effect.gen(function*() {
      expect(yield* refusal([minimal])).toMatchObject({ status: 400, code: "invalid_request_body" })
    }))

  it.effect("max_tokens missing says so the way the API does", () =>
    Effect.gen(function*() {
      expect((yield* refusal({ model: "m", messages: minimal.messages })).message).toBe(
        "Missing required parameter: 'max_tokens'."
      )
    }))
})
