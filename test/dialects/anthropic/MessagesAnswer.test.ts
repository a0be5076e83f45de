/**
 * Whole answers as Anthropic `message` bodies: text, tool uses, thinking with its signature (and
 * thinking a model did not sign), the usage arithmetic, stop reasons (mapped, or the Anthropic
 * upstream's own), the gateway's own fields; and the round trip a client makes: the blocks of an
 * answer, sent back as the next request's assistant turn, decode to the message the answer came from,
 * and a `tool_result` answers the `tool_use` by its id.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { WholeAnswer } from "../../../src/core/Outcome.ts"
import { anthropicUsage, encodeMessage } from "../../../src/dialects/anthropic/MessagesAnswer.ts"
import { parseMessagesCall } from "../../../src/dialects/anthropic/MessagesRequest.ts"
import type { AssistantMessage, Completion, NativeDetail, Usage } from "../../../src/kernel/Canonical.ts"
import { usage } from "./DocumentedStreams.ts"

const identity = { id: "msg_01XFDUDYJgAACzvnptvVoYEL", created: 1_767_000_000, model: "claude-opus-4-6" }

const answerOf = (
  message: Partial<AssistantMessage> & Record<string, unknown>,
  finish: string | null,
  u: Usage = usage(12, 6),
  more: Partial<WholeAnswer> & { readonly native?: NativeDetail } = {}
): WholeAnswer => {
  const { native, ...rest } = more
  const completion: Completion = {
    model: "upstream-model",
    choices: [{ index: 0, message: { role: "assistant", content: null, ...message }, finish_reason: finish }],
    usage: u,
    extra: { system_fingerprint: "fp_1" },
    ...(native === undefined ? {} : { native })
  }
  return {
    completion,
    usage: u,
    attempts: 1,
    rounds: 1,
    toolRuns: [],
    svcPendingId: undefined,
    provider: "test",
    model: "upstream-model",
    dropped: [],
    cost: null,
    ...rest
  }
}

describe("a whole answer as an Anthropic message", () => {
  it("text: the documented shape, the model as the client addressed it, nothing of chat completions leaking", () => {
    expect(encodeMessage(identity, answerOf({ content: "Hi! My name is Claude." }, "stop", usage(2095, 503))))
      .toStrictEqual({
        id: "msg_01XFDUDYJgAACzvnptvVoYEL",
        type: "message",
        role: "assistant",
        model: "claude-opus-4-6",
        content: [{ type: "text", text: "Hi! My name is Claude." }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 2095, output_tokens: 503, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }
      })
  })

  it("tool uses after the text, their arguments as input objects; arguments that are no object are {}", () => {
    const body = encodeMessage(
      identity,
      answerOf({
        content: "I'll check the weather.",
        tool_calls: [
          {
            id: "toolu_01A09q90qw90lq917835lq9",
            type: "function",
            function: { name: "get_weather", arguments: "{\"location\":\"San Francisco, CA\"}" }
          },
          { id: "toolu_02", type: "function", function: { name: "get_time", arguments: "{\"tz\":" } },
          { id: "toolu_03", type: "function", function: { name: "ping", arguments: "[1]" } }
        ]
      }, "tool_calls")
    )
    expect(body["content"]).toEqual([
      { type: "text", text: "I'll check the weather." },
      {
        type: "tool_use",
        id: "toolu_01A09q90qw90lq917835lq9",
        name: "get_weather",
        input: { location: "San Francisco, CA" }
      },
      { type: "tool_use", id: "toolu_02", name: "get_time", input: {} },
      { type: "tool_use", id: "toolu_03", name: "ping", input: {} }
    ])
    expect(body["stop_reason"]).toBe("tool_use")
  })

  it("a tool call without an id gets a toolu_ id; no text, no text block", () => {
    const body = encodeMessage(
      identity,
      answerOf(
        { content: "", tool_calls: [{ id: "", type: "function", function: { name: "f", arguments: "{}" } }] },
        "tool_calls"
      )
    )
    const blocks = body["content"] as Array<Record<string, unknown>>
    expect(blocks).toHaveLength(1)
    expect(blocks[0]!["id"]).toMatch(/^toolu_[0-9A-Za-z]{24}$/)
  })

  it("thinking first, whole from thinking_blocks with signatures and redacted data", () => {
    const body = encodeMessage(
      identity,
      answerOf({
        content: "The GCD is 21.",
        reasoning_content: "Euclid.",
        thinking_blocks: [
          {
            type: "thinking",
            thinking: "Euclid.",
            signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds..."
          },
          { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" }
        ]
      }, "stop")
    )
    expect(body["content"]).toEqual([
      { type: "thinking", thinking: "Euclid.", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds..." },
      { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
      { type: "text", text: "The GCD is 21." }
    ])
  })

  it("thinking a model did not sign (reasoning_content alone): one thinking block with an empty signature", () => {
    const body = encodeMessage(identity, answerOf({ content: "42", reasoning_content: "6 × 7" }, "stop"))
    expect(body["content"]).toEqual([{ type: "thinking", thinking: "6 × 7", signature: "" }, {
      type: "text",
      text: "42"
    }])
  })

  it("the gateway's own fields, top-level, when set", () => {
    const runs = [{ id: "svc_web_search", outcome: "ok" as const, round: 1 }]
    const body = encodeMessage(
      identity,
      answerOf({ content: "x" }, "stop", usage(1, 1), { toolRuns: runs, svcPendingId: "pend_01" })
    )
    expect(body["svc_tool_runs"]).toEqual(runs)
    expect(body["svc_pending_id"]).toBe("pend_01")
    expect(Object.keys(encodeMessage(identity, answerOf({ content: "x" }, "stop")))).not.toContain("svc_tool_runs")
  })
})

describe("usage arithmetic", () => {
  it("input_tokens leaves out the prompt tokens read from and written to the cache", () => {
    // 1000 prompt tokens: 600 read from the cache, 300 written to it, 100 neither
    expect(anthropicUsage(usage(1000, 50, 600, 300))).toStrictEqual({
      input_tokens: 100,
      output_tokens: 50,
      cache_read_input_tokens: 600,
      cache_creation_input_tokens: 300
    })
  })

  it("no cache write reported: 0 created", () => {
    expect(anthropicUsage(usage(30, 9, 10))).toStrictEqual({
      input_tokens: 20,
      output_tokens: 9,
      cache_read_input_tokens: 10,
      cache_creation_input_tokens: 0
    })
  })

  it("never below 0 input tokens", () => {
    expect(anthropicUsage(usage(10, 1, 8, 5)).input_tokens).toBe(0)
  })

  it("the answer's usage is the outcome's, summed over rounds", () => {
    const answer = { ...answerOf({ content: "x" }, "stop", usage(10, 1)), usage: usage(50, 9, 20, 5) }
    expect(encodeMessage(identity, answer)["usage"]).toEqual({
      input_tokens: 25,
      output_tokens: 9,
      cache_read_input_tokens: 20,
      cache_creation_input_tokens: 5
    })
  })
})

describe("stop reasons", () => {
  const mapped = [
    ["stop", "end_turn"],
    ["length", "max_tokens"],
    ["tool_calls", "tool_use"],
    ["function_call", "tool_use"],
    ["content_filter", "refusal"],
    ["something_new", "end_turn"],
    [null, "end_turn"]
  ] as const
  for (const [finish, stop] of mapped) {
    it(`finish_reason ${String(finish)} -> ${stop}`, () => {
      expect(encodeMessage(identity, answerOf({ content: "x" }, finish))).toMatchObject({
        stop_reason: stop,
        stop_sequence: null
      })
    })
  }

  it("an Anthropic upstream's own stop reason and sequence, as they were", () => {
    const native = { format: "anthropic" as const, stop_reason: "stop_sequence", stop_sequence: "###" }
    expect(encodeMessage(identity, answerOf({ content: "1 2 3" }, "stop", usage(1, 1), { native }))).toMatchObject({
      stop_reason: "stop_sequence",
      stop_sequence: "###"
    })
    const paused = { format: "anthropic" as const, stop_reason: "pause_turn", stop_sequence: null }
    expect(
      encodeMessage(identity, answerOf({ content: "..." }, "stop", usage(1, 1), { native: paused }))["stop_reason"]
    ).toBe("pause_turn")
  })

  it("another format's native detail is not Anthropic's", () => {
    const native = { format: "openai-responses" as const, finishReason: "SAFETY" }
    expect(
      encodeMessage(identity, answerOf({ content: "x" }, "content_filter", usage(1, 1), { native }))["stop_reason"]
    ).toBe("refusal")
  })
})

describe("round trips through the client", () => {
  it.effect("an answer's thinking, text and tool uses, sent back as the assistant turn, decode to the answer's message", () =>
    Effect.gen(function*() {
      const message = {
        content: "Checking both.",
        tool_calls: [
          {
            id: "toolu_01",
            type: "function" as const,
            function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" }
          },
          {
            id: "toolu_02",
            type: "function" as const,
            function: { name: "get_weather", arguments: "{\"city\":\"Oslo\"}" }
          }
        ],
        reasoning_content: "Two cities, two calls.",
        thinking_blocks: [
          { type: "thinking", thinking: "Two cities, two calls.", signature: "sig-1" },
          { type: "redacted_thinking", data: "EmwKAhgB" }
        ]
      }
      const body = encodeMessage(identity, answerOf(message, "tool_calls"))
      const call = yield* parseMessagesCall({
        model: "claude-opus-4-6",
        max_tokens: 100,
        messages: [
          { role: "user", content: "Weather in Paris and Oslo?" },
          { role: "assistant", content: body["content"] },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_01", content: "18C" },
              { type: "tool_result", tool_use_id: "toolu_02", content: "-3C", is_error: true }
            ]
          }
        ]
      }, {})
      expect(call.messages[1]).toEqual({ role: "assistant", ...message })
      expect(call.messages.slice(2)).toEqual([
        { role: "tool", tool_call_id: "toolu_01", content: "18C" },
        { role: "tool", tool_call_id: "toolu_02", content: "-3C", is_error: true }
      ])
    }))

  it.effect("a call given a toolu_ id is answered by that id", () =>
    Effect.gen(function*() {
      const body = encodeMessage(
        identity,
        answerOf({ tool_calls: [{ id: "", type: "function", function: { name: "f", arguments: "{}" } }] }, "tool_calls")
      )
      const use = (body["content"] as Array<Record<string, unknown>>)[0]!
      const call = yield* parseMessagesCall({
        model: "m",
        max_tokens: 10,
        messages: [
          { role: "user", content: "go" },
          { role: "assistant", content: [use] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: use["id"], content: "done" }] }
        ]
      }, {})
      expect(call.messages[1]?.tool_calls?.[0]?.id).toBe(use["id"])
      expect(call.messages[2]).toEqual({ role: "tool", tool_call_id: use["id"], content: "done" })
    }))
})
