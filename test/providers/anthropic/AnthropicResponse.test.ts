/**
 * Anthropic's answers in the gateway's model, as tables: whole messages (text, tool use, thinking with
 * its signature, redacted thinking, every stop reason, usage with cache reads and writes), the
 * documented streams event by event, and errors (Anthropic's own bodies, and bodies that are not).
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import type { CompletionChunk, Usage } from "../../../src/kernel/Canonical.ts"
import {
  decodeError,
  decodeMessage,
  finishReason,
  streamDecoder,
  usageOf
} from "../../../src/providers/anthropic/AnthropicResponse.ts"
import { ProviderError, UpstreamStatus } from "../../../src/providers/ProviderError.ts"
import type { EventStep } from "../../../src/providers/SseChunks.ts"
import {
  basicTextEvents,
  errorBody,
  type Event,
  overloadedEvent,
  redactedThinkingEvents,
  redactedThinkingMessage,
  textMessage,
  thinkingEvents,
  thinkingMessage,
  thinkingSignature,
  thinkingText,
  toolUseArguments,
  toolUseEvents,
  toolUseMessage,
  toolUseText,
  webSearchEvents
} from "./AnthropicFixtures.ts"

const MODEL = "claude-opus-4-1-20250805"

const usage = (promptTokens: number, completionTokens: number, cachedTokens = 0, cacheWriteTokens?: number): Usage => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
  cachedTokens,
  reasoningTokens: 0,
  ...(cacheWriteTokens === undefined ? {} : { cacheWriteTokens })
})

const decoded = (body: unknown) => {
  const result = decodeMessage(JSON.stringify(body), "fallback")
  if (Result.isFailure(result)) throw new Error(`decode failed: ${result.failure.message}`)
  return result.success
}

const failure = (text: string) => {
  const result = decodeMessage(text, "fallback")
  if (Result.isSuccess(result)) throw new Error("decoded")
  return result.failure
}

describe("a whole message", () => {
  it("text: the documented answer", () =>
    expect(decoded(textMessage)).toEqual({
      model: MODEL,
      choices: [{ index: 0, message: { role: "assistant", content: "Hi! My name is Claude." }, finish_reason: "stop" }],
      usage: usage(2095, 503),
      extra: {},
      native: { format: "anthropic", stop_reason: "end_turn", stop_sequence: null }
    }))

  it("tool use: text and a tool call whose arguments are its input as JSON; usage with the cache read and written", () =>
    expect(decoded(toolUseMessage)).toEqual({
      model: MODEL,
      choices: [{
        index: 0,
        message: {
          role: "assistant",
          content: "I'll check the current weather in San Francisco for you.",
          tool_calls: [{
            id: "toolu_01A09q90qw90lq917835lq9",
            type: "function",
            function: { name: "get_weather", arguments: "{\"location\":\"San Francisco, CA\",\"unit\":\"celsius\"}" }
          }]
        },
        finish_reason: "tool_calls"
      }],
      // 472 + 1024 read + 256 written
      usage: usage(1752, 89, 1024, 256),
      extra: {},
      native: { format: "anthropic", stop_reason: "tool_use", stop_sequence: null }
    }))

  it("extended thinking: the block kept whole with its signature, its text as reasoning_content", () =>
    expect(decoded(thinkingMessage).choices[0]?.message).toEqual({
      role: "assistant",
      content: "Based on my analysis...",
      reasoning_content: "Let me analyze this step by step...",
      thinking_blocks: [thinkingMessage.content[0]]
    }))

  it("redacted thinking: kept in order among the thinking blocks", () =>
    expect(decoded(redactedThinkingMessage).choices[0]?.message).toEqual({
      role: "assistant",
      content: "Based on my analysis...",
      reasoning_content: "Let me analyze this step by step...",
      thinking_blocks: [redactedThinkingMessage.content[0], redactedThinkingMessage.content[1]]
    }))

  it("no text: content null, with or without tool calls", () => {
    expect(decoded({ ...textMessage, content: [] }).choices[0]?.message).toEqual({ role: "assistant", content: null })
    expect(decoded({ ...toolUseMessage, content: [toolUseMessage.content[1]] }).choices[0]?.message.content).toBeNull()
  })

  it("text blocks are joined", () =>
    expect(
      decoded({ ...textMessage, content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }).choices[0]
        ?.message.content
    ).toBe("ab"))

  it("a message without a model is the call's", () => {
    const { model: _model, ...rest } = textMessage
    expect(decoded(rest).model).toBe("fallback")
  })

  describe("stop reasons", () => {
    const cases: ReadonlyArray<readonly [string | null, string]> = [
      ["end_turn", "stop"],
      ["stop_sequence", "stop"],
      ["max_tokens", "length"],
      ["tool_use", "tool_calls"],
      ["refusal", "content_filter"],
      ["pause_turn", "stop"],
      ["model_context_window_exceeded", "length"],
      ["something_new", "stop"],
      [null, "stop"]
    ]
    for (const [stopReason, finish] of cases) {
      it(`${stopReason} -> ${finish}, and kept as it came in native`, () => {
        const completion = decoded({
          ...textMessage,
          stop_reason: stopReason,
          stop_sequence: stopReason === "stop_sequence" ? "###" : null
        })
        expect(completion.choices[0]?.finish_reason).toBe(finish)
        expect(completion.native).toEqual({
          format: "anthropic",
          stop_reason: stopReason,
          stop_sequence: stopReason === "stop_sequence" ? "###" : null
        })
        expect(finishReason(stopReason)).toBe(finish)
      })
    }
  })

  describe("usage", () => {
    const cases: ReadonlyArray<readonly [string, Record<string, unknown> | undefined, Usage]> = [
      ["input and output", { input_tokens: 10, output_tokens: 5 }, usage(10, 5)],
      ["cache read and written count as prompt tokens", {
        input_tokens: 10,
        output_tokens: 5,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 50
      }, usage(160, 5, 100, 50)],
      ["a cache write of 0 reported is kept", {
        input_tokens: 10,
        output_tokens: 5,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0
      }, usage(10, 5, 0, 0)],
      ["null cache fields count for nothing", {
        input_tokens: 3,
        output_tokens: 1,
        cache_read_input_tokens: null,
        cache_creation_input_tokens: null
      }, usage(3, 1)],
      ["the 5-minute part of cache_creation and server tool counts are ignored", {
        input_tokens: 3,
        output_tokens: 1,
        cache_creation: { ephemeral_5m_input_tokens: 0 },
        server_tool_use: { web_search_requests: 1 }
      }, usage(3, 1)],
      ["cache_creation's 1-hour writes are kept apart, as part of the writes", {
        input_tokens: 3,
        output_tokens: 1,
        cache_creation_input_tokens: 500,
        cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 300 }
      }, { ...usage(503, 1, 0, 500), cacheWrite1hTokens: 300 }],
      ["none", undefined, usage(0, 0)]
    ]
    for (const [label, anthropic, expected] of cases) {
      it(label, () => {
        expect(usageOf(anthropic)).toEqual(expected)
        expect(decoded({ ...textMessage, usage: anthropic }).usage).toEqual(expected)
      })
    }
  })

  describe("bodies that are not a message", () => {
    it("not JSON, or JSON without content: a bad response", () => {
      expect(failure("<html>hi</html>")._tag).toBe("UpstreamBadResponse")
      expect(failure("[]")._tag).toBe("UpstreamBadResponse")
      expect(failure(JSON.stringify({ id: "msg", type: "message" }))._tag).toBe("UpstreamBadResponse")
    })

    const cases: ReadonlyArray<readonly [string, number]> = [["overloaded_error", 529], ["api_error", 500], [
      "rate_limit_error",
      502
    ], ["invalid_request_error", 502]]
    for (const [type, status] of cases) {
      it(`an error body in a 200 (${type}) is that error, status ${status}`, () =>
        expect(failure(JSON.stringify(errorBody(type, "m")))).toMatchObject({
          _tag: "UpstreamStatus",
          status,
          type,
          message: "m"
        }))
    }
  })
})

/** Every event's step, as the adapter reads a stream. */
const steps = (events: ReadonlyArray<Event | string>): Array<EventStep> => {
  const decode = streamDecoder("fallback")
  return events.map((event) => decode(typeof event === "string" ? event : JSON.stringify(event)))
}

/** The chunks of a stream, and how it ended: its `End`, or the reason it failed (nothing after either). */
const run = (events: ReadonlyArray<Event | string>) => {
  const chunks: Array<CompletionChunk> = []
  for (const step of steps(events)) {
    if (step._tag === "Chunk") chunks.push(step.chunk)
    if (step._tag === "End") return { chunks, end: "End" as const }
    if (step._tag === "Fail") return { chunks, end: step.reason }
  }
  return { chunks, end: "open" as const }
}

const chunk = (delta: Record<string, unknown>, model = MODEL): CompletionChunk => ({
  model,
  choices: [{ index: 0, delta, finish_reason: null }],
  usage: undefined,
  extra: {}
})

const start = (u: Usage, model = MODEL): CompletionChunk => ({ ...chunk({ role: "assistant" }, model), usage: u })

const finish = (finishReason: string, stopReason: string, u: Usage, model = MODEL): CompletionChunk => ({
  model,
  choices: [{ index: 0, delta: {}, finish_reason: finishReason }],
  usage: u,
  extra: {},
  native: { format: "anthropic", stop_reason: stopReason, stop_sequence: null }
})

describe("a streamed message: the documented sequences", () => {
  it("basic text: role and input usage, the text deltas, the finish with the whole usage, then the end", () =>
    expect(run(basicTextEvents)).toEqual({
      chunks: [
        start(usage(25, 1)),
        chunk({ content: "Hello" }),
        chunk({ content: "!" }),
        finish("stop", "end_turn", usage(25, 15))
      ],
      end: "End"
    }))

  it("tool use: the text, then the tool call started at index 0 and its arguments piece by piece", () => {
    const { chunks, end } = run(toolUseEvents)
    expect(end).toBe("End")
    const textPieces = toolUseEvents.flatMap((e) => {
      const delta = e["delta"] as Record<string, unknown> | undefined
      return delta?.["type"] === "text_delta" ? [String(delta["text"])] : []
    })
    expect(chunks).toEqual([
      start(usage(472, 2)),
      ...textPieces.map((content) => chunk({ content })),
      chunk({
        tool_calls: [{
          index: 0,
          id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
          type: "function",
          function: { name: "get_weather", arguments: "" }
        }]
      }),
      ...toolUseArguments.map((piece) => chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] })),
      finish("tool_calls", "tool_use", usage(472, 89))
    ])
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe(toolUseText)
    const args = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []).map((t) => t.function?.arguments ?? "")
      .join("")
    expect(JSON.parse(args)).toEqual({ location: "San Francisco, CA", unit: "fahrenheit" })
  })

  it("extended thinking: reasoning_content deltas, the signature, then the text; no usage reported is zeros", () =>
    expect(run(thinkingEvents)).toEqual({
      chunks: [
        start(usage(0, 0)),
        ...thinkingText.map((thinking) => chunk({ reasoning_content: thinking })),
        chunk({ reasoning_signature: thinkingSignature }),
        chunk({ content: "27 * 453 = 12,231" }),
        finish("stop", "end_turn", usage(0, 0))
      ],
      end: "End"
    }))

  it("web search: the server tool's blocks are skipped, and the input usage message_delta restates wins", () => {
    const { chunks, end } = run(webSearchEvents)
    expect(end).toBe("End")
    expect(chunks.some((c) => c.choices[0]?.delta.tool_calls !== undefined)).toBe(false)
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join(""))
      .toBe(
        "I'll check the current weather in New York City for you.Here's the current weather information for New York City."
      )
    expect(chunks[0]?.usage).toEqual(usage(2679, 3, 0, 0))
    expect(chunks.at(-1)).toEqual(finish("stop", "end_turn", usage(10682, 510, 0, 0)))
  })

  it("redacted thinking arrives whole; the cache read and written in message_start stay in the final usage", () =>
    expect(run(redactedThinkingEvents)).toEqual({
      chunks: [
        start(usage(152, 1, 100, 40), "claude-3-7-sonnet-20250219"),
        chunk({ redacted_reasoning: "EmwKAhgBEgy3va3pzix..." }, "claude-3-7-sonnet-20250219"),
        chunk({ content: "Done." }, "claude-3-7-sonnet-20250219"),
        finish("length", "max_tokens", usage(152, 7, 100, 40), "claude-3-7-sonnet-20250219")
      ],
      end: "End"
    }))

  it("two tool uses after thinking are tool calls 0 and 1, whatever their block index", () => {
    const { chunks } = run([
      basicTextEvents[0]!,
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "a", name: "f", input: {} } },
      { type: "content_block_start", index: 2, content_block: { type: "tool_use", id: "b", name: "g", input: {} } },
      { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: "{}" } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: "{\"x\":1}" } }
    ])
    expect(chunks.slice(1).map((c) => c.choices[0]?.delta.tool_calls?.[0])).toEqual([
      { index: 0, id: "a", type: "function", function: { name: "f", arguments: "" } },
      { index: 1, id: "b", type: "function", function: { name: "g", arguments: "" } },
      { index: 1, function: { arguments: "{}" } },
      { index: 0, function: { arguments: "{\"x\":1}" } }
    ])
  })

  it("a message_delta's null cache fields do not replace message_start's numbers", () => {
    const { chunks } = run([
      {
        type: "message_start",
        message: { model: MODEL, usage: { input_tokens: 5, cache_read_input_tokens: 7, output_tokens: 1 } }
      },
      {
        type: "message_delta",
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: 9, cache_read_input_tokens: null }
      }
    ])
    expect(chunks.at(-1)?.usage).toEqual(usage(12, 9, 7))
  })

  it("a stop sequence is kept in native", () =>
    expect(
      run([basicTextEvents[0]!, {
        type: "message_delta",
        delta: { stop_reason: "stop_sequence", stop_sequence: "###" },
        usage: { output_tokens: 2 }
      }]).chunks.at(-1)?.native
    )
      .toEqual({ format: "anthropic", stop_reason: "stop_sequence", stop_sequence: "###" }))

  it("ping, content_block_stop and events the API may add later are skipped", () =>
    expect(
      steps([{ type: "ping" }, { type: "content_block_stop", index: 0 }, { type: "message_new_thing" }, {
        type: "content_block_delta",
        index: 0,
        delta: { type: "citations_delta" }
      }])
    )
      .toEqual([{ _tag: "Skip" }, { _tag: "Skip" }, { _tag: "Skip" }, { _tag: "Skip" }]))

  it("message_stop ends the answer", () => expect(steps([{ type: "message_stop" }])).toEqual([{ _tag: "End" }]))

  it("data that is not a JSON object fails the stream as a bad response", () => {
    for (const data of ["{\"type\": \"content_block_delta\"", "[DONE]", "[]"]) {
      expect(run([data]).end).toMatchObject({ _tag: "UpstreamBadResponse" })
    }
  })
})

describe("an error event", () => {
  const cases: ReadonlyArray<readonly [string, number, boolean]> = [
    ["overloaded_error", 529, true],
    ["api_error", 500, true],
    ["rate_limit_error", 502, true],
    ["invalid_request_error", 502, true],
    ["some_new_error", 502, true]
  ]
  for (const [type, status, retryable] of cases) {
    it(`${type}: status ${status}, its type and message kept, ${retryable ? "" : "not "}retryable`, () => {
      const { chunks, end } = run([...basicTextEvents.slice(0, 4), {
        type: "error",
        error: { type, message: `the ${type}` }
      }, ...basicTextEvents.slice(4)])
      expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("Hello")
      expect(end).toBeInstanceOf(UpstreamStatus)
      expect(end).toMatchObject({ status, type, message: `the ${type}` })
      expect(end !== "End" && end !== "open" && new ProviderError({ provider: "anthropic", reason: end }).retryable)
        .toBe(retryable)
    })
  }

  it("the documented overloaded error", () =>
    expect(run([overloadedEvent]).end).toMatchObject({
      _tag: "UpstreamStatus",
      status: 529,
      type: "overloaded_error",
      message: "Overloaded"
    }))

  it("without details: a bad response", () =>
    expect(run([{ type: "error" }]).end).toMatchObject({ _tag: "UpstreamBadResponse" }))
})

describe("a non-2xx answer", () => {
  const cases: ReadonlyArray<readonly [number, string, string, boolean]> = [
    [
      400,
      "invalid_request_error",
      "messages: roles must alternate between \"user\" and \"assistant\", but found multiple \"user\" roles in a row",
      false
    ],
    // the gateway's own key refused: another target may not share it
    [401, "authentication_error", "invalid x-api-key", true],
    [403, "permission_error", "Your API key does not have permission to use the specified resource.", true],
    [404, "not_found_error", "The requested resource could not be found.", false],
    [413, "request_too_large", "Request exceeds the maximum allowed number of bytes.", false],
    [429, "rate_limit_error", "This request would exceed your organization's rate limit.", true],
    [500, "api_error", "An unexpected error has occurred internal to Anthropic's systems.", true],
    [529, "overloaded_error", "Overloaded", true]
  ]
  for (const [status, type, message, retryable] of cases) {
    it(`${status} ${type}: type and message as they came, ${retryable ? "fails over" : "does not fail over"}`, () => {
      const reason = decodeError(status, JSON.stringify(errorBody(type, message)))
      expect(reason).toBeInstanceOf(UpstreamStatus)
      expect({ status: reason.status, type: reason.type, message: reason.message, code: reason.code }).toEqual({
        status,
        type,
        message,
        code: undefined
      })
      expect(new ProviderError({ provider: "anthropic", reason }).retryable).toBe(retryable)
    })
  }

  it("HTTP 502, 503 and 504 fail over too", () => {
    for (const status of [502, 503, 504]) expect(decodeError(status, "").retryable).toBe(true)
  })

  it("a long message is passed on whole", () => {
    const message = `prompt is too long: ${"x".repeat(3000)}`
    expect(decodeError(400, JSON.stringify(errorBody("invalid_request_error", message))).message).toBe(message)
  })

  const bodies: ReadonlyArray<readonly [string, number, string, Record<string, unknown>]> = [
    ["an HTML page", 502, "<html><body>Bad gateway</body></html>", {
      status: 502,
      message: "<html><body>Bad gateway</body></html>"
    }],
    ["plain text, trimmed", 503, "  upstream connect error\n", { status: 503, message: "upstream connect error" }],
    ["an empty body", 504, "", { status: 504, message: "upstream returned 504" }],
    ["JSON without an error object", 500, "{\"detail\":\"boom\"}", { status: 500, message: "{\"detail\":\"boom\"}" }],
    ["an error object without a message", 400, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\"}}", {
      status: 400,
      type: "invalid_request_error",
      message: "upstream returned 400"
    }]
  ]
  for (const [label, status, text, expected] of bodies) {
    it(`not Anthropic's: ${label}`, () => expect(decodeError(status, text)).toMatchObject(expected))
  }

  it("a body that is not Anthropic's is cut to 1000 characters", () =>
    expect(decodeError(502, "y".repeat(5000)).message).toBe(`${"y".repeat(1000)}…`))
})
