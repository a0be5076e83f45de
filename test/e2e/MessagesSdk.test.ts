/**
 * `POST /v1/messages` through the official `@anthropic-ai/sdk` against the real gateway: `local/echo`
 * (whole, streamed, client tool calls both ways, tool choices), a fake Anthropic upstream (same format
 * end to end: what the upstream receives is what the client sent, but for the model; betas and
 * version headers forwarded; errors passed on unchanged), and a fake OpenAI upstream (across formats:
 * text, tool calls, dropped fields named). And the other direction: the `openai` SDK to an Anthropic
 * upstream. Errors come in Anthropic's shape; `count_tokens` and the model list answer as Anthropic's.
 */
import Anthropic from "@anthropic-ai/sdk"
import OpenAI from "openai"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  anthropicError,
  anthropicEvents,
  anthropicMessage,
  anthropicStream,
  anthropicUsage
} from "../utils/FakeAnthropic.ts"
import {
  completion,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  textStream,
  toolCall,
  usage
} from "../utils/FakeUpstream.ts"
import { postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"

const weather: Anthropic.Tool = {
  name: "get_weather",
  description: "Current weather in a city",
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
}

const ANTHROPIC_KEY = "sk-ant-upstream"

describe("/v1/messages through the Anthropic SDK", () => {
  let gw: TestGateway
  let openaiUpstream: FakeUpstream
  let anthropicUpstream: FakeUpstream
  let client: Anthropic
  let key: string

  beforeAll(async () => {
    openaiUpstream = await startFakeUpstream()
    anthropicUpstream = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(openaiUpstream, {
      providers: {
        anthropic: { adapter: "anthropic", base_url: anthropicUpstream.url, api_key_env: "FAKE_ANTHROPIC_KEY" }
      },
      env: { FAKE_ANTHROPIC_KEY: ANTHROPIC_KEY }
    }))
    key = (await gw.newKey()).key
    client = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0, timeout: 15_000 })
  })
  afterAll(async () => {
    await gw?.close()
    await openaiUpstream?.close()
    await anthropicUpstream?.close()
  })
  beforeEach(() => {
    openaiUpstream.reset()
    anthropicUpstream.reset()
  })

  describe("local/echo", () => {
    it("whole: the echo as a text block, end_turn, usage", async () => {
      const message = await client.messages.create({
        model: "local/echo",
        max_tokens: 100,
        messages: [{ role: "user", content: "Hello there" }]
      })
      expect(message.type).toBe("message")
      expect(message.id).toMatch(/^msg_/)
      expect(message.model).toBe("local/echo")
      expect(message.content).toEqual([{ type: "text", text: "Hello there" }])
      expect(message.stop_reason).toBe("end_turn")
      expect(message.usage.input_tokens).toBe(2)
      expect(message.usage.output_tokens).toBe(2)
    })

    it("streamed: the SDK assembles the echo; events in Anthropic's order, each named as its data's type", async () => {
      const message = await client.messages.stream({
        model: "local/echo",
        max_tokens: 100,
        messages: [{ role: "user", content: "one two three" }]
      }).finalMessage()
      expect(message.content).toEqual([expect.objectContaining({ type: "text", text: "one two three" })])
      expect(message.stop_reason).toBe("end_turn")
      expect(message.usage.output_tokens).toBe(3)

      const response = await postChat(gw.url, {
        model: "local/echo",
        max_tokens: 100,
        stream: true,
        messages: [{ role: "user", content: "one two three" }]
      }, { path: "/v1/messages", headers: { "x-api-key": key } })
      expect(response.headers.get("content-type")).toContain("text/event-stream")
      const events = (await response.text()).split("\n\n").filter((event) => event !== "").map((event) => {
        const [name, data] = event.split("\n")
        const type = (JSON.parse(data!.slice("data: ".length)) as { type: string }).type
        expect(name).toBe(`event: ${type}`)
        return type
      })
      expect(events).toEqual([
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop"
      ])
    })

    it("a client tool call both ways: tool_use, then the tool_result answered", async () => {
      const first = await client.messages.create({
        model: "local/echo",
        max_tokens: 100,
        tools: [weather],
        messages: [{ role: "user", content: "call get_weather {\"city\":\"Lyon\"}" }]
      })
      expect(first.stop_reason).toBe("tool_use")
      const use = first.content.find((block) => block.type === "tool_use")
      expect(use).toMatchObject({ type: "tool_use", name: "get_weather", input: { city: "Lyon" } })
      const second = await client.messages.create({
        model: "local/echo",
        max_tokens: 100,
        tools: [weather],
        messages: [
          { role: "user", content: "call get_weather {\"city\":\"Lyon\"}" },
          { role: "assistant", content: first.content },
          {
            role: "user",
            content: [{
              type: "tool_result",
              tool_use_id: use!.type === "tool_use" ? use!.id : "",
              content: "Sunny, 21C"
            }]
          }
        ]
      })
      expect(second.content).toEqual([{ type: "text", text: "Sunny, 21C" }])
    })

    it("a streamed tool call: the SDK assembles the input from its JSON deltas", async () => {
      const message = await client.messages.stream({
        model: "local/echo",
        max_tokens: 100,
        tools: [weather],
        messages: [{ role: "user", content: "call get_weather {\"city\":\"Paris\"}" }]
      }).finalMessage()
      expect(message.stop_reason).toBe("tool_use")
      expect(message.content).toMatchObject([{ type: "tool_use", name: "get_weather", input: { city: "Paris" } }])
    })

    it("tool_choice any and tool: a tool is called, the named one", async () => {
      const time: Anthropic.Tool = { name: "get_time", input_schema: { type: "object", properties: {} } }
      const any = await client.messages.create({
        model: "local/echo",
        max_tokens: 100,
        tools: [weather, time],
        tool_choice: { type: "any" },
        messages: [{ role: "user", content: "hello" }]
      })
      expect(any.content).toMatchObject([{ type: "tool_use", name: "get_weather" }])
      const named = await client.messages.create({
        model: "local/echo",
        max_tokens: 100,
        tools: [weather, time],
        tool_choice: { type: "tool", name: "get_time" },
        messages: [{ role: "user", content: "call get_weather {\"city\":\"Paris\"}" }]
      })
      expect(named.content).toMatchObject([{ type: "tool_use", name: "get_time", input: {} }])
    })
  })

  describe("to an Anthropic upstream (same format)", () => {
    /** A request as Claude Code sends one: system blocks with cache_control, thinking, betas, context management. */
    const claudeCodeBody = {
      model: "claude-fake-1",
      max_tokens: 32000,
      stream: true,
      system: [
        { type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } },
        { type: "text", text: "Be concise.", cache_control: { type: "ephemeral", ttl: "1h" } }
      ],
      messages: [
        {
          role: "user",
          content: [{ type: "text", text: "<system-reminder>ctx</system-reminder>" }, {
            type: "text",
            text: "list files"
          }]
        },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "I should run ls.", signature: "EqQBCkYIBxgCKkA" },
            { type: "tool_use", id: "toolu_01", name: "Bash", input: { command: "ls" } }
          ]
        },
        {
          role: "user",
          content: [{
            type: "tool_result",
            tool_use_id: "toolu_01",
            content: "a.txt\nb.txt",
            cache_control: { type: "ephemeral" }
          }]
        }
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
      thinking: { type: "adaptive" },
      context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
      output_config: { effort: "high" },
      metadata: { user_id: "user_abc_account__session_123" },
      temperature: 1
    }

    it("every field the client sent reaches the upstream unchanged, but the model; betas and version forwarded", async () => {
      anthropicUpstream.handle(() => anthropicStream({ content: [{ type: "text", text: "Two files." }] }))
      const response = await postChat(gw.url, claudeCodeBody, {
        path: "/v1/messages?beta=true",
        headers: {
          "x-api-key": key,
          "anthropic-version": "2023-06-01",
          "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27"
        }
      })
      expect(response.status).toBe(200)
      expect(await response.text()).toContain("event: message_stop")
      const sent = anthropicUpstream.last()
      expect(sent.path).toBe("/v1/messages")
      expect(sent.headers["x-api-key"]).toBe(ANTHROPIC_KEY)
      expect(sent.headers["anthropic-version"]).toBe("2023-06-01")
      expect(sent.headers["anthropic-beta"]).toBe(
        "claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27"
      )
      expect(sent.body).toEqual(claudeCodeBody)
      expect(response.headers.get("x-svc-dropped-fields")).toBeNull()
    })

    it("a whole answer: thinking with its signature, text and usage with cache tokens come back", async () => {
      anthropicUpstream.handle(() =>
        reply.json(anthropicMessage({
          content: [
            { type: "thinking", thinking: "Let me think.", signature: "sig_1" },
            { type: "text", text: "Done." }
          ],
          usage: anthropicUsage(20, 7, 100, 50)
        }))
      )
      const message = await client.messages.create({
        model: "claude-fake-1",
        max_tokens: 1000,
        thinking: { type: "enabled", budget_tokens: 500 },
        messages: [{ role: "user", content: "think" }]
      })
      expect(message.content).toEqual([
        { type: "thinking", thinking: "Let me think.", signature: "sig_1" },
        { type: "text", text: "Done." }
      ])
      expect(message.usage).toMatchObject({
        input_tokens: 20,
        output_tokens: 7,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 50
      })
      expect(anthropicUpstream.last().body["thinking"]).toEqual({ type: "enabled", budget_tokens: 500 })
    })

    it("a stream: thinking, its signature, text and a tool call reach the SDK", async () => {
      anthropicUpstream.handle(() =>
        anthropicStream({
          content: [
            { type: "thinking", thinking: "Plan.", signature: "sig_2" },
            { type: "text", text: "Running it." },
            { type: "tool_use", id: "toolu_9", name: "Bash", input: { command: "pwd" } }
          ],
          usage: anthropicUsage(30, 12, 10)
        })
      )
      const message = await client.messages.stream({
        model: "claude-fake-1",
        max_tokens: 1000,
        tools: [{ name: "Bash", input_schema: { type: "object", properties: { command: { type: "string" } } } }],
        messages: [{ role: "user", content: "where am I" }]
      }).finalMessage()
      expect(message.content).toEqual([
        { type: "thinking", thinking: "Plan.", signature: "sig_2" },
        { type: "text", text: "Running it.", citations: null },
        { type: "tool_use", id: "toolu_9", name: "Bash", input: { command: "pwd" } }
      ].map((block) => block.type === "text" ? expect.objectContaining({ type: "text", text: "Running it." }) : block))
      expect(message.stop_reason).toBe("tool_use")
      expect(message.usage.input_tokens).toBe(30)
      expect(message.usage.cache_read_input_tokens).toBe(10)
      expect(message.usage.output_tokens).toBe(12)
    })

    it("the upstream's errors come back unmodified: status, type and message", async () => {
      anthropicUpstream.handle(() => anthropicError(529, "overloaded_error", "Overloaded"))
      const response = await postChat(gw.url, {
        model: "claude-fake-1",
        max_tokens: 10,
        messages: [{ role: "user", content: "hi" }]
      }, {
        path: "/v1/messages",
        headers: { "x-api-key": key }
      })
      expect(response.status).toBe(529)
      expect(await response.json()).toEqual({
        type: "error",
        error: { type: "overloaded_error", message: "Overloaded" }
      })

      anthropicUpstream.handle(() =>
        anthropicError(400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum")
      )
      const tooLong = await postChat(gw.url, {
        model: "claude-fake-1",
        max_tokens: 10,
        messages: [{ role: "user", content: "hi" }]
      }, {
        path: "/v1/messages",
        headers: { "x-api-key": key }
      })
      expect(tooLong.status).toBe(400)
      expect(await tooLong.json()).toEqual({
        type: "error",
        error: { type: "invalid_request_error", message: "prompt is too long: 210000 tokens > 200000 maximum" }
      })
    })

    it("count_tokens asks the Anthropic upstream", async () => {
      anthropicUpstream.handle((request) =>
        request.path.startsWith("/v1/messages/count_tokens") ? reply.json({ input_tokens: 4242 }) : reply.json({}, 404)
      )
      const counted = await client.messages.countTokens({
        model: "claude-fake-1",
        messages: [{ role: "user", content: "hi" }]
      })
      expect(counted.input_tokens).toBe(4242)
      expect(anthropicUpstream.last().body["messages"]).toEqual([{ role: "user", content: "hi" }])
    })
  })

  describe("to an OpenAI-compatible upstream (across formats)", () => {
    it("text, whole and streamed; the upstream gets chat completions; thinking named as dropped", async () => {
      openaiUpstream.handle((request) =>
        request.body.stream === true
          ? reply.sse(textStream(["Bon", "jour"], usage(9, 2)))
          : reply.json(completion({ content: "Bonjour", usage: usage(9, 2) }))
      )
      const { data, response } = await client.messages.create({
        model: "fake/some-model",
        max_tokens: 50,
        system: [{ type: "text", text: "Speak French.", cache_control: { type: "ephemeral" } }],
        thinking: { type: "enabled", budget_tokens: 1024 },
        messages: [{ role: "user", content: "Hello" }]
      }).withResponse()
      expect(data.content).toEqual([{ type: "text", text: "Bonjour" }])
      expect(data.usage).toMatchObject({ input_tokens: 9, output_tokens: 2 })
      const sent = openaiUpstream.last().body
      expect(sent.messages).toEqual([
        { role: "system", content: [{ type: "text", text: "Speak French." }] },
        { role: "user", content: "Hello" }
      ])
      expect(sent["max_tokens"]).toBe(50)
      expect(sent["thinking"]).toBeUndefined()
      const dropped = response.headers.get("x-svc-dropped-fields") ?? ""
      expect(dropped).toContain("thinking")
      expect(dropped).toContain("cache_control")

      const streamed = await client.messages.stream({
        model: "fake/some-model",
        max_tokens: 50,
        messages: [{ role: "user", content: "Hello" }]
      })
        .finalMessage()
      expect(streamed.content).toEqual([expect.objectContaining({ type: "text", text: "Bonjour" })])
      expect(streamed.usage).toMatchObject({ input_tokens: 9, output_tokens: 2 })
    })

    it("tool calls both ways: tool_use from the upstream's tool_calls, tool_result sent as a tool message", async () => {
      openaiUpstream.handle(() =>
        reply.json(
          completion({
            content: null,
            toolCalls: [toolCall("call_1", "get_weather", { city: "Oslo" })],
            finishReason: "tool_calls"
          })
        )
      )
      const first = await client.messages.create({
        model: "fake/some-model",
        max_tokens: 50,
        tools: [weather],
        tool_choice: { type: "any" },
        messages: [{ role: "user", content: "weather in Oslo?" }]
      })
      expect(first.stop_reason).toBe("tool_use")
      expect(first.content).toEqual([{ type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Oslo" } }])
      expect(openaiUpstream.last().body["tool_choice"]).toBe("required")
      expect(openaiUpstream.last().body["tools"]).toEqual([{
        type: "function",
        function: { name: "get_weather", description: "Current weather in a city", parameters: weather.input_schema }
      }])

      openaiUpstream.handle(() => reply.json(completion({ content: "Cold." })))
      await client.messages.create({
        model: "fake/some-model",
        max_tokens: 50,
        tools: [weather],
        messages: [
          { role: "user", content: "weather in Oslo?" },
          { role: "assistant", content: first.content },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: "call_1", content: "-3C" }, { type: "text", text: "and?" }]
          }
        ]
      })
      expect(openaiUpstream.last().body.messages).toEqual([
        { role: "user", content: "weather in Oslo?" },
        { role: "assistant", content: null, tool_calls: [toolCall("call_1", "get_weather", { city: "Oslo" })] },
        { role: "tool", tool_call_id: "call_1", content: "-3C" },
        { role: "user", content: "and?" }
      ])
    })

    it("count_tokens counts with the gateway's tokenizer", async () => {
      const counted = await client.messages.countTokens({
        model: "fake/some-model",
        messages: [{ role: "user", content: "hello world" }]
      })
      expect(counted.input_tokens).toBeGreaterThan(3)
      expect(counted.input_tokens).toBeLessThan(20)
      expect(openaiUpstream.requests).toHaveLength(0)
    })
  })

  describe("errors in Anthropic's shape", () => {
    it("no key, an unknown key: 401 authentication_error", async () => {
      const body = { model: "local/echo", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }
      const missing = await postChat(gw.url, body, { path: "/v1/messages" })
      expect(missing.status).toBe(401)
      expect(await missing.json()).toMatchObject({ type: "error", error: { type: "authentication_error" } })
      const unknown = await postChat(gw.url, body, { path: "/v1/messages", headers: { "x-api-key": "sk-svc-nope" } })
      expect(unknown.status).toBe(401)
      const bearer = await postChat(gw.url, body, { path: "/v1/messages", key })
      expect(bearer.status).toBe(200)
    })

    it("a bad body: 400 invalid_request_error naming the field", async () => {
      const response = await postChat(gw.url, { model: "local/echo", messages: [{ role: "user", content: "hi" }] }, {
        path: "/v1/messages",
        headers: { "x-api-key": key }
      })
      expect(response.status).toBe(400)
      const body = await response.json() as { type: string; error: { type: string; message: string } }
      expect(body.type).toBe("error")
      expect(body.error.type).toBe("invalid_request_error")
      expect(body.error.message).toContain("max_tokens")
    })

    it("an unknown model: the error names it", async () => {
      const error = await client.messages.create({
        model: "nobody/model",
        max_tokens: 10,
        messages: [{ role: "user", content: "hi" }]
      })
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(Anthropic.APIError)
      expect((error as InstanceType<typeof Anthropic.APIError>).message).toContain("nobody/model")
    })
  })

  it("GET /v1/models with anthropic-version answers Anthropic's list shape", async () => {
    const response = await fetch(`${gw.url}/v1/models`, {
      headers: { "x-api-key": key, "anthropic-version": "2023-06-01" }
    })
    expect(response.status).toBe(200)
    const body = await response.json() as { data: Array<{ type: string; id: string }>; has_more: boolean }
    expect(body.has_more).toBe(false)
    expect(body.data).toContainEqual(expect.objectContaining({ type: "model", id: "local/echo" }))
    const openai = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })
    expect(((await openai.json()) as { object: string }).object).toBe("list")
  })
})

describe("the openai SDK to an Anthropic upstream", () => {
  let gw: TestGateway
  let anthropicUpstream: FakeUpstream
  let client: OpenAI

  beforeAll(async () => {
    anthropicUpstream = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(anthropicUpstream, {
      providers: {
        claude: { adapter: "anthropic", base_url: anthropicUpstream.url, api_key_env: "FAKE_ANTHROPIC_KEY" }
      },
      env: { FAKE_ANTHROPIC_KEY: ANTHROPIC_KEY }
    }))
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: (await gw.newKey()).key, maxRetries: 0, timeout: 15_000 })
  })
  afterAll(async () => {
    await gw?.close()
    await anthropicUpstream?.close()
  })
  beforeEach(() => anthropicUpstream.reset())

  it("whole and streamed text; the upstream gets a Messages request with a system prompt and max_tokens", async () => {
    anthropicUpstream.handle((request) =>
      request.body.stream === true
        ? anthropicStream({ content: [{ type: "text", text: "Hi there" }], usage: anthropicUsage(8, 2) })
        : reply.json(
          anthropicMessage({ content: [{ type: "text", text: "Hi there" }], usage: anthropicUsage(8, 2, 4) })
        )
    )
    const whole = await client.chat.completions.create({
      model: "claude/claude-fake-1",
      messages: [{ role: "system", content: "Be nice." }, { role: "user", content: "Hello" }],
      stop: ["END"],
      temperature: 0.5
    })
    expect(whole.choices[0]?.message.content).toBe("Hi there")
    expect(whole.choices[0]?.finish_reason).toBe("stop")
    expect(whole.usage).toMatchObject({
      prompt_tokens: 12,
      completion_tokens: 2,
      prompt_tokens_details: { cached_tokens: 4 }
    })
    const sent = anthropicUpstream.last()
    expect(sent.path).toBe("/v1/messages")
    expect(sent.body).toMatchObject({
      model: "claude-fake-1",
      system: "Be nice.",
      messages: [{ role: "user", content: "Hello" }],
      stop_sequences: ["END"],
      temperature: 0.5
    })
    expect(typeof sent.body["max_tokens"]).toBe("number")

    const stream = await client.chat.completions.create({
      model: "claude/claude-fake-1",
      messages: [{ role: "user", content: "Hello" }],
      stream: true,
      stream_options: { include_usage: true }
    })
    let text = ""
    let promptTokens = 0
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? ""
      promptTokens = chunk.usage?.prompt_tokens ?? promptTokens
    }
    expect(text).toBe("Hi there")
    expect(promptTokens).toBe(8)
  })

  it("tool calls both ways, streamed: tool_calls deltas from tool_use, tool messages as tool_result blocks", async () => {
    anthropicUpstream.handle(() =>
      anthropicStream({ content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Rome" } }] })
    )
    const stream = await client.chat.completions.create({
      model: "claude/claude-fake-1",
      messages: [{ role: "user", content: "weather?" }],
      tools: [{
        type: "function",
        function: { name: "get_weather", parameters: weather.input_schema as Record<string, unknown> }
      }],
      tool_choice: "required",
      stream: true
    })
    let args = ""
    let name = ""
    let finish: string | null = null
    for await (const chunk of stream) {
      const call = chunk.choices[0]?.delta.tool_calls?.[0]
      name = call?.function?.name ?? name
      args += call?.function?.arguments ?? ""
      finish = chunk.choices[0]?.finish_reason ?? finish
    }
    expect([name, JSON.parse(args), finish]).toEqual(["get_weather", { city: "Rome" }, "tool_calls"])
    expect(anthropicUpstream.last().body["tool_choice"]).toEqual({ type: "any" })

    anthropicUpstream.handle(() => reply.json(anthropicMessage({ content: [{ type: "text", text: "Warm." }] })))
    await client.chat.completions.create({
      model: "claude/claude-fake-1",
      messages: [
        { role: "user", content: "weather?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: "toolu_1",
            type: "function",
            function: { name: "get_weather", arguments: "{\"city\":\"Rome\"}" }
          }]
        },
        { role: "tool", tool_call_id: "toolu_1", content: "25C" }
      ],
      tools: [{
        type: "function",
        function: { name: "get_weather", parameters: weather.input_schema as Record<string, unknown> }
      }]
    })
    expect(anthropicUpstream.last().body["messages"]).toEqual([
      { role: "user", content: "weather?" },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Rome" } }]
      },
      // the latest turn carries the prompt-cache breakpoint a chat client cannot set (CacheBreakpoints.ts)
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "25C", cache_control: { type: "ephemeral" } }]
      }
    ])
    expect((anthropicUpstream.last().body["tools"] as Array<Record<string, unknown>>).at(-1)?.["cache_control"])
      .toEqual({ type: "ephemeral" })
  })

  it("an upstream error mid-stream ends the stream with an error event, not a normal end", async () => {
    anthropicUpstream.handle(() =>
      reply.sse([
        ...anthropicEvents({ content: [{ type: "text", text: "partial answer" }] }).slice(0, 4),
        { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }
      ], { named: true, end: "end" })
    )
    const response = await postChat(gw.url, {
      model: "claude/claude-fake-1",
      stream: true,
      messages: [{ role: "user", content: "hi" }]
    }, {
      key: (await gw.newKey()).key
    })
    const text = await response.text()
    expect(text).toContain("partial")
    expect(text).not.toContain("[DONE]")
    expect(text).toContain("Overloaded")
  })
})
