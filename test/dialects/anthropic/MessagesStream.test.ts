/**
 * The Messages dialect's stream encoder: Anthropic's documented event sequences written frame by frame
 * from the gateway's chunks (exact strings), the same answers from a chat-completions upstream (input
 * estimated at the start, stop reasons mapped), the usage `message_start` and `message_delta` carry,
 * the gateway's own fields on `message_delta`, and the state machine's edges (thinking after a
 * signature, redacted thinking, calls without ids, chunks without choices, an empty answer).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { estimateInputTokens } from "../../../src/dialects/anthropic/MessagesStream.ts"
import { emptyUsage } from "../../../src/kernel/Canonical.ts"
import { chunk, documentedStreams, toolStream, usage, usageChunk } from "./DocumentedStreams.ts"
import { callWith, encode, events, outcomeOf, splitFrames } from "./StreamHarness.ts"

const identity = { id: "msg_01GatewayStreamTest0001", created: 1_767_000_000, model: "claude-opus-4-6" }

describe("Anthropic's documented streams, from an Anthropic upstream's chunks", () => {
  for (const doc of documentedStreams) {
    it.effect(`${doc.name}: the documented events, frame by frame`, () =>
      Effect.gen(function*() {
        const { frames } = yield* encode({
          identity: { id: doc.id, created: 0, model: doc.model },
          batches: doc.chunks,
          start: outcomeOf(doc.startUsage),
          final: outcomeOf(doc.finalUsage)
        })
        expect(frames).toEqual(doc.frames)
      }))
  }

  it.effect("the same frames whatever the batching: all chunks in one pull; every element whole frames", () =>
    Effect.gen(function*() {
      const { frames, elements } = yield* encode({
        identity: { id: toolStream.id, created: 0, model: toolStream.model },
        batches: [toolStream.chunks],
        start: outcomeOf(toolStream.startUsage),
        final: outcomeOf(toolStream.finalUsage)
      })
      expect(frames).toEqual(toolStream.frames)
      for (const element of elements) expect(events(splitFrames(element)).length).toBeGreaterThan(0)
    }))
})

describe("a chat-completions upstream's chunks", () => {
  // OpenAI's shape: role and empty content first, a call opened by the piece that names it, finish
  // without Anthropic's own stop reason, usage only on the last chunk
  const chunks = [
    chunk({ role: "assistant", content: "" }),
    chunk({ content: "Checking" }),
    chunk({ content: " both." }),
    chunk({
      tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "get_weather", arguments: "" } }]
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: "{\"city\":" } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: "\"Paris\"}" } }] }),
    chunk({
      tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "get_time", arguments: "{}" } }]
    }),
    chunk({}, "tool_calls"),
    usageChunk(usage(130, 21, 100))
  ]
  const call = callWith([
    { role: "system", content: [{ type: "text", text: "Be brief." }] },
    { role: "user", content: "Weather and time in Paris?" }
  ])

  it.effect("text then two tool calls with argument deltas; the input estimated at the start, the real usage at the end", () =>
    Effect.gen(function*() {
      const { frames } = yield* encode({ identity, call, batches: chunks, final: outcomeOf(usage(130, 21, 100)) })
      // "Be brief." + "Weather and time in Paris?" = 35 characters: 9 tokens
      expect(estimateInputTokens(call)).toBe(9)
      expect(frames).toEqual([
        `event: message_start\ndata: {"type":"message_start","message":{"id":"msg_01GatewayStreamTest0001","type":"message","role":"assistant","model":"claude-opus-4-6","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}}\n\n`,
        `event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n`,
        `event: ping\ndata: {"type":"ping"}\n\n`,
        `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Checking"}}\n\n`,
        `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" both."}}\n\n`,
        `event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n`,
        `event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"call_a","name":"get_weather","input":{}}}\n\n`,
        `event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"city\\":"}}\n\n`,
        `event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\\"Paris\\"}"}}\n\n`,
        `event: content_block_stop\ndata: {"type":"content_block_stop","index":1}\n\n`,
        `event: content_block_start\ndata: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"call_b","name":"get_time","input":{}}}\n\n`,
        `event: content_block_delta\ndata: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{}"}}\n\n`,
        `event: content_block_stop\ndata: {"type":"content_block_stop","index":2}\n\n`,
        `event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":21,"input_tokens":30,"cache_read_input_tokens":100,"cache_creation_input_tokens":0}}\n\n`,
        `event: message_stop\ndata: {"type":"message_stop"}\n\n`
      ])
    }))

  it.effect("finish reasons become Anthropic's stop reasons", () =>
    Effect.gen(function*() {
      const cases = [["stop", "end_turn"], ["length", "max_tokens"], ["tool_calls", "tool_use"], [
        "content_filter",
        "refusal"
      ]] as const
      for (const [finish, stop] of cases) {
        const { frames } = yield* encode({
          identity,
          batches: [chunk({ content: "x" }), chunk({}, finish)],
          final: outcomeOf(usage(1, 1))
        })
        expect(events(frames).at(-2)?.data["delta"]).toEqual({ stop_reason: stop, stop_sequence: null })
      }
    }))

  it.effect("an Anthropic upstream's own stop reason and sequence pass as they were", () =>
    Effect.gen(function*() {
      const { frames } = yield* encode({
        identity,
        batches: [
          chunk({ content: "1, 2, 3" }),
          chunk({}, "stop", { format: "anthropic", stop_reason: "stop_sequence", stop_sequence: "4" })
        ],
        final: outcomeOf(usage(5, 4))
      })
      expect(events(frames).at(-2)?.data["delta"]).toEqual({ stop_reason: "stop_sequence", stop_sequence: "4" })
    }))
})

describe("usage", () => {
  it.effect("message_start: the upstream's input so far from outcome(), its cached parts apart; message_delta: the final outcome", () =>
    Effect.gen(function*() {
      const { frames } = yield* encode({
        identity,
        batches: [chunk({ role: "assistant" }), chunk({ content: "ok" }), chunk({}, "stop")],
        // 1000 prompt tokens of which 600 read from the cache and 300 written to it
        start: outcomeOf(usage(1000, 1, 600, 300)),
        final: outcomeOf(usage(1200, 40, 600, 300))
      })
      const all = events(frames)
      expect((all[0]!.data["message"] as Record<string, unknown>)["usage"]).toEqual({
        input_tokens: 100,
        output_tokens: 1,
        cache_read_input_tokens: 600,
        cache_creation_input_tokens: 300
      })
      expect(all.at(-2)!.data["usage"]).toEqual({
        output_tokens: 40,
        input_tokens: 300,
        cache_read_input_tokens: 600,
        cache_creation_input_tokens: 300
      })
    }))

  it.effect("message_start: an estimate when nothing was reported yet, never 0", () =>
    Effect.gen(function*() {
      const call = callWith([
        { role: "user", content: "x".repeat(401) },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "t", type: "function", function: { name: "abcd", arguments: "{}" } }]
        },
        { role: "tool", tool_call_id: "t", content: [{ type: "text", text: "12345678" }] }
      ])
      // 401 + 4 + 2 + 8 = 415 characters
      expect(estimateInputTokens(call)).toBe(104)
      expect(estimateInputTokens(callWith([{ role: "user", content: "" }]))).toBe(1)
      const { frames } = yield* encode({
        identity,
        call,
        batches: [chunk({ content: "a" })],
        final: outcomeOf(usage(500, 1))
      })
      expect((events(frames)[0]!.data["message"] as Record<string, unknown>)["usage"]).toEqual({
        input_tokens: 104,
        output_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0
      })
    }))

  it.effect("a chunk without choices (the usage chunk) writes nothing, not even message_start", () =>
    Effect.gen(function*() {
      const { frames } = yield* encode({
        identity,
        batches: [usageChunk(usage(7, 0)), chunk({ content: "a" }), usageChunk(usage(7, 1))],
        start: outcomeOf(usage(7, 0)),
        final: outcomeOf(usage(7, 1))
      })
      expect(events(frames).map((e) => e.event)).toEqual([
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop"
      ])
    }))
})

describe("the gateway's own fields on message_delta", () => {
  it.effect("svc_pending_id and svc_tool_runs, top-level on the event, when set", () =>
    Effect.gen(function*() {
      const runs = [{ id: "svc_web_search", outcome: "ok" as const, round: 1 }]
      const { frames } = yield* encode({
        identity,
        batches: [
          chunk({ tool_calls: [{ index: 0, id: "call_1", function: { name: "get_weather", arguments: "{}" } }] }),
          chunk({}, "tool_calls")
        ],
        final: outcomeOf(usage(20, 5), { svcPendingId: "pend_01abc", toolRuns: runs })
      })
      expect(frames.at(-2)).toBe(
        `event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":5,"input_tokens":20,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},"svc_tool_runs":[{"id":"svc_web_search","outcome":"ok","round":1}],"svc_pending_id":"pend_01abc"}\n\n`
      )
    }))

  it.effect("absent when the request had none", () =>
    Effect.gen(function*() {
      const { frames } = yield* encode({
        identity,
        batches: [chunk({ content: "a" }, "stop")],
        final: outcomeOf(usage(1, 1))
      })
      const delta = events(frames).at(-2)!.data
      expect(Object.keys(delta)).toEqual(["type", "delta", "usage"])
    }))
})

describe("the block state machine", () => {
  it.effect("thinking after a signature is a new thinking block; redacted thinking is one whole block", () =>
    Effect.gen(function*() {
      const { frames } = yield* encode({
        identity,
        batches: [
          chunk({ reasoning_content: "first" }),
          chunk({ reasoning_signature: "sig-1" }),
          chunk({ redacted_reasoning: "EmwKAhgBEgy3va3pzix" }),
          chunk({ reasoning_content: "second" }),
          chunk({ reasoning_signature: "sig-2" }),
          chunk({ content: "answer" }, "stop")
        ],
        final: outcomeOf(usage(1, 1))
      })
      expect(events(frames).slice(1, -2).map((e) => e.data)).toEqual([
        { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
        { type: "ping" },
        { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "first" } },
        { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig-1" } },
        { type: "content_block_stop", index: 0 },
        {
          type: "content_block_start",
          index: 1,
          content_block: { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" }
        },
        { type: "content_block_stop", index: 1 },
        { type: "content_block_start", index: 2, content_block: { type: "thinking", thinking: "", signature: "" } },
        { type: "content_block_delta", index: 2, delta: { type: "thinking_delta", thinking: "second" } },
        { type: "content_block_delta", index: 2, delta: { type: "signature_delta", signature: "sig-2" } },
        { type: "content_block_stop", index: 2 },
        { type: "content_block_start", index: 3, content_block: { type: "text", text: "" } },
        { type: "content_block_delta", index: 3, delta: { type: "text_delta", text: "answer" } },
        { type: "content_block_stop", index: 3 }
      ])
    }))

  it.effect("a call streamed without an id gets a toolu_ id, so the client can answer it", () =>
    Effect.gen(function*() {
      const { frames } = yield* encode({
        identity,
        batches: [
          chunk({ tool_calls: [{ index: 0, function: { name: "f", arguments: "{}" } }] }),
          chunk({}, "tool_calls")
        ],
        final: outcomeOf(usage(1, 1))
      })
      const start = events(frames).find((e) => e.event === "content_block_start")!.data
      expect(start["content_block"]).toMatchObject({ type: "tool_use", name: "f", input: {} })
      expect((start["content_block"] as Record<string, unknown>)["id"]).toMatch(/^toolu_[0-9A-Za-z]{24}$/)
    }))

  it.effect("an answer with no chunks at all is still a whole message: start, delta, stop", () =>
    Effect.gen(function*() {
      const { frames } = yield* encode({ identity, batches: [], final: outcomeOf(emptyUsage) })
      expect(events(frames).map((e) => e.event)).toEqual(["message_start", "message_delta", "message_stop"])
      expect(events(frames)[1]!.data["delta"]).toEqual({ stop_reason: "end_turn", stop_sequence: null })
    }))

  it.effect("only choice 0 is written", () =>
    Effect.gen(function*() {
      const { frames } = yield* encode({
        identity,
        batches: [{
          model: "m",
          choices: [{ index: 1, delta: { content: "other" }, finish_reason: null }, {
            index: 0,
            delta: { content: "mine" },
            finish_reason: null
          }],
          usage: undefined,
          extra: {}
        }],
        final: outcomeOf(usage(1, 1))
      })
      expect(frames.join("")).toContain("\"text\":\"mine\"")
      expect(frames.join("")).not.toContain("other")
    }))
})
