/**
 * The shared-tool loop for whole (non-streamed) completions, with the fake upstream scripted per
 * request: the gateway runs the shared calls, sends the assistant turn and the results back, and calls
 * the model again until it answers, up to `GATEWAY_SVC_TOOL_MAX_ROUNDS` (default 5, then 502
 * `svc_tool_round_limit`). The client sees only the final answer, usage summed over every round, and
 * `svc_tool_runs`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fakeGatewayEnv, type FakeUpstream, startFakeUpstream, toolCall, usage } from "../utils/FakeUpstream.ts"
import {
  alwaysCalls,
  type Caller,
  createCaller,
  errorOf,
  expectValidToolConversation,
  messagesOf,
  script,
  setOrgTool,
  sharedCompletionOf,
  toolMessages
} from "../utils/SharedToolsHarness.ts"
import { postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"
import { recordingTool, rendezvousTools, type ToolInvocation } from "../utils/TestSvcTools.ts"

const MODEL = "fake/loop-model"
const question = [{ role: "user", content: "What do the tools say?" }]
const clientTool = { type: "function", function: { name: "lookup", parameters: { type: "object", properties: {} } } }

/** A gateway over the fake upstream with test tools, and a caller with every tool hydrated for its org. */
const setUp = async (upstream: FakeUpstream, runs: Array<ToolInvocation>, env: Record<string, string> = {}) => {
  const tools = [
    recordingTool("svc_alpha", runs),
    recordingTool("svc_beta", runs),
    ...rendezvousTools(["svc_meet_a", "svc_meet_b"])
  ]
  const gw = await startGateway(fakeGatewayEnv(upstream, { env }), { tools })
  const caller = await createCaller(gw)
  for (const tool of tools) await setOrgTool(gw, caller.orgId, tool.id, { activated: true, hydrate_org: true })
  return { gw, caller }
}

describe("shared-tool loop, whole completions", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let caller: Caller
  const runs: Array<ToolInvocation> = []

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    ;({ gw, caller } = await setUp(upstream, runs))
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })

  const ask = (extra: Readonly<Record<string, unknown>> = {}) =>
    postChat(gw.url, { model: MODEL, messages: question, ...extra }, { key: caller.key })

  it("one round: the gateway runs the tool, calls the model again, the client sees only the answer", async () => {
    runs.length = 0
    script(upstream, [
      { content: "Let me look.", toolCalls: [toolCall("call_a1", "svc_alpha", { text: "ping" })], usage: usage(10, 2) },
      { content: "The tool said ping.", usage: usage(20, 4) }
    ])
    const body = await sharedCompletionOf(await ask({ tools: [clientTool] }))

    expect(body.choices).toHaveLength(1)
    expect(body.choices[0]?.message.content).toBe("The tool said ping.")
    expect(body.choices[0]?.message.tool_calls).toBeUndefined()
    expect(body.choices[0]?.finish_reason).toBe("stop")
    expect(body.model).toBe(MODEL)
    expect(body.usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 6, total_tokens: 36 })
    expect(body.svc_tool_runs).toEqual([{ id: "svc_alpha", outcome: "ok", round: 1 }])
    expect(body).not.toHaveProperty("svc_pending_id")

    expect(runs).toEqual([{ args: { text: "ping" }, orgId: caller.orgId, keyId: caller.keyId }])
    expect(upstream.chatRequests()).toHaveLength(2)
    const second = messagesOf(upstream, 2)
    expect(second).toEqual([
      ...question,
      { role: "assistant", content: "Let me look.", tool_calls: [toolCall("call_a1", "svc_alpha", { text: "ping" })] },
      { role: "tool", tool_call_id: "call_a1", content: JSON.stringify({ echo: "ping" }) }
    ])
    expectValidToolConversation(second)
    // the continued call still offers the client's and the shared tools
    expect(upstream.chatRequests()[1]?.body.tools).toEqual(upstream.chatRequests()[0]?.body.tools)
  })

  it("several rounds: each round's calls and results are appended; usage sums every round", async () => {
    runs.length = 0
    script(upstream, [
      { toolCalls: [toolCall("call_r1", "svc_alpha", { text: "one" })], usage: usage(10, 1) },
      { toolCalls: [toolCall("call_r2", "svc_beta", { text: "two" })], usage: usage(20, 2) },
      { toolCalls: [toolCall("call_r3", "svc_alpha", { text: "three" })], usage: usage(30, 3, 7, 1) },
      { content: "one two three", usage: usage(40, 4) }
    ])
    const body = await sharedCompletionOf(await ask())

    expect(body.choices[0]?.message.content).toBe("one two three")
    expect(body.usage).toMatchObject({
      prompt_tokens: 100,
      completion_tokens: 10,
      total_tokens: 110,
      prompt_tokens_details: { cached_tokens: 7 },
      completion_tokens_details: { reasoning_tokens: 1 }
    })
    expect(body.svc_tool_runs).toEqual([
      { id: "svc_alpha", outcome: "ok", round: 1 },
      { id: "svc_beta", outcome: "ok", round: 2 },
      { id: "svc_alpha", outcome: "ok", round: 3 }
    ])
    expect(runs.map((run) => run.args)).toEqual([{ text: "one" }, { text: "two" }, { text: "three" }])
    expect(upstream.chatRequests()).toHaveLength(4)
    const last = messagesOf(upstream, 4)
    expectValidToolConversation(last)
    expect(last.map((m) => m["role"])).toEqual(["user", "assistant", "tool", "assistant", "tool", "assistant", "tool"])
    expect(toolMessages(last).map((m) => [m.tool_call_id, m.content])).toEqual([
      ["call_r1", JSON.stringify({ echo: "one" })],
      ["call_r2", JSON.stringify({ echo: "two" })],
      ["call_r3", JSON.stringify({ echo: "three" })]
    ])
    // each round sends the previous round's history unchanged, plus its own turn
    expect(messagesOf(upstream, 3)).toEqual(last.slice(0, 5))
  })

  it("parallel calls in one turn run concurrently; the results come back in the calls' order", async () => {
    script(upstream, [
      {
        toolCalls: [
          toolCall("call_pa", "svc_meet_a", {}),
          toolCall("call_pb", "svc_meet_b", {}),
          toolCall("call_pc", "svc_alpha", { text: "c" })
        ]
      },
      { content: "all met" }
    ])
    const started = Date.now()
    const body = await sharedCompletionOf(await ask())
    expect(body.choices[0]?.message.content).toBe("all met")
    // sequential runs would each have waited alone for 3 seconds
    expect(Date.now() - started).toBeLessThan(2_500)
    const second = messagesOf(upstream, 2)
    expectValidToolConversation(second)
    expect(toolMessages(second)).toEqual([
      { role: "tool", tool_call_id: "call_pa", content: JSON.stringify({ met: true, tool: "svc_meet_a" }) },
      { role: "tool", tool_call_id: "call_pb", content: JSON.stringify({ met: true, tool: "svc_meet_b" }) },
      { role: "tool", tool_call_id: "call_pc", content: JSON.stringify({ echo: "c" }) }
    ])
    expect(body.svc_tool_runs).toEqual([
      { id: "svc_meet_a", outcome: "ok", round: 1 },
      { id: "svc_meet_b", outcome: "ok", round: 1 },
      { id: "svc_alpha", outcome: "ok", round: 1 }
    ])
  })

  it("no shared call: one model call, no svc_tool_runs", async () => {
    script(upstream, [{ content: "just text" }])
    const body = await sharedCompletionOf(await ask())
    expect(body.choices[0]?.message.content).toBe("just text")
    expect(body).not.toHaveProperty("svc_tool_runs")
    expect(upstream.chatRequests()).toHaveLength(1)
  })

  it("a model that never stops calling shared tools ends at the default limit of 5 rounds: 502 svc_tool_round_limit", async () => {
    runs.length = 0
    alwaysCalls(upstream, "svc_alpha")
    const error = await errorOf(await ask(), 502)
    expect(error.code).toBe("svc_tool_round_limit")
    expect(error.message).toContain("5")
    expect(upstream.chatRequests()).toHaveLength(5)
    // the fifth answer's calls are not run: nothing would read their results
    expect(runs).toHaveLength(4)
  })
})

describe("shared-tool loop with GATEWAY_SVC_TOOL_MAX_ROUNDS=3", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let caller: Caller
  const runs: Array<ToolInvocation> = []

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    ;({ gw, caller } = await setUp(upstream, runs, { GATEWAY_SVC_TOOL_MAX_ROUNDS: "3" }))
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })

  const ask = () => postChat(gw.url, { model: MODEL, messages: question }, { key: caller.key })

  it("past the limit → 502 svc_tool_round_limit after exactly 3 model calls", async () => {
    alwaysCalls(upstream, "svc_beta")
    const error = await errorOf(await ask(), 502)
    expect(error.code).toBe("svc_tool_round_limit")
    expect(error.message).toMatch(/3 rounds/)
    expect(error.message).toContain("GATEWAY_SVC_TOOL_MAX_ROUNDS")
    expect(upstream.chatRequests()).toHaveLength(3)
  })

  it("an answer on the last allowed round is a success", async () => {
    script(upstream, [
      { toolCalls: [toolCall("call_1", "svc_alpha", { text: "1" })] },
      { toolCalls: [toolCall("call_2", "svc_alpha", { text: "2" })] },
      { content: "made it" }
    ])
    const body = await sharedCompletionOf(await ask())
    expect(body.choices[0]?.message.content).toBe("made it")
    expect(body.svc_tool_runs?.map((run) => run.round)).toEqual([1, 2])
  })

  it("a mixed turn on the last allowed round needs no further model call: the client gets its calls and a pending id", async () => {
    script(upstream, [
      { toolCalls: [toolCall("call_1", "svc_alpha", { text: "1" })] },
      { toolCalls: [toolCall("call_2", "svc_alpha", { text: "2" })] },
      { toolCalls: [toolCall("call_client", "lookup", {}), toolCall("call_3", "svc_alpha", { text: "3" })] }
    ])
    const response = await postChat(gw.url, { model: MODEL, messages: question, tools: [clientTool] }, {
      key: caller.key
    })
    const body = await sharedCompletionOf(response)
    expect(body.choices[0]?.finish_reason).toBe("tool_calls")
    expect(body.choices[0]?.message.tool_calls?.map((call) => call.id)).toEqual(["call_client"])
    expect(typeof body.svc_pending_id).toBe("string")
    expect(upstream.chatRequests()).toHaveLength(3)
  })
})
