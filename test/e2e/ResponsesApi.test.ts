/**
 * `POST /v1/responses` through the `openai` SDK's `responses.create` against the real gateway:
 * `local/echo` (whole and streamed, client function calls both ways), a fake chat-completions upstream
 * (translated both ways; tool types it cannot take dropped and named), the gateway's own fields, and
 * errors in OpenAI's shape. The Responses upstream (same format end to end) is ResponsesNative.test.ts'.
 */
import OpenAI from "openai"
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
import { postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"
import { CITY, SCHEMA, TEXT, upstreamProviders, upstreams } from "../utils/UpstreamFormats.ts"

const weather: OpenAI.Responses.FunctionTool = {
  type: "function",
  name: "get_weather",
  description: "Current weather in a city",
  parameters: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
    additionalProperties: false
  },
  strict: true
}

/** Every event of a streamed answer, in order. */
const eventsOf = async (stream: AsyncIterable<OpenAI.Responses.ResponseStreamEvent>) => {
  const events: Array<OpenAI.Responses.ResponseStreamEvent> = []
  for await (const event of stream) events.push(event)
  return events
}

describe("/v1/responses through the openai SDK", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let client: OpenAI

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(upstream, { providers: upstreamProviders(upstream.url) }))
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: (await gw.newKey()).key, maxRetries: 0, timeout: 15_000 })
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })
  beforeEach(() => upstream.reset())

  describe("local/echo", () => {
    it("whole: the echo as an output message, output_text, usage", async () => {
      const response = await client.responses.create({ model: "local/echo", input: "Hello there", store: false })
      expect(response.object).toBe("response")
      expect(response.id).toMatch(/^resp_/)
      expect(response.status).toBe("completed")
      expect(response.model).toBe("local/echo")
      expect(response.output_text).toBe("Hello there")
      expect(response.output).toEqual([
        {
          id: expect.stringMatching(/^msg_/),
          type: "message",
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: "Hello there", annotations: [] }]
        }
      ])
      expect(response.usage).toEqual({
        input_tokens: 2,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 2,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 4
      })
    })

    it("streamed: events in OpenAI's order with growing sequence numbers; the SDK's final response", async () => {
      const events = await eventsOf(
        await client.responses.create({ model: "local/echo", input: "one two three", stream: true })
      )
      expect(events.map((event) => event.type)).toEqual([
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        ...events.filter((event) => event.type === "response.output_text.delta").map(() =>
          "response.output_text.delta"
        ),
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed"
      ])
      expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i))
      const text = events.flatMap((event) => (event.type === "response.output_text.delta" ? [event.delta] : [])).join(
        ""
      )
      expect(text).toBe("one two three")
      const completed = events.at(-1)
      expect(completed?.type === "response.completed" && completed.response.usage?.output_tokens).toBe(3)

      const final = await client.responses.stream({ model: "local/echo", input: "again" }).finalResponse()
      expect(final.output_text).toBe("again")
    })

    it("instructions and developer messages reach the model; a bad field is a 400 naming it", async () => {
      const response = await client.responses.create({
        model: "local/echo",
        instructions: "be brief",
        input: [{ role: "developer", content: "dev note" }, {
          role: "user",
          content: [{ type: "input_text", text: "last words" }]
        }]
      })
      expect(response.output_text).toBe("last words")
      await expect(
        client.responses.create({
          model: "local/echo",
          input: [{ type: "function_call_output", output: "x" }] as never
        })
      )
        .rejects.toMatchObject({ status: 400, error: expect.objectContaining({ param: "input[0].call_id" }) })
      await expect(client.responses.create({ model: "local/echo", input: "hi", previous_response_id: "resp_1" }))
        .rejects.toMatchObject({ status: 400, message: expect.stringContaining("the gateway keeps no responses") })
    })
  })

  describe("a chat-completions upstream", () => {
    it("function calls both ways: the model's call as a function_call item, the client's output sent back as a tool message", async () => {
      upstream.handle(() =>
        reply.json(
          completion({
            toolCalls: [toolCall("call_9", "get_weather", { city: "Paris" })],
            finishReason: "tool_calls",
            usage: usage(20, 7)
          })
        )
      )
      const first = await client.responses.create({ model: "fake/gpt", input: "Weather in Paris?", tools: [weather] })
      const call = first.output.find((item) => item.type === "function_call")
      expect(call).toMatchObject({
        type: "function_call",
        call_id: "call_9",
        name: "get_weather",
        arguments: "{\"city\":\"Paris\"}",
        status: "completed"
      })
      expect(upstream.requests[0]?.body).toMatchObject({
        model: "gpt",
        messages: [{ role: "user", content: "Weather in Paris?" }],
        tools: [{ type: "function", function: { name: "get_weather", parameters: weather.parameters, strict: true } }]
      })

      upstream.handle(() => reply.json(completion({ content: "Sunny, 21 °C.", usage: usage(30, 5) })))
      const second = await client.responses.create({
        model: "fake/gpt",
        tools: [weather],
        input: [
          { role: "user", content: "Weather in Paris?" },
          { type: "function_call", call_id: "call_9", name: "get_weather", arguments: "{\"city\":\"Paris\"}" },
          { type: "function_call_output", call_id: "call_9", output: "{\"sky\":\"sunny\",\"c\":21}" }
        ]
      })
      expect(second.output_text).toBe("Sunny, 21 °C.")
      expect(upstream.requests[1]?.body).toMatchObject({
        messages: [
          { role: "user", content: "Weather in Paris?" },
          {
            role: "assistant",
            content: null,
            tool_calls: [{
              id: "call_9",
              type: "function",
              function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" }
            }]
          },
          { role: "tool", tool_call_id: "call_9", content: "{\"sky\":\"sunny\",\"c\":21}" }
        ]
      })
    })

    it("streamed function call: added, argument deltas, done; tool types the upstream cannot take are named as dropped", async () => {
      upstream.handle(() =>
        reply.sse([
          chunk({
            role: "assistant",
            tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: "" } }]
          }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: "{\"city\":" } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: "\"Oslo\"}" } }] }, "tool_calls"),
          usageChunk(usage(10, 4))
        ])
      )
      const { data, response } = await client.responses.create({
        model: "fake/gpt",
        input: "Weather in Oslo?",
        tools: [weather, { type: "web_search" }],
        include: ["reasoning.encrypted_content"],
        stream: true
      }).withResponse()
      expect(response.headers.get("x-svc-dropped-fields")).toBe("include, tools[1].web_search")
      const events = await eventsOf(data)
      expect(events.map((event) => event.type)).toEqual([
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed"
      ])
      const done = events.find((event) => event.type === "response.output_item.done")
      expect(done?.type === "response.output_item.done" && done.item).toMatchObject({
        type: "function_call",
        call_id: "call_1",
        name: "get_weather",
        arguments: "{\"city\":\"Oslo\"}"
      })
      expect(upstream.requests[0]?.body).not.toHaveProperty("include")
    })

    it("a streamed text answer translated from chat chunks, with its usage", async () => {
      upstream.handle(() => reply.sse(textStream(["Hi", " there"], usage(9, 2))))
      const final = await client.responses.stream({ model: "fake/gpt", input: "hello" }).finalResponse()
      expect(final.output_text).toBe("Hi there")
      expect(final.usage).toMatchObject({ input_tokens: 9, output_tokens: 2, total_tokens: 11 })
    })

    it("an upstream failure is OpenAI's error shape with the upstream's status", async () => {
      upstream.handle(() =>
        reply.json({ error: { message: "Rate limited", type: "rate_limit_error", code: "rate_limit" } }, 429)
      )
      const response = await postChat(gw.url, { model: "fake/gpt", input: "hi" }, {
        key: (await gw.newKey()).key,
        path: "/v1/responses"
      })
      expect(response.status).toBe(429)
      expect(await response.json()).toMatchObject({ error: { message: expect.stringContaining("Rate limited") } })
    })
  })

  describe("every upstream format, through responses.create", () => {
    const tools: Array<OpenAI.Responses.Tool> = [{
      type: "function",
      name: "get_weather",
      parameters: SCHEMA,
      strict: false
    }]
    for (const target of upstreams) {
      it(`${target.name}: text and a function call, whole and streamed`, async () => {
        for (const stream of [false, true]) {
          const textReply = target.reply("text", stream)
          if (textReply !== undefined) upstream.handle(() => textReply)
          const text = stream
            ? (await client.responses.stream({ model: target.model, input: TEXT, tools }).finalResponse()).output_text
            : (await client.responses.create({ model: target.model, input: TEXT, tools })).output_text
          expect(text).toBe(TEXT)

          const toolReply = target.reply("tool", stream)
          if (toolReply !== undefined) upstream.handle(() => toolReply)
          const prompt = `call get_weather ${JSON.stringify(CITY)}`
          const response = stream
            ? await client.responses.stream({ model: target.model, input: prompt, tools }).finalResponse()
            : await client.responses.create({ model: target.model, input: prompt, tools })
          const call = response.output.find((item) => item.type === "function_call")
          expect(call?.type === "function_call" && { name: call.name, args: JSON.parse(call.arguments) as unknown })
            .toEqual({ name: "get_weather", args: CITY })
        }
      })
    }
  })
})
