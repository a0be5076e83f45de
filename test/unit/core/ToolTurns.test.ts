/**
 * The pure pieces of the shared-tool loop: the tool list the upstream sees, shared calls told from the
 * client's, the messages a tool turn adds, and a pending turn put back into the conversation the client
 * continues (in the right assistant message, results after the client's own, idempotent).
 */
import { assert, describe, it } from "@effect/vitest"
import {
  assistantTurn,
  isSharedCall,
  partitionCalls,
  restorePending,
  toolResultMessages,
  upstreamTools
} from "../../../src/core/ToolTurns.ts"
import type { ChatMessage, ToolDefinition } from "../../../src/kernel/Canonical.ts"
import type { PendingState } from "../../../src/tools/PendingCalls.ts"
import { callOf, echoTool } from "../../utils/ToolFixtures.ts"

const clientTool: ToolDefinition = {
  type: "function",
  function: { name: "get_weather", description: "weather", parameters: { type: "object" } }
}

describe("upstreamTools", () => {
  it("without shared tools, the client's tools as they are (undefined stays undefined)", () => {
    assert.isUndefined(upstreamTools(undefined, []))
    const tools = [clientTool]
    assert.strictEqual(upstreamTools(tools, []), tools)
  })

  it("shared tools come after the client's, as functions named by their ids with their JSON Schema", () => {
    const shared = [echoTool("svc_a"), echoTool("svc_b")]
    assert.deepStrictEqual(upstreamTools([clientTool], shared), [
      clientTool,
      {
        type: "function",
        function: { name: "svc_a", description: "echoes (svc_a)", parameters: shared[0]!.jsonSchema }
      },
      {
        type: "function",
        function: { name: "svc_b", description: "echoes (svc_b)", parameters: shared[1]!.jsonSchema }
      }
    ])
  })

  it("shared tools alone when the client sent none", () => {
    assert.deepStrictEqual(upstreamTools(undefined, [echoTool("svc_a")])?.map((tool) => tool.function.name), ["svc_a"])
  })
})

describe("partitionCalls", () => {
  it("every svc_ call is shared, injected or not; the rest are the client's; order is kept", () => {
    const calls = [
      callOf("c1", "get_weather"),
      callOf("c2", "svc_current_time"),
      callOf("c3", "svc_not_injected"),
      callOf("c4", "lookup"),
      callOf("c5", "svc_generate_uuid")
    ]
    const { client, shared } = partitionCalls(calls)
    assert.deepStrictEqual(shared.map((call) => call.id), ["c2", "c3", "c5"])
    assert.deepStrictEqual(client.map((call) => call.id), ["c1", "c4"])
  })

  it("no calls: nothing either side", () => {
    assert.deepStrictEqual(partitionCalls([]), { shared: [], client: [] })
  })

  it("the prefix is exactly svc_, case-sensitive", () => {
    assert.isTrue(isSharedCall("svc_x"))
    for (const name of ["SVC_x", "svc-x", "svcx", "my_svc_x", undefined]) {
      assert.isFalse(isSharedCall(name), String(name))
    }
  })
})

describe("the messages of a tool turn", () => {
  it("toolResultMessages: one tool message per result, in order", () => {
    assert.deepStrictEqual(
      toolResultMessages([
        { toolCallId: "c1", toolId: "svc_a", outcome: "ok", content: "1" },
        { toolCallId: "c2", toolId: "svc_b", outcome: "error", content: "{\"error\":\"x\"}" }
      ]),
      [
        { role: "tool", tool_call_id: "c1", content: "1" },
        { role: "tool", tool_call_id: "c2", content: "{\"error\":\"x\"}" }
      ]
    )
  })

  it("assistantTurn keeps the content and the calls; no tool_calls key when there were none", () => {
    const calls = [callOf("c1", "svc_a")]
    assert.deepStrictEqual(assistantTurn({ role: "assistant", content: null, tool_calls: calls }), {
      role: "assistant",
      content: null,
      tool_calls: calls
    })
    assert.deepStrictEqual(assistantTurn({ role: "assistant", content: "hi" }), { role: "assistant", content: "hi" })
  })
})

describe("restorePending", () => {
  const shared1 = callOf("s1", "svc_current_time", { timezone: "UTC" })
  const shared2 = callOf("s2", "svc_generate_uuid")
  const client1 = callOf("k1", "get_weather", { city: "Paris" })
  const client2 = callOf("k2", "lookup", { q: "x" })
  const pending: PendingState = {
    clientToolCallIds: ["k1", "k2"],
    priorTurns: [],
    sharedToolCalls: [shared1, shared2],
    sharedResults: [
      { tool_call_id: "s1", content: "{\"datetime\":\"...\"}" },
      { tool_call_id: "s2", content: "{\"uuid\":\"...\"}" }
    ],
    injectedToolIds: ["svc_current_time", "svc_generate_uuid"]
  }
  const continued: ReadonlyArray<ChatMessage> = [
    { role: "system", content: "be brief" },
    { role: "user", content: "time, uuid, weather" },
    { role: "assistant", content: null, tool_calls: [client1, client2] },
    { role: "tool", tool_call_id: "k1", content: "sunny" },
    { role: "tool", tool_call_id: "k2", content: "found" }
  ]
  const restored: ReadonlyArray<ChatMessage> = [
    continued[0]!,
    continued[1]!,
    { role: "assistant", content: null, tool_calls: [client1, client2, shared1, shared2] },
    continued[3]!,
    continued[4]!,
    { role: "tool", tool_call_id: "s1", content: "{\"datetime\":\"...\"}" },
    { role: "tool", tool_call_id: "s2", content: "{\"uuid\":\"...\"}" }
  ]

  it("a record without the model's turn (stored before it was kept): the shared calls after the client's, their results after theirs", () => {
    assert.deepStrictEqual(restorePending(continued, pending), restored)
  })

  it("the model's turn as it was: its content (null stays null, not the client's empty text) and its calls and results in its order", () => {
    const withTurn: PendingState = { ...pending, turn: { content: null, callOrder: ["s1", "k1", "s2", "k2"] } }
    const fromAnthropic = continued.map((
      message
    ) => (message.role === "assistant" ? { ...message, content: "" } : message))
    assert.deepStrictEqual(restorePending(fromAnthropic, withTurn), [
      continued[0]!,
      continued[1]!,
      { role: "assistant", content: null, tool_calls: [shared1, client1, shared2, client2] },
      { role: "tool", tool_call_id: "s1", content: "{\"datetime\":\"...\"}" },
      continued[3]!,
      { role: "tool", tool_call_id: "s2", content: "{\"uuid\":\"...\"}" },
      continued[4]!
    ])
    const text: PendingState = { ...pending, turn: { content: "Let me check.", callOrder: ["k1", "s1", "k2", "s2"] } }
    const again = restorePending(continued, text)
    assert.strictEqual(again?.[2]?.content, "Let me check.")
    assert.deepStrictEqual(again?.[2]?.tool_calls?.map((call) => call.id), ["k1", "s1", "k2", "s2"])
    // restoring twice changes nothing
    assert.deepStrictEqual(restorePending(again!, text), again)
  })

  it("puts the shared-only rounds before the turn back in front of it, once", () => {
    const early = callOf("s0", "svc_current_time", {})
    const priorTurns: ReadonlyArray<ChatMessage> = [
      { role: "assistant", content: null, tool_calls: [early] },
      { role: "tool", tool_call_id: "s0", content: "{\"datetime\":\"early\"}" }
    ]
    const withPrior = restorePending(continued, { ...pending, priorTurns })!
    assert.deepStrictEqual(withPrior, [restored[0]!, restored[1]!, ...priorTurns, ...restored.slice(2)])
    assert.deepStrictEqual(restorePending(withPrior, { ...pending, priorTurns }), withPrior)
  })

  it("is idempotent: restoring a restored conversation changes nothing", () => {
    assert.deepStrictEqual(restorePending(restored, pending), restored)
    assert.deepStrictEqual(restorePending(restorePending(continued, pending)!, pending), restored)
  })

  it("keeps what follows the tool results (a new user message) after the restored results", () => {
    const more: ReadonlyArray<ChatMessage> = [...continued, { role: "user", content: "and tomorrow?" }]
    assert.deepStrictEqual(restorePending(more, pending), [...restored, { role: "user", content: "and tomorrow?" }])
  })

  it("finds the assistant message by any one of the client ids, and picks the latest holding them", () => {
    const earlier: ChatMessage = { role: "assistant", content: null, tool_calls: [callOf("k1", "get_weather")] }
    const messages: ReadonlyArray<ChatMessage> = [
      { role: "user", content: "first" },
      earlier,
      { role: "tool", tool_call_id: "k1", content: "old" },
      { role: "user", content: "again" },
      { role: "assistant", content: "checking", tool_calls: [client2] },
      { role: "tool", tool_call_id: "k2", content: "found" }
    ]
    const out = restorePending(messages, pending)!
    assert.deepStrictEqual(out.slice(0, 4), messages.slice(0, 4))
    assert.deepStrictEqual(out[4], { role: "assistant", content: "checking", tool_calls: [client2, shared1, shared2] })
    assert.deepStrictEqual(out.slice(5).map((message) => message.tool_call_id), ["k2", "s1", "s2"])
  })

  it("adds only what is missing when the client already sent part of the shared turn back", () => {
    const partly: ReadonlyArray<ChatMessage> = [
      continued[0]!,
      continued[1]!,
      { role: "assistant", content: null, tool_calls: [client1, client2, shared1] },
      continued[3]!,
      { role: "tool", tool_call_id: "s1", content: "{\"datetime\":\"...\"}" },
      continued[4]!
    ]
    const out = restorePending(partly, pending)!
    assert.deepStrictEqual(out[2]?.tool_calls?.map((call) => call.id), ["k1", "k2", "s1", "s2"])
    assert.deepStrictEqual(out.slice(3).map((message) => message.tool_call_id), ["k1", "s1", "k2", "s2"])
  })

  it("is undefined when no assistant message holds the client's call ids", () => {
    assert.isUndefined(restorePending([{ role: "user", content: "hi" }], pending))
    const other: ReadonlyArray<ChatMessage> = [
      { role: "assistant", content: null, tool_calls: [callOf("zz", "get_weather")] },
      { role: "tool", tool_call_id: "zz", content: "x" }
    ]
    assert.isUndefined(restorePending(other, pending))
    // a tool message with the id is not enough: it must be an assistant's call
    assert.isUndefined(restorePending([{ role: "tool", tool_call_id: "k1", content: "sunny" }], pending))
  })

  it("does not touch the messages it was given", () => {
    const copy = structuredClone(continued)
    restorePending(continued, pending)
    assert.deepStrictEqual(continued, copy)
  })
})
