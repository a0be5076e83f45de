/**
 * Chat completions through the official `openai` SDK against the real gateway, routed to a fake
 * OpenAI-compatible upstream: what the client gets back (ids, model, usage, chunks, tool calls) and
 * what the upstream receives (model id only, passthrough fields, headers, `include_usage`).
 */
import OpenAI from "openai"
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionTool
} from "openai/resources/chat/completions"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  chunk,
  completion,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  textStream,
  toolCall,
  usage,
  usageChunk
} from "../utils/FakeUpstream.ts"
import { postChat, sseData, startGateway, type TestGateway } from "../utils/TestGateway.ts"

const MODEL = "fake/some-model"

const tools: Array<ChatCompletionTool> = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Current weather in a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
    }
  },
  {
    type: "function",
    function: { name: "get_time", parameters: { type: "object", properties: { tz: { type: "string" } } } }
  }
]

/** The usage object the gateway renders for these counts. */
const wireUsage = (prompt: number, completion: number, cached: number, reasoning: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  input_tokens_details: { cached_tokens: cached },
  output_tokens_details: { reasoning_tokens: reasoning },
  prompt_tokens_details: { cached_tokens: cached },
  completion_tokens_details: { reasoning_tokens: reasoning }
})

const collect = async (stream: AsyncIterable<ChatCompletionChunk>) => {
  const chunks: Array<ChatCompletionChunk> = []
  for await (const c of stream) chunks.push(c)
  return chunks
}

const textOf = (chunks: ReadonlyArray<ChatCompletionChunk>) =>
  chunks.flatMap((c) => c.choices.map((choice) => choice.delta.content ?? "")).join("")

describe("chat completions through the OpenAI SDK", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let client: OpenAI
  let apiKey: string

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(upstream))
    apiKey = (await gw.newKey()).key
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 0, timeout: 15_000 })
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })
  beforeEach(() => upstream.reset())

  it("non-stream: the upstream gets the model id, the passthrough fields and its own key", async () => {
    upstream.handle(() =>
      reply.json(
        completion({ content: "Hello there", usage: usage(11, 7, 4, 2), extra: { system_fingerprint: "fp_1" } })
      )
    )
    const messages: Array<ChatCompletionMessageParam> = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" }
    ]
    const { data, response } = await client.chat.completions.create({
      model: MODEL,
      messages,
      temperature: 0.2,
      seed: 42,
      stop: ["END"],
      response_format: { type: "json_object" },
      user: "user-1",
      max_tokens: 50
    }, { headers: { "x-request-id": "client-req-1" } }).withResponse()

    expect(data.object).toBe("chat.completion")
    expect(data.id).toMatch(/^chatcmpl-/)
    expect(data.model).toBe(MODEL)
    expect(data.choices).toHaveLength(1)
    expect(data.choices[0]?.message).toMatchObject({ role: "assistant", content: "Hello there" })
    expect(data.choices[0]?.finish_reason).toBe("stop")
    expect(data.usage).toEqual(wireUsage(11, 7, 4, 2))
    expect(data.system_fingerprint).toBe("fp_1")
    expect(response.headers.get("x-request-id")).toBe("client-req-1")

    const sent = upstream.last()
    expect(sent.method).toBe("POST")
    expect(sent.path).toBe("/v1/chat/completions")
    expect(sent.headers["authorization"]).toBe("Bearer sk-upstream")
    expect(sent.headers["x-request-id"]).toBe("client-req-1")
    expect(sent.body).toMatchObject({
      model: "some-model",
      messages,
      temperature: 0.2,
      seed: 42,
      stop: ["END"],
      response_format: { type: "json_object" },
      user: "user-1",
      max_tokens: 50
    })
    expect(sent.body.stream ?? false).toBe(false)
    // OpenAI rejects stream_options on a request that does not stream
    expect(sent.body.stream_options).toBeUndefined()
  })

  it("stream without include_usage: text in order, no usage anywhere, ends with [DONE]", async () => {
    upstream.handle(() => reply.sse(textStream(["Hel", "lo", " world"], usage(4, 3)), { delayMs: 10 }))
    const { data: stream, response } = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "Say hello" }],
      stream: true,
      temperature: 0
    }).withResponse()
    const chunks = await collect(stream)

    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
    expect(textOf(chunks)).toBe("Hello world")
    expect(chunks.length).toBeGreaterThanOrEqual(4)
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1)
    for (const c of chunks) {
      expect(c.object).toBe("chat.completion.chunk")
      expect(c.model).toBe(MODEL)
      expect(c.usage ?? undefined).toBeUndefined()
      expect(c.choices.length).toBeGreaterThan(0)
    }
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant")
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("stop")

    // the upstream is always asked for usage, and a request id is made up when the client sent none
    const sent = upstream.last()
    expect(sent.body).toMatchObject({
      model: "some-model",
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0
    })
    expect(sent.headers["x-request-id"]).toBeTruthy()
    expect(response.headers.get("x-request-id")).toBe(sent.headers["x-request-id"])

    // the raw wire: the last event is [DONE]
    const raw = await postChat(gw.url, { model: MODEL, messages: [{ role: "user", content: "again" }], stream: true }, {
      key: apiKey
    })
    expect(raw.status).toBe(200)
    const events = sseData(await raw.text())
    expect(events.at(-1)).toBe("[DONE]")
    expect(events.slice(0, -1).every((e) => !("usage" in JSON.parse(e)))).toBe(true)
  })

  it("stream with include_usage: one last choices-[] chunk with the whole usage", async () => {
    upstream.handle(() => reply.sse(textStream(["a", "b"], usage(9, 3, 5, 1))))
    const chunks = await collect(
      await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: "ab" }],
        stream: true,
        stream_options: { include_usage: true }
      })
    )
    expect(textOf(chunks)).toBe("ab")
    const last = chunks.at(-1)
    expect(last?.choices).toEqual([])
    expect(last?.usage).toEqual(wireUsage(9, 3, 5, 1))
    expect(last?.model).toBe(MODEL)
    for (const c of chunks.slice(0, -1)) {
      expect(c.usage ?? undefined).toBeUndefined()
      expect(c.choices.length).toBeGreaterThan(0)
    }
    expect(upstream.last().body.stream_options).toEqual({ include_usage: true })
  })

  it("stream with include_usage: false still asks the upstream for usage, and sends the client none", async () => {
    upstream.handle(() => reply.sse(textStream(["x"])))
    const chunks = await collect(
      await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: "x" }],
        stream: true,
        stream_options: { include_usage: false, include_obfuscation: false }
      })
    )
    expect(textOf(chunks)).toBe("x")
    expect(chunks.every((c) => (c.usage ?? undefined) === undefined)).toBe(true)
    // the client's other stream options pass through
    expect(upstream.last().body.stream_options).toEqual({ include_usage: true, include_obfuscation: false })
  })

  it("stream chunks stay intact: finish_reason null until the end, the upstream's extra fields on every chunk", async () => {
    // OpenAI sends `finish_reason` on every chunk (null until the last) and `system_fingerprint` on each
    upstream.handle(() => reply.sse(textStream(["in", "tact"]).map((c) => ({ ...c, system_fingerprint: "fp_s" }))))
    // read the raw wire: the SDK's objects cannot tell a missing key from a null one
    const response = await postChat(
      gw.url,
      { model: MODEL, messages: [{ role: "user", content: "x" }], stream: true },
      {
        key: apiKey
      }
    )
    const events = sseData(await response.text())
    expect(events.at(-1)).toBe("[DONE]")
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as ChatCompletionChunk)
    expect(textOf(chunks)).toBe("intact")
    const reasons = chunks.flatMap((c) =>
      c.choices.map((choice) => ("finish_reason" in choice ? choice.finish_reason : "(missing)"))
    )
    expect(reasons).toStrictEqual([...reasons.slice(0, -1).map(() => null), "stop"])
    expect(chunks.map((c) => c.system_fingerprint)).toStrictEqual(chunks.map(() => "fp_s"))
  })

  it("usage reported with the Responses-style detail names is rendered in both spellings", async () => {
    upstream.handle(() =>
      reply.json({
        ...completion({ content: "ok" }),
        usage: {
          prompt_tokens: 30,
          completion_tokens: 20,
          total_tokens: 50,
          input_tokens_details: { cached_tokens: 10 },
          output_tokens_details: { reasoning_tokens: 8 }
        }
      })
    )
    const data = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] })
    expect(data.usage).toEqual(wireUsage(30, 20, 10, 8))
  })

  it("tools: offered tools reach the upstream, its tool calls reach the SDK", async () => {
    const calls = [toolCall("call_a", "get_weather", { city: "Paris" }), toolCall("call_b", "get_time", { tz: "CET" })]
    upstream.handle(() => reply.json(completion({ content: null, toolCalls: calls })))
    const data = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "Weather and time in Paris?" }],
      tools,
      tool_choice: "auto",
      parallel_tool_calls: true
    })
    expect(upstream.last().body).toMatchObject({ tools, tool_choice: "auto", parallel_tool_calls: true })
    const choice = data.choices[0]
    expect(choice?.finish_reason).toBe("tool_calls")
    expect(choice?.message.content).toBeNull()
    expect(choice?.message.tool_calls).toEqual(calls)
  })

  it("tools: streamed tool-call deltas keep their index", async () => {
    const toolDelta = (index: number, fields: Record<string, unknown>) => chunk({ tool_calls: [{ index, ...fields }] })
    upstream.handle(() =>
      reply.sse([
        chunk({ role: "assistant", content: null }),
        toolDelta(0, { id: "call_a", type: "function", function: { name: "get_weather", arguments: "" } }),
        toolDelta(0, { function: { arguments: "{\"city\":" } }),
        toolDelta(0, { function: { arguments: "\"Paris\"}" } }),
        toolDelta(1, { id: "call_b", type: "function", function: { name: "get_time", arguments: "" } }),
        toolDelta(1, { function: { arguments: "{\"tz\":\"CET\"}" } }),
        chunk({}, "tool_calls"),
        usageChunk(usage(20, 12))
      ])
    )
    const chunks = await collect(
      await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: "Weather and time?" }],
        tools,
        stream: true
      })
    )
    const deltas = chunks.flatMap((c) => c.choices.flatMap((choice) => choice.delta.tool_calls ?? []))
    expect(deltas.map((d) => d.index)).toEqual([0, 0, 0, 1, 1])
    const assembled = new Map<number, { id: string; name: string; args: string }>()
    for (const d of deltas) {
      const entry = assembled.get(d.index) ?? { id: "", name: "", args: "" }
      assembled.set(d.index, {
        id: entry.id + (d.id ?? ""),
        name: entry.name + (d.function?.name ?? ""),
        args: entry.args + (d.function?.arguments ?? "")
      })
    }
    expect([...assembled.values()]).toEqual([
      { id: "call_a", name: "get_weather", args: "{\"city\":\"Paris\"}" },
      { id: "call_b", name: "get_time", args: "{\"tz\":\"CET\"}" }
    ])
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("tool_calls")
    expect(upstream.last().body.tools).toEqual(tools)
  })

  it("tools: the follow-up with tool results reaches the upstream intact", async () => {
    upstream.handle(() => reply.json(completion({ content: "It is 18C and 14:00 in Paris." })))
    const messages: Array<ChatCompletionMessageParam> = [
      { role: "user", content: "Weather and time in Paris?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          toolCall("call_a", "get_weather", { city: "Paris" }),
          toolCall("call_b", "get_time", { tz: "CET" })
        ]
      },
      { role: "tool", tool_call_id: "call_a", content: "{\"temp_c\":18}" },
      { role: "tool", tool_call_id: "call_b", content: "14:00" }
    ]
    const data = await client.chat.completions.create({ model: MODEL, messages, tools })
    expect(data.choices[0]?.message.content).toBe("It is 18C and 14:00 in Paris.")
    expect(upstream.last().body.messages).toEqual(messages)
    expect(upstream.last().body.tools).toEqual(tools)
  })
})

describe("local/echo through the OpenAI SDK (no network)", () => {
  let gw: TestGateway
  let client: OpenAI

  beforeAll(async () => {
    gw = await startGateway()
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: (await gw.newKey()).key, maxRetries: 0, timeout: 15_000 })
  })
  afterAll(() => gw?.close())

  it("answers whole, echoing the last user message with word counts as usage", async () => {
    const data = await client.chat.completions.create({
      model: "local/echo",
      messages: [{ role: "system", content: "ignored here" }, { role: "user", content: "hello echo world" }]
    })
    expect(data.model).toBe("local/echo")
    expect(data.object).toBe("chat.completion")
    expect(data.choices[0]?.message).toMatchObject({ role: "assistant", content: "hello echo world" })
    expect(data.choices[0]?.finish_reason).toBe("stop")
    expect(data.usage).toEqual(wireUsage(5, 3, 0, 0))
  })

  it("streams the same answer, with usage last when asked", async () => {
    const chunks = await collect(
      await client.chat.completions.create({
        model: "local/echo",
        messages: [{ role: "user", content: "one two three four" }],
        stream: true,
        stream_options: { include_usage: true }
      })
    )
    expect(textOf(chunks)).toBe("one two three four")
    expect(chunks.filter((c) => c.choices.length > 0).every((c) => (c.usage ?? undefined) === undefined)).toBe(true)
    expect(chunks.at(-1)?.choices).toEqual([])
    expect(chunks.at(-1)?.usage).toEqual(wireUsage(4, 4, 0, 0))
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("stop")
  })

  it("`call <tool> <json>` makes a tool call, whole and streamed, and the tool result comes back", async () => {
    const ask: ChatCompletionMessageParam = { role: "user", content: "call get_weather {\"city\": \"Paris\"}" }
    const whole = await client.chat.completions.create({ model: "local/echo", messages: [ask], tools })
    const call = whole.choices[0]?.message.tool_calls?.[0]
    expect(whole.choices[0]?.finish_reason).toBe("tool_calls")
    expect(call?.type).toBe("function")
    expect(call?.id).toMatch(/^call_[A-Za-z0-9]{24}$/)
    if (call?.type !== "function") throw new Error("expected a function tool call")
    expect(call.function).toEqual({ name: "get_weather", arguments: "{\"city\":\"Paris\"}" })

    const chunks = await collect(
      await client.chat.completions.create({ model: "local/echo", messages: [ask], tools, stream: true })
    )
    const deltas = chunks.flatMap((c) => c.choices.flatMap((choice) => choice.delta.tool_calls ?? []))
    expect(deltas).toHaveLength(1)
    expect(deltas[0]).toMatchObject({
      index: 0,
      type: "function",
      function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" }
    })
    expect(chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter(Boolean)).toEqual([
      "tool_calls"
    ])

    // without the tool offered, the command is just text
    const plain = await client.chat.completions.create({ model: "local/echo", messages: [ask] })
    expect(plain.choices[0]?.message.content).toBe("call get_weather {\"city\": \"Paris\"}")

    const followUp = await client.chat.completions.create({
      model: "local/echo",
      tools,
      messages: [
        ask,
        { role: "assistant", content: null, tool_calls: [{ id: call.id, type: "function", function: call.function }] },
        { role: "tool", tool_call_id: call.id, content: "Sunny, 21C" }
      ]
    })
    expect(followUp.choices[0]?.message.content).toBe("Sunny, 21C")
    expect(followUp.choices[0]?.finish_reason).toBe("stop")
  })
})
