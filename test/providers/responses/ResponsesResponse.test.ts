/**
 * Responses answers read into the gateway's model from OpenAI's documented examples: whole responses
 * (text, a function call, reasoning with its encrypted content, an incomplete answer, a failure in a
 * 200), every event of the documented streams, and the failures a stream can end with.
 */
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import type { CompletionChunk } from "../../../src/kernel/Canonical.ts"
import { decodeErrorResponse } from "../../../src/providers/openai/OpenAiMapping.ts"
import { decodeResponse, streamDecoder } from "../../../src/providers/responses/ResponsesResponse.ts"
import type { EventStep } from "../../../src/providers/SseChunks.ts"
import {
  errorEvent,
  type Event,
  failedEvent,
  functionCallEvents,
  functionCallResponse,
  incompleteEvents,
  incompleteResponse,
  reasoningEvents,
  reasoningItem,
  reasoningResponse,
  storyText,
  textEvents,
  textResponse
} from "./ResponsesFixtures.ts"

const decoded = (body: unknown) => Result.getOrThrow(decodeResponse(JSON.stringify(body), "fallback"))

/** Each event through one decoder, named as the API names it. */
const run = (events: ReadonlyArray<Event>): Array<EventStep> => {
  const decode = streamDecoder("fallback")
  return events.map((event) => decode(JSON.stringify(event), String(event["type"])))
}

const chunksOf = (steps: ReadonlyArray<EventStep>): Array<CompletionChunk> =>
  steps.flatMap((step) => (step._tag === "Chunk" || step._tag === "Last" ? [step.chunk] : []))

const deltas = (steps: ReadonlyArray<EventStep>) => chunksOf(steps).map((chunk) => chunk.choices[0]?.delta)

const joined = (steps: ReadonlyArray<EventStep>, key: string) =>
  deltas(steps).map((delta) => (delta === undefined ? "" : String((delta as Record<string, unknown>)[key] ?? ""))).join(
    ""
  )

describe("a whole response", () => {
  it("the API reference's text answer: the text, stop, the model that answered, usage", () => {
    const completion = decoded(textResponse)
    expect(completion.model).toBe("gpt-4.1-2025-04-14")
    expect(completion.choices).toEqual([{
      index: 0,
      message: { role: "assistant", content: storyText },
      finish_reason: "stop"
    }])
    expect(completion.usage).toEqual({
      promptTokens: 36,
      completionTokens: 87,
      totalTokens: 123,
      cachedTokens: 0,
      reasoningTokens: 0
    })
  })

  it("a function call: its call_id is the tool call's id; tool_calls; cached tokens", () => {
    const completion = decoded(functionCallResponse)
    expect(completion.choices[0]).toEqual({
      index: 0,
      message: {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: "call_12345xyz",
          type: "function",
          function: { name: "get_weather", arguments: "{\"location\":\"Paris, France\"}" }
        }]
      },
      finish_reason: "tool_calls"
    })
    expect(completion.usage).toMatchObject({ promptTokens: 291, cachedTokens: 256 })
  })

  it("reasoning: one thinking block, summaries joined by a blank line, signed with the encrypted content; reasoning tokens", () => {
    const completion = decoded(reasoningResponse)
    const thinking = `${reasoningItem.summary[0]!.text}\n\n${reasoningItem.summary[1]!.text}`
    expect(completion.choices[0]?.message).toEqual({
      role: "assistant",
      content: "The capital of France is Paris.",
      thinking_blocks: [{ type: "thinking", thinking, signature: reasoningItem.encrypted_content }],
      reasoning_content: thinking
    })
    expect(completion.usage).toEqual({
      promptTokens: 13,
      completionTokens: 143,
      totalTokens: 156,
      cachedTokens: 0,
      reasoningTokens: 128
    })
  })

  it("incomplete: max_output_tokens is length, content_filter is content_filter", () => {
    expect(decoded(incompleteResponse).choices[0]?.finish_reason).toBe("length")
    expect(
      decoded({ ...incompleteResponse, incomplete_details: { reason: "content_filter" } }).choices[0]?.finish_reason
    ).toBe("content_filter")
  })

  it("a failure in a 200 is the upstream's error, with a status by its code; a body that is not a response is a bad response", () => {
    const failed = (code: string) =>
      decodeResponse(
        JSON.stringify({ ...textResponse, status: "failed", output: [], error: { code, message: `it was ${code}` } }),
        "m"
      )
    const cases = [["server_error", 500], ["rate_limit_exceeded", 429], ["invalid_prompt", 400], [
      "vector_store_timeout",
      502
    ]] as const
    for (const [code, status] of cases) {
      const result = failed(code)
      expect(Result.isFailure(result) && result.failure).toMatchObject({
        _tag: "UpstreamStatus",
        status,
        code,
        message: `it was ${code}`
      })
    }
    const wrapped = decodeResponse(
      JSON.stringify({ error: { message: "quota", type: "insufficient_quota", code: "insufficient_quota" } }),
      "m"
    )
    expect(Result.isFailure(wrapped) && wrapped.failure).toMatchObject({
      status: 429,
      type: "insufficient_quota",
      message: "quota"
    })
    for (const body of ["not json", "[1]", JSON.stringify({ id: "resp_1", object: "response" })]) {
      const result = decodeResponse(body, "m")
      expect(Result.isFailure(result) && result.failure._tag).toBe("UpstreamBadResponse")
    }
  })
})

describe("a streamed response", () => {
  it("the API reference's text stream: one chunk per delta, the rest skipped, response.completed last with usage", () => {
    const steps = run(textEvents())
    expect(steps.map((step) => step._tag)).toEqual([
      "Skip",
      "Skip",
      "Skip",
      "Skip",
      ...Array.from({ length: 10 }, () => "Chunk"),
      "Skip",
      "Skip",
      "Skip",
      "Last"
    ])
    expect(joined(steps, "content")).toBe("Hi there! How can I assist you today?")
    const last = chunksOf(steps).at(-1)!
    expect(last.choices[0]).toEqual({ index: 0, delta: {}, finish_reason: "stop" })
    expect(last.usage).toEqual({
      promptTokens: 37,
      completionTokens: 11,
      totalTokens: 48,
      cachedTokens: 0,
      reasoningTokens: 0
    })
    // the model that answered comes with the last chunk (the opening events are skipped unread)
    expect(last.model).toBe("gpt-4.1-2025-04-14")
  })

  it("the function-calling guide's stream: the call's id and name first, its arguments in deltas, tool_calls", () => {
    const steps = run(functionCallEvents())
    const calls = deltas(steps).flatMap((delta) => delta?.tool_calls ?? [])
    expect(calls[0]).toEqual({
      index: 0,
      id: "call_1234xyz",
      type: "function",
      function: { name: "get_weather", arguments: "" }
    })
    expect(calls.slice(1).every((call) => call.index === 0 && call.id === undefined)).toBe(true)
    expect(calls.map((call) => call.function?.arguments ?? "").join("")).toBe("{\"location\":\"Paris, France\"}")
    // the arguments' `done` and the item's end repeat them: not read again
    expect(calls).toHaveLength(8)
    expect(chunksOf(steps).at(-1)?.choices[0]?.finish_reason).toBe("tool_calls")
  })

  it("the reasoning guide's stream: summary text as reasoning_content, paragraphs apart, the encrypted content as its signature", () => {
    const steps = run(reasoningEvents())
    expect(joined(steps, "reasoning_content")).toBe(
      `${reasoningItem.summary[0]!.text}\n\n${reasoningItem.summary[1]!.text}`
    )
    const signatures = deltas(steps).flatMap((
      delta
    ) => (delta?.["reasoning_signature"] === undefined ? [] : [delta["reasoning_signature"]]))
    expect(signatures).toEqual([reasoningItem.encrypted_content])
    // the signature closes the thinking before the text begins
    const order = deltas(steps).map((delta) => Object.keys(delta ?? {})[0])
    expect(order.indexOf("reasoning_signature")).toBeLessThan(order.indexOf("content"))
    expect(joined(steps, "content")).toBe("The capital of France is Paris.")
    expect(chunksOf(steps).at(-1)?.usage).toMatchObject({ reasoningTokens: 128, completionTokens: 143 })
  })

  it("response.incomplete ends the stream with length; a reasoning item without encrypted content has no signature", () => {
    const steps = run(incompleteEvents())
    expect(steps.map((step) => step._tag)).toEqual(["Skip", "Skip", "Skip", "Last"])
    expect(chunksOf(steps)[0]?.choices[0]?.finish_reason).toBe("length")
    expect(chunksOf(steps)[0]?.usage?.reasoningTokens).toBe(300)
  })

  it("a call a server sends whole, in its item's end only, or with its arguments in the added item", () => {
    const item = { type: "function_call", id: "fc_9", call_id: "call_9", name: "ls", arguments: "{}" }
    const whole = run([
      { type: "response.output_item.done", output_index: 0, item },
      { type: "response.completed", response: { status: "completed", output: [item] } }
    ])
    expect(deltas(whole)[0]).toEqual({
      tool_calls: [{ index: 0, id: "call_9", type: "function", function: { name: "ls", arguments: "{}" } }]
    })
    expect(chunksOf(whole).at(-1)?.choices[0]?.finish_reason).toBe("tool_calls")
    const noDeltas = run([
      { type: "response.output_item.added", output_index: 0, item: { ...item, arguments: "" } },
      { type: "response.output_item.done", output_index: 0, item }
    ])
    expect(deltas(noDeltas)[1]).toEqual({ tool_calls: [{ index: 0, function: { arguments: "{}" } }] })
    const added = run([
      { type: "response.output_item.added", output_index: 0, item },
      { type: "response.output_item.done", output_index: 0, item }
    ])
    expect(added.map((step) => step._tag)).toEqual(["Chunk", "Skip"])
  })

  it("events without names (a server that does not name them) read the same", () => {
    const decode = streamDecoder("fallback")
    const steps = textEvents().map((event) => decode(JSON.stringify(event), "message"))
    expect(joined(steps, "content")).toBe("Hi there! How can I assist you today?")
    expect(steps.at(-1)?._tag).toBe("Last")
  })

  it("response.failed and the error event fail the stream with the upstream's code and message", () => {
    const [failed] = run([
      failedEvent("rate_limit_exceeded", "Rate limit reached for gpt-5. Please try again in 1.2s.")
    ])
    expect(failed).toMatchObject({
      _tag: "Fail",
      reason: { _tag: "UpstreamStatus", status: 429, code: "rate_limit_exceeded" }
    })
    const [overloaded] = run([errorEvent("server_is_overloaded", "The server is overloaded.")])
    expect(overloaded).toMatchObject({
      _tag: "Fail",
      reason: { status: 503, code: "server_is_overloaded", message: "The server is overloaded." }
    })
    expect(overloaded?._tag === "Fail" && overloaded.reason._tag === "UpstreamStatus" && overloaded.reason.type)
      .toBeUndefined()
    const [nested] = run([{
      type: "error",
      error: {
        type: "invalid_request_error",
        code: "context_length_exceeded",
        message: "Your input exceeds the context window.",
        param: "input"
      },
      sequence_number: 3
    }])
    expect(nested).toMatchObject({
      _tag: "Fail",
      reason: { status: 400, type: "invalid_request_error", code: "context_length_exceeded", param: "input" }
    })
    const [unknown] = run([errorEvent("ERR_SOMETHING", "Something went wrong")])
    expect(unknown).toMatchObject({ _tag: "Fail", reason: { status: 502, message: "Something went wrong" } })
    const decode = streamDecoder("m")
    expect(decode("{not json", "response.output_text.delta")).toMatchObject({
      _tag: "Fail",
      reason: { _tag: "UpstreamBadResponse" }
    })
  })
})

describe("error bodies", () => {
  it("OpenAI's error body with its status, as chat completions reads it: 429, 5xx and 401 fail over, 400 does not", () => {
    const body = (message: string, type: string, code: string | null, param: string | null = null) =>
      JSON.stringify({ error: { message, type, param, code } })
    const cases = [
      [
        400,
        body(
          "Unsupported parameter: 'temperature' is not supported with this model.",
          "invalid_request_error",
          "unsupported_parameter",
          "temperature"
        ),
        false
      ],
      [401, body("Incorrect API key provided.", "invalid_request_error", "invalid_api_key"), true],
      [429, body("Rate limit reached.", "requests", "rate_limit_exceeded"), true],
      [500, body("The server had an error while processing your request.", "server_error", null), true],
      [503, "<html>Service Unavailable</html>", true]
    ] as const
    for (const [status, text, retryable] of cases) {
      const reason = decodeErrorResponse(status, text)
      expect(reason.status).toBe(status)
      expect(reason.retryable).toBe(retryable)
    }
    expect(decodeErrorResponse(400, cases[0][1])).toMatchObject({
      type: "invalid_request_error",
      code: "unsupported_parameter",
      param: "temperature"
    })
  })
})
