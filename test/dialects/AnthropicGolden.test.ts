/**
 * Golden transcripts of the Messages API, from Anthropic's documented streaming examples (a text answer,
 * a tool use with its JSON deltas, extended thinking with its signature): read by the anthropic
 * adapter's decoder into the gateway's chunks, then written by the Messages dialect, they come out as
 * the same events, in the same order, with the same blocks and deltas. And requests: a documented
 * request decoded into the gateway's model and written back for an Anthropic upstream is the same
 * request; the chunks of a chat-completions stream become Anthropic's events.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { readFileSync } from "node:fs"
import { toProviderCall } from "../../src/core/GatewayCore.ts"
import type { Outcome } from "../../src/core/Outcome.ts"
import { parseMessagesCall } from "../../src/dialects/anthropic/MessagesRequest.ts"
import { encodeMessageStream } from "../../src/dialects/anthropic/MessagesStream.ts"
import { type CompletionChunk, emptyUsage } from "../../src/kernel/Canonical.ts"
import { requestBody } from "../../src/providers/anthropic/AnthropicRequest.ts"
import { streamDecoder } from "../../src/providers/anthropic/AnthropicResponse.ts"
import { fromChunkPull, streamPull } from "../utils/PullStreams.ts"

type Event = Record<string, unknown>

/** The documented "basic streaming request" answer. */
const textEvents: ReadonlyArray<Event> = [
  {
    type: "message_start",
    message: {
      id: "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY",
      type: "message",
      role: "assistant",
      content: [],
      model: "claude-opus-4-6",
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

/** The documented "streaming request with tool use" answer (text, then a tool use built from JSON deltas). */
const toolEvents: ReadonlyArray<Event> = [
  {
    type: "message_start",
    message: {
      id: "msg_014p7gG3wDgGV9EUtLvnow3U",
      type: "message",
      role: "assistant",
      model: "claude-opus-4-6",
      stop_sequence: null,
      usage: { input_tokens: 472, output_tokens: 2 },
      content: [],
      stop_reason: null
    }
  },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "ping" },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Okay" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: ", let's check the weather." } },
  { type: "content_block_stop", index: 0 },
  {
    type: "content_block_start",
    index: 1,
    content_block: { type: "tool_use", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", input: {} }
  },
  { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: "" } },
  { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: "{\"location\":" } },
  {
    type: "content_block_delta",
    index: 1,
    delta: { type: "input_json_delta", partial_json: " \"San Francisco, CA\"}" }
  },
  { type: "content_block_stop", index: 1 },
  { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 89 } },
  { type: "message_stop" }
]

/** The documented "streaming with extended thinking" answer. */
const thinkingEvents: ReadonlyArray<Event> = [
  {
    type: "message_start",
    message: {
      id: "msg_01",
      type: "message",
      role: "assistant",
      content: [],
      model: "claude-opus-4-6",
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 }
    }
  },
  { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
  { type: "ping" },
  {
    type: "content_block_delta",
    index: 0,
    delta: {
      type: "thinking_delta",
      thinking: "I need to find the GCD of 1071 and 462 using the Euclidean algorithm.\n\n1071 = 2 × 462 + 147"
    }
  },
  {
    type: "content_block_delta",
    index: 0,
    delta: { type: "thinking_delta", thinking: "\n462 = 3 × 147 + 21\n147 = 7 × 21 + 0\n\nSo GCD(1071, 462) = 21" }
  },
  {
    type: "content_block_delta",
    index: 0,
    delta: { type: "signature_delta", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds..." }
  },
  { type: "content_block_stop", index: 0 },
  { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
  {
    type: "content_block_delta",
    index: 1,
    delta: { type: "text_delta", text: "The greatest common divisor (GCD) of 1071 and 462 is **21**." }
  },
  { type: "content_block_stop", index: 1 },
  { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 90 } },
  { type: "message_stop" }
]

/** The adapter's chunks for a documented stream. */
const decode = (events: ReadonlyArray<Event>): Array<CompletionChunk> => {
  const step = streamDecoder("fallback-model")
  const chunks: Array<CompletionChunk> = []
  for (const event of events) {
    const next = step(JSON.stringify(event))
    if (next._tag === "Chunk") chunks.push(next.chunk)
    if (next._tag === "Fail") throw new Error(`decode failed at ${JSON.stringify(event)}`)
  }
  return chunks
}

const outcomeOf = (chunks: ReadonlyArray<CompletionChunk>): Outcome => ({
  usage: chunks.findLast((chunk) => chunk.usage !== undefined)?.usage ?? emptyUsage,
  attempts: 1,
  rounds: 1,
  toolRuns: [],
  svcPendingId: undefined,
  provider: "anthropic",
  model: "claude-opus-4-6",
  dropped: [],
  cost: null
})

const identity = { id: "msg_gateway", created: 0, model: "anthropic/claude-opus-4-6" }

/** The dialect's events for chunks, parsed back from its SSE frames (each named as its data's type). */
const encode = (chunks: ReadonlyArray<CompletionChunk>, usageAtStart: boolean) =>
  Effect.gen(function*() {
    const call = yield* parseMessagesCall({
      model: "claude-opus-4-6",
      max_tokens: 10,
      messages: [{ role: "user", content: "hi" }]
    }, {})
    const finalOutcome = outcomeOf(chunks)
    // message_start reads the usage reported so far (an Anthropic upstream's input, from its own
    // message_start; nothing yet from a chat-completions upstream); message_delta the final one
    let calls = 0
    const outcome = () =>
      calls++ > 0
        ? finalOutcome
        : { ...finalOutcome, usage: usageAtStart ? chunks[0]?.usage ?? emptyUsage : emptyUsage }
    const frames = yield* Effect.scoped(
      Effect.flatMap(Effect.scope, (scope) =>
        Effect.flatMap(streamPull(Stream.fromIterable(chunks))(scope), (pull) =>
          Stream.runCollect(fromChunkPull(encodeMessageStream(identity, call, { chunks: pull, outcome })))))
    )
    return frames.join("").split("\n\n").filter((frame) =>
      frame !== ""
    ).map((frame) => {
      const [name, data] = frame.split("\n")
      const event = JSON.parse(data!.slice("data: ".length)) as Event
      expect(name).toBe(`event: ${String(event["type"])}`)
      return event
    })
  })

/** What a round trip may change: the message's id and model (the gateway's), and usage (compared apart). */
const comparable = (events: ReadonlyArray<Event>) =>
  events.map((event) => {
    if (event["type"] === "message_start") {
      const { id: _id, model: _model, usage: _usage, ...message } = event["message"] as Event
      return { ...event, message }
    }
    if (event["type"] === "message_delta") {
      const { usage: _usage, ...rest } = event
      return rest
    }
    return event
  })

describe("Anthropic streams through the gateway's model and back", () => {
  for (
    const [name, events] of [["text", textEvents], ["tool use", toolEvents], [
      "extended thinking",
      thinkingEvents
    ]] as const
  ) {
    it.effect(`${name}: the documented events come out as they went in`, () =>
      Effect.gen(function*() {
        const out = yield* encode(decode(events), true)
        expect(comparable(out)).toEqual(comparable(events))
      }))
  }

  it.effect("usage: the input in message_start, the output and the input in message_delta", () =>
    Effect.gen(function*() {
      const out = yield* encode(decode(toolEvents), true)
      expect((out[0]!["message"] as Event)["usage"]).toMatchObject({ input_tokens: 472 })
      expect(out.at(-2)!["usage"]).toEqual({
        input_tokens: 472,
        output_tokens: 89,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0
      })
      expect(out.at(-2)!["delta"]).toEqual({ stop_reason: "tool_use", stop_sequence: null })
    }))

  it("the adapter's chunks: role and input usage first, then text, tool call deltas indexed from 0, the finish with the whole usage", () => {
    const chunks = decode(toolEvents)
    expect(chunks[0]).toMatchObject({
      model: "claude-opus-4-6",
      choices: [{ delta: { role: "assistant" } }],
      usage: { promptTokens: 472, completionTokens: 2 }
    })
    expect(chunks.slice(1, 3).map((chunk) => chunk.choices[0]?.delta.content)).toEqual([
      "Okay",
      ", let's check the weather."
    ])
    expect(chunks[3]?.choices[0]?.delta.tool_calls).toEqual([
      {
        index: 0,
        id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        type: "function",
        function: { name: "get_weather", arguments: "" }
      }
    ])
    const args = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []).map((call) =>
      call.function?.arguments ?? ""
    ).join("")
    expect(JSON.parse(args)).toEqual({ location: "San Francisco, CA" })
    expect(chunks.at(-1)).toMatchObject({
      choices: [{ finish_reason: "tool_calls" }],
      usage: { promptTokens: 472, completionTokens: 89, totalTokens: 561 },
      native: { format: "anthropic", stop_reason: "tool_use", stop_sequence: null }
    })
  })
})

describe("chat-completions chunks as Anthropic events", () => {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): CompletionChunk => ({
    model: "gpt-4o",
    choices: [{ index: 0, delta, finish_reason: finish }],
    usage: undefined,
    extra: {}
  })

  it.effect("text then two tool calls with argument deltas; the stop reason mapped; the input estimated at the start", () =>
    Effect.gen(function*() {
      const chunks: Array<CompletionChunk> = [
        chunk({ role: "assistant", content: "" }),
        chunk({ content: "Checking" }),
        chunk({ tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "f", arguments: "" } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: "{\"x\":1}" } }] }),
        chunk({ tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "g", arguments: "{}" } }] }),
        chunk({}, "tool_calls"),
        {
          model: "gpt-4o",
          choices: [],
          usage: { promptTokens: 30, completionTokens: 9, totalTokens: 39, cachedTokens: 10, reasoningTokens: 0 },
          extra: {}
        }
      ]
      const out = yield* encode(chunks, false)
      expect(out.map((event) => event["type"])).toEqual([
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop"
      ])
      expect(out[5]).toEqual({
        type: "content_block_start",
        index: 1,
        content_block: { type: "tool_use", id: "call_a", name: "f", input: {} }
      })
      expect(out[6]).toEqual({
        type: "content_block_delta",
        index: 1,
        delta: { type: "input_json_delta", partial_json: "{\"x\":1}" }
      })
      expect(out[8]).toMatchObject({ index: 2, content_block: { type: "tool_use", id: "call_b", name: "g" } })
      expect(out.at(-2)).toMatchObject({
        delta: { stop_reason: "tool_use", stop_sequence: null },
        usage: { input_tokens: 20, output_tokens: 9, cache_read_input_tokens: 10 }
      })
      // no usage yet from a chat-completions upstream: an estimate of "hi" (and never 0)
      expect((out[0]!["message"] as Event)["usage"]).toMatchObject({ input_tokens: 1 })
    }))
})

describe("Anthropic requests through the gateway's model and back", () => {
  /** The documented tool-use request, with a system prompt, a prior tool turn, an image and a stop sequence. */
  const documented = {
    model: "claude-opus-4-6",
    max_tokens: 1024,
    system: "You are a weather bot.",
    tools: [{
      name: "get_weather",
      description: "Get the current weather in a given location",
      input_schema: {
        type: "object",
        properties: { location: { type: "string", description: "The city and state, e.g. San Francisco, CA" } },
        required: ["location"]
      }
    }],
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
    ]
  }

  it.effect("decoded into the gateway's model and written for an Anthropic upstream from it, it is the same request", () =>
    Effect.gen(function*() {
      const call = yield* parseMessagesCall(documented, {})
      expect(call.toolChoice).toBe("required")
      expect(call.passthrough).toEqual({ stop: ["###"], temperature: 0.2 })
      expect(call.dropped).toEqual([])
      // written from the model (as for a pending turn), not from the client's request
      const { native: _native, ...fromModel } = toProviderCall(call, { modelId: "claude-opus-4-6", requestId: "req" })
      expect(requestBody(fromModel, false)).toEqual({ ...documented, stream: false })
    }))

  it.effect("with the client's request at hand, it goes as it came but for the model", () =>
    Effect.gen(function*() {
      const call = yield* parseMessagesCall({ ...documented, thinking: { type: "adaptive" }, top_k: 5 }, {
        "anthropic-beta": "b1"
      })
      expect(call.dropped).toEqual(["thinking", "top_k"])
      const body = requestBody(toProviderCall(call, { modelId: "claude-sonnet-4-5", requestId: "req" }), false)
      expect(body).toEqual({ ...documented, thinking: { type: "adaptive" }, top_k: 5, model: "claude-sonnet-4-5" })
    }))
})

describe("a request Claude Code sent (test/fixtures/claude-code/messages-request.json)", () => {
  const fixture = JSON.parse(
    readFileSync(new URL("../fixtures/claude-code/messages-request.json", import.meta.url), "utf8")
  ) as {
    readonly headers: Record<string, string>
    readonly body: Record<string, unknown>
  }

  it.effect("decodes: its system turn kept in place, every tool, the fields only Anthropic takes named as dropped", () =>
    Effect.gen(function*() {
      const call = yield* parseMessagesCall(fixture.body, fixture.headers)
      expect(call.model).toBe("local/echo")
      expect(call.bareModelAuthor).toBe("anthropic")
      expect(call.stream).toBe(true)
      expect(call.messages.map((m) => m.role)).toEqual(["system", "user", "system"])
      expect(call.tools?.length).toBe((fixture.body["tools"] as Array<unknown>).length)
      expect(call.dropped).toEqual(expect.arrayContaining(["thinking", "context_management", "output_config"]))
      expect(call.native?.body).toEqual(fixture.body)
      expect(call.native?.headers).toEqual({
        "anthropic-version": fixture.headers["anthropic-version"],
        "anthropic-beta": fixture.headers["anthropic-beta"]
      })
      expect(call.passthrough["user"]).toBe((fixture.body["metadata"] as Record<string, unknown>)["user_id"])
    }))
})
