/**
 * `parseChatCall`: what a valid body becomes (defaults, every field, nulls as absent, passthrough) and,
 * for each invalid field, a RequestError/InvalidField whose `param` names that field.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { parseChatCall } from "../../../src/dialects/openai/ChatRequest.ts"
import type { ChatCall } from "../../../src/kernel/ChatCall.ts"

const minimal = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }

const defaults: ChatCall = {
  model: "openai/gpt-4o-mini",
  messages: [{ role: "user", content: "hi" }],
  maxTokens: undefined,
  stream: false,
  includeUsage: false,
  streamOptions: {},
  tools: undefined,
  toolChoice: undefined,
  svcToolIds: [],
  svcPendingId: undefined,
  tags: [],
  passthrough: {}
}

const weatherTool = {
  type: "function",
  function: { name: "get_weather", description: "Weather now", parameters: { type: "object", properties: {} } }
} as const

/** The InvalidField a body is refused with; fails the test if it is accepted or refused otherwise. */
const invalidFieldOf = (json: unknown) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(parseChatCall(json))
    assert.strictEqual(error._tag, "RequestError")
    const reason = error.reason
    if (reason._tag !== "InvalidField") return assert.fail(`expected InvalidField, got ${reason._tag}`)
    return reason
  })

describe("parseChatCall accepts", () => {
  it.effect("a minimal body, with every default", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* parseChatCall(minimal), defaults)
    }))

  it.effect("every field, mapped to the call", () =>
    Effect.gen(function*() {
      const call = yield* parseChatCall({
        model: "openrouter/meta-llama/llama-3.1-8b",
        messages: [
          { role: "system", content: "be brief" },
          { role: "user", content: [{ type: "text", text: "hi" }], name: "ann" },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: "{}" } }]
          },
          { role: "tool", content: "sunny", tool_call_id: "call_1" }
        ],
        max_tokens: 64,
        stream: true,
        stream_options: { include_usage: true },
        tools: [weatherTool],
        tool_choice: "auto",
        svc_tool_ids: ["web_search", "calc"],
        svc_pending_id: "pend_1",
        tags: ["team-a", "nightly"]
      })
      assert.strictEqual(call.model, "openrouter/meta-llama/llama-3.1-8b")
      assert.strictEqual(call.messages.length, 4)
      assert.deepStrictEqual(call.messages[1], { role: "user", content: [{ type: "text", text: "hi" }], name: "ann" })
      assert.strictEqual(call.maxTokens, 64)
      assert.isTrue(call.stream)
      assert.isTrue(call.includeUsage)
      assert.deepStrictEqual(call.streamOptions, {})
      assert.deepStrictEqual(call.tools, [weatherTool])
      assert.strictEqual(call.toolChoice, "auto")
      assert.deepStrictEqual(call.svcToolIds, ["web_search", "calc"])
      assert.strictEqual(call.svcPendingId, "pend_1")
      assert.deepStrictEqual(call.tags, ["team-a", "nightly"])
      assert.deepStrictEqual(call.passthrough, {})
    }))

  it.effect("null optional fields as absent", () =>
    Effect.gen(function*() {
      const call = yield* parseChatCall({
        ...minimal,
        max_tokens: null,
        stream: null,
        stream_options: null,
        tools: null,
        tool_choice: null,
        svc_tool_ids: null,
        svc_pending_id: null,
        tags: null
      })
      assert.deepStrictEqual(call, defaults)
      const nullUsage = yield* parseChatCall({ ...minimal, stream: true, stream_options: { include_usage: null } })
      assert.isFalse(nullUsage.includeUsage)
    }))

  it.effect("unknown fields in passthrough, untouched; gateway fields never", () =>
    Effect.gen(function*() {
      const extra = {
        temperature: 0.2,
        top_p: null,
        stop: ["\n\n"],
        seed: 7,
        user: "u-1",
        response_format: { type: "json_schema", json_schema: { name: "x", schema: { type: "object" } } },
        metadata: { a: "b" }
      }
      const call = yield* parseChatCall({
        ...minimal,
        ...extra,
        max_tokens: 5,
        stream: false,
        stream_options: { include_usage: false },
        tools: [weatherTool],
        tool_choice: "none",
        svc_tool_ids: [],
        svc_pending_id: "p",
        tags: []
      })
      assert.deepStrictEqual(call.passthrough, extra)
      assert.strictEqual(call.toolChoice, "none")
    }))

  it.effect("unknown keys of messages and tools, kept", () =>
    Effect.gen(function*() {
      const message = { role: "user" as const, content: "hi", cache_control: { type: "ephemeral" } }
      const tool = { ...weatherTool, function: { ...weatherTool.function, strict: true }, x_vendor: 1 }
      const call = yield* parseChatCall({ ...minimal, messages: [message], tools: [tool] })
      assert.deepStrictEqual(call.messages, [message])
      assert.deepStrictEqual(call.tools, [tool])
    }))

  it.effect("stream_options keys other than include_usage, in streamOptions", () =>
    Effect.gen(function*() {
      const call = yield* parseChatCall({
        ...minimal,
        stream: true,
        stream_options: { include_usage: true, continuous_usage_stats: true, chunk: { size: 3 } }
      })
      assert.isTrue(call.includeUsage)
      assert.deepStrictEqual(call.streamOptions, { continuous_usage_stats: true, chunk: { size: 3 } })
      assert.notProperty(call.passthrough, "stream_options")
    }))
})

describe("parseChatCall refuses", () => {
  const { model: _model, ...withoutModel } = minimal
  const { messages: _messages, ...withoutMessages } = minimal
  const cases: ReadonlyArray<readonly [string, unknown, string]> = [
    ["a missing model", withoutModel, "model"],
    ["a model that is not a string", { ...minimal, model: 4 }, "model"],
    ["a model without an author", { ...minimal, model: "gpt-4o" }, "model"],
    ["an empty model id", { ...minimal, model: "openai/" }, "model"],
    ["missing messages", withoutMessages, "messages"],
    ["empty messages", { ...minimal, messages: [] }, "messages"],
    ["messages that are not an array", { ...minimal, messages: "hi" }, "messages"],
    ["an unknown role", { ...minimal, messages: [{ role: "robot", content: "hi" }] }, "messages[0].role"],
    ["a missing role", { ...minimal, messages: [{ content: "hi" }] }, "messages[0].role"],
    ["a role error in a later message", {
      ...minimal,
      messages: [{ role: "user", content: "a" }, { role: "wizard", content: "b" }]
    }, "messages[1].role"],
    ["content of the wrong type", { ...minimal, messages: [{ role: "user", content: 42 }] }, "messages[0].content"],
    ["max_tokens 0", { ...minimal, max_tokens: 0 }, "max_tokens"],
    ["max_tokens 1.5", { ...minimal, max_tokens: 1.5 }, "max_tokens"],
    ["max_tokens as a string", { ...minimal, max_tokens: "10" }, "max_tokens"],
    ["stream \"yes\"", { ...minimal, stream: "yes" }, "stream"],
    ["stream_options that is not an object", { ...minimal, stream_options: true }, "stream_options"],
    [
      "include_usage that is not a boolean",
      { ...minimal, stream_options: { include_usage: "yes" } },
      "stream_options.include_usage"
    ],
    ["tool_choice \"any\"", { ...minimal, tool_choice: "any" }, "tool_choice"],
    [
      "a named tool_choice without a name",
      { ...minimal, tool_choice: { type: "function", function: {} } },
      "tool_choice.function.name"
    ],
    ["a tool of another type", { ...minimal, tools: [{ ...weatherTool, type: "retrieval" }] }, "tools[0].type"],
    [
      "a tool without a name",
      { ...minimal, tools: [{ type: "function", function: { name: "" } }] },
      "tools[0].function.name"
    ],
    ["svc_tool_ids that is not an array", { ...minimal, svc_tool_ids: "web_search" }, "svc_tool_ids"],
    ["svc_tool_ids with a non-string", { ...minimal, svc_tool_ids: ["a", 1] }, "svc_tool_ids[1]"],
    ["svc_pending_id that is not a string", { ...minimal, svc_pending_id: 12 }, "svc_pending_id"],
    ["tags that is not an array", { ...minimal, tags: "team-a" }, "tags"]
  ]
  for (const [label, body, param] of cases) {
    it.effect(`${label}: param ${param}`, () =>
      Effect.gen(function*() {
        const reason = yield* invalidFieldOf(body)
        assert.strictEqual(reason.param, param)
        assert.include(reason.message, `'${param}'`)
      }))
  }

  it.effect("every tool choice of the format: none, auto, required and a named function", () =>
    Effect.gen(function*() {
      const named = { type: "function", function: { name: "get_weather" } } as const
      for (const choice of ["none", "auto", "required", named] as const) {
        const call = yield* parseChatCall({ ...minimal, tools: [weatherTool], tool_choice: choice })
        assert.deepStrictEqual(call.toolChoice, choice)
        assert.notProperty(call.passthrough, "tool_choice")
      }
    }))

  it.effect("a missing field with the missing_required_parameter code, a bad one with invalid_value", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* invalidFieldOf(withoutModel)).code, "missing_required_parameter")
      assert.strictEqual((yield* invalidFieldOf({ ...minimal, stream: "yes" })).code, "invalid_value")
    }))

  it.effect("several invalid fields: the first named in param, every one in the message", () =>
    Effect.gen(function*() {
      const reason = yield* invalidFieldOf({ ...minimal, max_tokens: 0, tool_choice: "any", tags: "x" })
      assert.strictEqual(reason.param, "max_tokens")
      for (const param of ["max_tokens", "tool_choice", "tags"]) assert.include(reason.message, `'${param}'`)
    }))

  for (const body of [null, [], "{}", 42, true, [minimal]]) {
    it.effect(`a body that is not an object: ${JSON.stringify(body)}`, () =>
      Effect.gen(function*() {
        const reason = yield* invalidFieldOf(body)
        assert.strictEqual(reason.param, "")
        assert.strictEqual(reason.code, "invalid_request_body")
      }))
  }
})
