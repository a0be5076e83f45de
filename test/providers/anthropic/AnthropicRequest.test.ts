/**
 * The Messages request an Anthropic upstream gets, as tables: from the gateway's model (max_tokens,
 * system gathering, alternation, tool results, images, assistant turns, tools and tool choice, renamed
 * passthrough, what is dropped), from the client's own Messages request (the body as it came but for
 * the model, stream, appended tools and turns), and the headers.
 */
import { describe, expect, it } from "@effect/vitest"
import type { ChatMessage, ToolDefinition } from "../../../src/kernel/Canonical.ts"
import type { ToolChoice } from "../../../src/kernel/ChatCall.ts"
import {
  ANTHROPIC_VERSION,
  countTokensBody,
  DEFAULT_MAX_TOKENS,
  DROPPED_PARTS,
  droppedFields,
  forwardedHeaders,
  requestBody
} from "../../../src/providers/anthropic/AnthropicRequest.ts"
import { call, nativeCall, weatherTool } from "./AnthropicFixtures.ts"

const fn = (name: string, extra: Partial<ToolDefinition["function"]> = {}): ToolDefinition => ({
  type: "function",
  function: { name, parameters: { type: "object", properties: {} }, ...extra }
})

const toolCall = (id: string, name: string, args: string) => ({
  id,
  type: "function" as const,
  function: { name, arguments: args }
})

describe("max_tokens", () => {
  const cases: ReadonlyArray<readonly [string, number | undefined, Record<string, unknown>, number]> = [
    ["none: the documented default", undefined, {}, DEFAULT_MAX_TOKENS],
    ["the call's", 77, {}, 77],
    ["passthrough max_completion_tokens when the call has none", undefined, { max_completion_tokens: 55 }, 55],
    ["the call's over max_completion_tokens", 77, { max_completion_tokens: 55 }, 77],
    [
      "a max_completion_tokens that is not a number is ignored",
      undefined,
      { max_completion_tokens: "9" },
      DEFAULT_MAX_TOKENS
    ]
  ]
  for (const [label, maxTokens, passthrough, expected] of cases) {
    it(label, () => expect(requestBody(call({ maxTokens, passthrough }), false)["max_tokens"]).toBe(expected))
  }
  it("the default is 4096", () => expect(DEFAULT_MAX_TOKENS).toBe(4096))
})

describe("system: every system and developer message, wherever it is", () => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<ChatMessage>, unknown]> = [
    ["none", [{ role: "user", content: "hi" }], undefined],
    ["one string", [{ role: "system", content: "Be nice." }, { role: "user", content: "hi" }], "Be nice."],
    [
      "system and developer strings, one among the turns, joined by a blank line",
      [{ role: "system", content: "one" }, { role: "user", content: "hi" }, { role: "developer", content: "two" }],
      "one\n\ntwo"
    ],
    [
      "text parts with a cache breakpoint stay blocks",
      [{ role: "system", content: [{ type: "text", text: "Long doc", cache_control: { type: "ephemeral" } }] }, {
        role: "user",
        content: "hi"
      }],
      [{ type: "text", text: "Long doc", cache_control: { type: "ephemeral" } }]
    ],
    [
      "parts and a string: blocks, the string one of them",
      [{ role: "system", content: [{ type: "text", text: "a" }] }, { role: "system", content: "b" }, {
        role: "user",
        content: "hi"
      }],
      [{ type: "text", text: "a" }, { type: "text", text: "b" }]
    ],
    ["an empty string is no system", [{ role: "system", content: "" }, { role: "user", content: "hi" }], undefined]
  ]
  for (const [label, messages, system] of cases) {
    it(label, () => {
      const body = requestBody(call({ messages }), false)
      expect(body["system"]).toEqual(system)
      expect(body["messages"]).toEqual([{ role: "user", content: "hi" }])
    })
  }
})

describe("turns", () => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<ChatMessage>, unknown]> = [
    [
      "consecutive user messages merge into one turn",
      [{ role: "user", content: "a" }, { role: "user", content: "b" }],
      [{ role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }]
    ],
    [
      "tool results grouped into one user turn, before the user's text that follows; is_error kept",
      [
        { role: "user", content: "weather in SF and NYC?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            toolCall("t1", "get_weather", "{\"location\":\"SF\"}"),
            toolCall("t2", "get_weather", "{\"location\":\"NYC\"}")
          ]
        },
        { role: "tool", tool_call_id: "t1", content: "15 degrees" },
        { role: "tool", tool_call_id: "t2", content: "timeout", is_error: true },
        { role: "user", content: "and tomorrow?" }
      ],
      [
        { role: "user", content: "weather in SF and NYC?" },
        {
          role: "assistant",
          content: [
            { type: "tool_use", id: "t1", name: "get_weather", input: { location: "SF" } },
            { type: "tool_use", id: "t2", name: "get_weather", input: { location: "NYC" } }
          ]
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t1", content: "15 degrees" },
            { type: "tool_result", tool_use_id: "t2", content: "timeout", is_error: true },
            { type: "text", text: "and tomorrow?" }
          ]
        }
      ]
    ],
    [
      "a tool result with parts keeps text and images as blocks",
      [{
        role: "tool",
        tool_call_id: "t1",
        content: [{ type: "text", text: "chart:" }, {
          type: "image_url",
          image_url: { url: "data:image/png;base64,iVBORw0KGgo=" }
        }]
      }],
      [{
        role: "user",
        content: [{
          type: "tool_result",
          tool_use_id: "t1",
          content: [{ type: "text", text: "chart:" }, {
            type: "image",
            source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" }
          }]
        }]
      }]
    ],
    [
      "images: a data URL as base64, another URL as a URL source, breakpoints kept",
      [{
        role: "user",
        content: [
          {
            type: "image_url",
            image_url: { url: "data:image/jpeg;base64,/9j/4AAQ" },
            cache_control: { type: "ephemeral" }
          },
          { type: "image_url", image_url: { url: "https://upload.wikimedia.org/a.jpg", detail: "high" } },
          { type: "text", text: "Compare them." }
        ]
      }],
      [{
        role: "user",
        content: [
          {
            type: "image",
            source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" },
            cache_control: { type: "ephemeral" }
          },
          { type: "image", source: { type: "url", url: "https://upload.wikimedia.org/a.jpg" } },
          { type: "text", text: "Compare them." }
        ]
      }]
    ],
    [
      "an assistant turn: thinking blocks first, then text, then tool uses; arguments that are not an object become {}",
      [
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: "Let me check.",
          reasoning_content: "plan",
          thinking_blocks: [{ type: "thinking", thinking: "plan", signature: "sig" }, {
            type: "redacted_thinking",
            data: "xyz"
          }],
          tool_calls: [toolCall("t1", "f", "not json"), toolCall("t2", "f", "[1]")]
        }
      ],
      [
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "plan", signature: "sig" },
            { type: "redacted_thinking", data: "xyz" },
            { type: "text", text: "Let me check." },
            { type: "tool_use", id: "t1", name: "f", input: {} },
            { type: "tool_use", id: "t2", name: "f", input: {} }
          ]
        }
      ]
    ],
    [
      "an assistant turn of text alone is a string; consecutive ones merge",
      [{ role: "user", content: "hi" }, { role: "assistant", content: "Hel" }, { role: "assistant", content: "lo" }],
      [{ role: "user", content: "hi" }, {
        role: "assistant",
        content: [{ type: "text", text: "Hel" }, { type: "text", text: "lo" }]
      }]
    ],
    [
      "an empty assistant turn is left out, and the user turns around it merge",
      [{ role: "user", content: "a" }, { role: "assistant", content: null }, { role: "user", content: "b" }],
      [{ role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }]
    ]
  ]
  for (const [label, messages, expected] of cases) {
    it(label, () => expect(requestBody(call({ messages }), false)["messages"]).toEqual(expected))
  }
})

describe("tools and tool choice", () => {
  it("function tools as custom tools: description optional, parameters defaulted, cache_control kept", () => {
    const tools: ReadonlyArray<ToolDefinition> = [
      {
        type: "function",
        function: { name: "get_weather", description: weatherTool.description, parameters: weatherTool.input_schema }
      },
      { type: "function", function: { name: "ping" }, cache_control: { type: "ephemeral" } }
    ]
    expect(requestBody(call({ tools }), false)["tools"]).toEqual([
      weatherTool,
      { name: "ping", input_schema: { type: "object", properties: {} }, cache_control: { type: "ephemeral" } }
    ])
  })

  const cases: ReadonlyArray<readonly [string, ToolChoice | undefined, Record<string, unknown>, unknown]> = [
    ["no choice", undefined, {}, undefined],
    ["no choice, parallel_tool_calls false: auto without parallel use", undefined, { parallel_tool_calls: false }, {
      type: "auto",
      disable_parallel_tool_use: true
    }],
    ["parallel_tool_calls true is the API's default", "auto", { parallel_tool_calls: true }, { type: "auto" }],
    ["none (the tools stay: earlier tool_use blocks need them)", "none", {}, { type: "none" }],
    ["auto", "auto", {}, { type: "auto" }],
    ["required is any", "required", {}, { type: "any" }],
    ["required without parallel use", "required", { parallel_tool_calls: false }, {
      type: "any",
      disable_parallel_tool_use: true
    }],
    ["a named function is tool", { type: "function", function: { name: "f" } }, {}, { type: "tool", name: "f" }],
    ["a named function without parallel use", { type: "function", function: { name: "f" } }, {
      parallel_tool_calls: false
    }, { type: "tool", name: "f", disable_parallel_tool_use: true }]
  ]
  for (const [label, toolChoice, passthrough, expected] of cases) {
    it(label, () => {
      const body = requestBody(call({ tools: [fn("f")], toolChoice, passthrough }), false)
      expect(body["tool_choice"]).toEqual(expected)
      expect(body["tools"]).toEqual([{ name: "f", input_schema: { type: "object", properties: {} } }])
    })
  }

  it("no tools: neither tools nor tool_choice", () => {
    for (const tools of [undefined, []]) {
      const body = requestBody(call({ tools, toolChoice: "required" }), false)
      expect(body).not.toHaveProperty("tools")
      expect(body).not.toHaveProperty("tool_choice")
    }
  })
})

describe("passthrough fields under Anthropic's names", () => {
  const cases: ReadonlyArray<readonly [string, Record<string, unknown>, Record<string, unknown>]> = [
    ["stop as a string", { stop: "END" }, { stop_sequences: ["END"] }],
    ["stop as a list", { stop: ["###", "END"] }, { stop_sequences: ["###", "END"] }],
    ["temperature and top_p as they are", { temperature: 0.3, top_p: 0.9 }, { temperature: 0.3, top_p: 0.9 }],
    ["user as metadata.user_id", { user: "u-1" }, { metadata: { user_id: "u-1" } }],
    ["null values are not sent", { stop: null, temperature: null, top_p: null }, {}],
    ["fields Anthropic has none for are not sent", {
      seed: 7,
      n: 2,
      response_format: { type: "json_object" },
      frequency_penalty: 1
    }, {}]
  ]
  for (const [label, passthrough, expected] of cases) {
    it(label, () =>
      expect(requestBody(call({ maxTokens: 10, passthrough }), true)).toEqual({
        model: "claude-opus-4-1-20250805",
        max_tokens: 10,
        messages: [{ role: "user", content: "Hello" }],
        ...expected,
        stream: true
      }))
  }
})

describe("the documented tool-use request, written from the gateway's model", () => {
  it("is the request the documentation shows", () => {
    const body = requestBody(
      call({
        maxTokens: 1024,
        messages: [
          { role: "system", content: "You are a weather bot." },
          {
            role: "user",
            content: [{ type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }, {
              type: "text",
              text: "What's the weather like in San Francisco?"
            }]
          },
          {
            role: "assistant",
            content: "Let me check.",
            tool_calls: [
              toolCall("toolu_01A09q90qw90lq917835lq9", "get_weather", "{\"location\":\"San Francisco, CA\"}")
            ]
          },
          { role: "tool", tool_call_id: "toolu_01A09q90qw90lq917835lq9", content: "15 degrees" }
        ],
        tools: [{
          type: "function",
          function: {
            name: weatherTool.name,
            description: weatherTool.description,
            parameters: weatherTool.input_schema
          }
        }],
        toolChoice: "required",
        passthrough: { stop: ["###"], temperature: 0.2 }
      }),
      false
    )
    expect(body).toEqual({
      model: "claude-opus-4-1-20250805",
      max_tokens: 1024,
      system: "You are a weather bot.",
      tools: [weatherTool],
      tool_choice: { type: "any" },
      stop_sequences: ["###"],
      temperature: 0.2,
      messages: [
        {
          role: "user",
          content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }, {
            type: "text",
            text: "What's the weather like in San Francisco?"
          }]
        },
        {
          role: "assistant",
          content: [{ type: "text", text: "Let me check." }, {
            type: "tool_use",
            id: "toolu_01A09q90qw90lq917835lq9",
            name: "get_weather",
            input: { location: "San Francisco, CA" }
          }]
        },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "toolu_01A09q90qw90lq917835lq9", content: "15 degrees" }]
        }
      ],
      stream: false
    })
  })
})

describe("dropped(call)", () => {
  const openAiOnly = [
    "n",
    "seed",
    "frequency_penalty",
    "presence_penalty",
    "logprobs",
    "top_logprobs",
    "response_format",
    "logit_bias",
    "stream_options",
    "reasoning_effort",
    "modalities",
    "audio",
    "prediction",
    "store",
    "service_tier"
  ]
  for (const key of openAiOnly) {
    it(`${key} is named`, () =>
      expect(droppedFields(call({ passthrough: { [key]: 1, temperature: 0 } }))).toEqual([key]))
  }

  it("what is mapped is not named", () =>
    expect(droppedFields(call({
      passthrough: {
        stop: "x",
        temperature: 1,
        top_p: 1,
        user: "u",
        parallel_tool_calls: false,
        max_completion_tokens: 5
      }
    }))).toEqual([]))

  it("several, in the order they came", () =>
    expect(droppedFields(call({ passthrough: { seed: 1, stop: "x", n: 2, response_format: {} } }))).toEqual([
      "seed",
      "n",
      "response_format"
    ]))

  it("content parts the Messages API has no block for", () => {
    expect(droppedFields(call({ messages: [{ role: "user", content: [{ type: "input_audio", input_audio: {} }] }] })))
      .toEqual([DROPPED_PARTS])
    // an image in a system prompt: Anthropic's system takes text only
    expect(
      droppedFields(
        call({
          messages: [{ role: "system", content: [{ type: "image_url", image_url: { url: "https://x/a.png" } }] }]
        })
      )
    )
      .toEqual([DROPPED_PARTS])
    expect(
      droppedFields(
        call({
          messages: [{
            role: "user",
            content: [{ type: "text", text: "a" }, { type: "image_url", image_url: { url: "https://x/a.png" } }]
          }]
        })
      )
    )
      .toEqual([])
  })

  it("the client's own Messages request drops nothing", () =>
    expect(droppedFields(nativeCall({ model: "m", max_tokens: 1, messages: [] }, {}, { passthrough: { seed: 1 } })))
      .toEqual([]))
})

describe("the client's own Messages request (native)", () => {
  /** Claude Code's kind of request: betas, thinking, cache breakpoints, a server tool, context management. */
  const clientBody = {
    model: "claude-sonnet-4-5",
    max_tokens: 32000,
    system: [{ type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } }],
    messages: [
      { role: "user", content: [{ type: "text", text: "list files", cache_control: { type: "ephemeral" } }] }
    ],
    tools: [
      {
        name: "Bash",
        description: "Run a command",
        input_schema: { type: "object", properties: { command: { type: "string" } } }
      },
      { type: "web_search_20250305", name: "web_search", max_uses: 5 }
    ],
    tool_choice: { type: "auto" },
    thinking: { type: "enabled", budget_tokens: 10000 },
    context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
    metadata: { user_id: "user_abc" },
    top_k: 5,
    stream: true
  }
  const headers = {
    "anthropic-version": "2023-06-01",
    "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14"
  }
  /** The call the core makes of it: the client's tools, then the shared ones. */
  const kernelTools: ReadonlyArray<ToolDefinition> = [
    fn("Bash"),
    fn("svc__search", { description: "Search the docs" })
  ]
  const without = (body: Record<string, unknown>, ...keys: ReadonlyArray<string>) =>
    Object.fromEntries(Object.entries(body).filter(([key]) => !keys.includes(key)))

  it("goes as it came, but the model, stream, and the shared tools appended", () => {
    for (const stream of [true, false]) {
      const body = requestBody(
        nativeCall(clientBody, headers, { modelId: "claude-sonnet-4-5-20250929", tools: kernelTools }),
        stream
      )
      expect(without(body, "model", "stream", "tools")).toEqual(without(clientBody, "model", "stream", "tools"))
      expect(body["model"]).toBe("claude-sonnet-4-5-20250929")
      expect(body["stream"]).toBe(stream)
      expect(body["tools"]).toEqual([
        ...clientBody.tools,
        { name: "svc__search", description: "Search the docs", input_schema: { type: "object", properties: {} } }
      ])
    }
  })

  it("the same object is not changed", () => {
    const before = JSON.stringify(clientBody)
    requestBody(
      nativeCall(clientBody, headers, {
        tools: kernelTools,
        messages: [{ role: "user", content: "x" }, { role: "assistant", content: "y" }]
      }),
      false
    )
    expect(JSON.stringify(clientBody)).toBe(before)
  })

  it("without stream, a whole answer asks for none (the API's default); without shared tools, tools are the client's", () => {
    const { stream: _stream, ...unstreamed } = clientBody
    const body = requestBody(nativeCall(unstreamed, headers, { tools: [fn("Bash")] }), false)
    expect(body).toEqual({ ...unstreamed, model: "claude-opus-4-1-20250805" })
    expect(requestBody(nativeCall(unstreamed, headers), true)["stream"]).toBe(true)
  })

  it("the tool loop's turns appended: the assistant's thinking, text and tool uses, then its results in one user turn", () => {
    const appended: ReadonlyArray<ChatMessage> = [
      {
        role: "assistant",
        content: "Searching.",
        reasoning_content: "I should search.",
        thinking_blocks: [{ type: "thinking", thinking: "I should search.", signature: "sig_1" }],
        tool_calls: [
          toolCall("toolu_1", "svc__search", "{\"q\":\"files\"}"),
          toolCall("toolu_2", "svc__search", "{\"q\":\"dirs\"}")
        ]
      },
      { role: "tool", tool_call_id: "toolu_1", content: "a.ts" },
      { role: "tool", tool_call_id: "toolu_2", content: [{ type: "text", text: "src/" }] }
    ]
    const body = requestBody(
      nativeCall(clientBody, headers, { messages: [{ role: "user", content: "list files" }, ...appended] }),
      true
    )
    expect(body["messages"]).toEqual([
      ...clientBody.messages,
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "I should search.", signature: "sig_1" },
          { type: "text", text: "Searching." },
          { type: "tool_use", id: "toolu_1", name: "svc__search", input: { q: "files" } },
          { type: "tool_use", id: "toolu_2", name: "svc__search", input: { q: "dirs" } }
        ]
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "a.ts" },
          { type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: "src/" }] }
        ]
      }
    ])
  })

  it("an appended turn of the same role as the client's last merges into it (alternation)", () => {
    const body = requestBody(
      nativeCall(
        { ...clientBody, messages: [{ role: "user", content: "a" }, { role: "assistant", content: "b" }] },
        headers,
        {
          messages: [{ role: "user", content: "a" }, { role: "assistant", content: "b" }, {
            role: "assistant",
            content: "c"
          }]
        },
        2
      ),
      false
    )
    expect(body["messages"]).toEqual([
      { role: "user", content: "a" },
      { role: "assistant", content: [{ type: "text", text: "b" }, { type: "text", text: "c" }] }
    ])
  })

  it("a request of another format is written from the model", () => {
    const other = call({
      messages: [{ role: "system", content: "s" }, { role: "user", content: "hi" }],
      native: { request: { format: "openai-responses", body: { input: "hi" }, headers: {} }, clientTurns: 2 }
    })
    expect(requestBody(other, false)).toEqual({
      model: "claude-opus-4-1-20250805",
      max_tokens: DEFAULT_MAX_TOKENS,
      system: "s",
      messages: [{ role: "user", content: "hi" }],
      stream: false
    })
  })
})

describe("headers", () => {
  const cases: ReadonlyArray<
    readonly [string, ReturnType<typeof call>, Record<string, string>, Record<string, string>]
  > = [
    ["from the model: the default version, no beta", call(), {}, { "anthropic-version": ANTHROPIC_VERSION }],
    ["the configured version and beta when the client sent none", call(), {
      "anthropic-version": "2024-01-01",
      "anthropic-beta": "b0"
    }, { "anthropic-version": "2024-01-01", "anthropic-beta": "b0" }],
    [
      "the client's version and beta, forwarded",
      nativeCall({}, { "anthropic-version": "2023-01-01", "anthropic-beta": "context-1m-2025-08-07" }),
      { "anthropic-beta": "b0" },
      { "anthropic-version": "2023-01-01", "anthropic-beta": "context-1m-2025-08-07" }
    ],
    ["a client without headers: the default version", nativeCall({}, {}), {}, {
      "anthropic-version": ANTHROPIC_VERSION
    }]
  ]
  for (const [label, theCall, configured, expected] of cases) {
    it(label, () => expect(forwardedHeaders(theCall, configured)).toEqual(expected))
  }
  it("the default version is 2023-06-01", () => expect(ANTHROPIC_VERSION).toBe("2023-06-01"))
})

describe("count_tokens", () => {
  it("the same body without max_tokens, stream, sampling or metadata", () =>
    expect(
      countTokensBody(
        call({
          maxTokens: 10,
          passthrough: { temperature: 1, stop: "x", user: "u" },
          tools: [fn("f")],
          toolChoice: "auto"
        })
      )
    )
      .toEqual({
        model: "claude-opus-4-1-20250805",
        messages: [{ role: "user", content: "Hello" }],
        tools: [{ name: "f", input_schema: { type: "object", properties: {} } }],
        tool_choice: { type: "auto" }
      }))
})
