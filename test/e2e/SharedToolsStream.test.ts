/**
 * The shared-tool loop inside one streamed response, over raw fetch and the fake upstream: text deltas
 * go out as they arrive, shared tool-call deltas never reach the client, the next round streams on in
 * the same response, and the last chunk carries the usage summed over every round. Past the round limit
 * the stream ends with an error event and no `[DONE]`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  chunk,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  toolCall,
  usage,
  usageChunk
} from "../utils/FakeUpstream.ts"
import {
  alwaysCalls,
  answer,
  type Caller,
  createCaller,
  expectValidToolConversation,
  finishReasons,
  messagesOf,
  script,
  setOrgTool,
  type StreamChunk,
  streamedText,
  streamedToolDeltas,
  streamOf,
  toolMessages
} from "../utils/SharedToolsHarness.ts"
import { postChat, sseData, startGateway, type TestGateway } from "../utils/TestGateway.ts"
import { recordingTool, rendezvousTools, type ToolInvocation } from "../utils/TestSvcTools.ts"

const MODEL = "fake/stream-model"
const question = [{ role: "user", content: "Stream me the tools' answer" }]

describe("shared-tool loop, streamed", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let caller: Caller
  const runs: Array<ToolInvocation> = []

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    const tools = [recordingTool("svc_alpha", runs), ...rendezvousTools(["svc_meet_a", "svc_meet_b"])]
    gw = await startGateway(fakeGatewayEnv(upstream, { env: { GATEWAY_SVC_TOOL_MAX_ROUNDS: "3" } }), { tools })
    caller = await createCaller(gw)
    for (const tool of tools) await setOrgTool(gw, caller.orgId, tool.id, { activated: true, hydrate_org: true })
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })

  const ask = (includeUsage = true) =>
    postChat(gw.url, {
      model: MODEL,
      messages: question,
      stream: true,
      ...(includeUsage ? { stream_options: { include_usage: true } } : {})
    }, { key: caller.key })

  /** The common shape of every streamed answer: one id, the addressed model, the role once. */
  const expectWellFormed = (chunks: ReadonlyArray<StreamChunk>) => {
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1)
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.model === MODEL)).toBe(true)
    expect(chunks.flatMap((c) => c.choices.filter((choice) => choice.delta.role !== undefined))).toHaveLength(1)
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant")
  }

  it("one round: text of both rounds streams, no shared tool-call delta, one finish, usage summed at the end", async () => {
    runs.length = 0
    script(upstream, [
      {
        content: "Checking the tool. ",
        toolCalls: [toolCall("call_s1", "svc_alpha", { text: "streamed ping" })],
        usage: usage(10, 2)
      },
      { content: "The tool said streamed ping.", usage: usage(20, 5, 3, 1) }
    ])
    const chunks = await streamOf(await ask())
    expectWellFormed(chunks)

    expect(streamedText(chunks)).toBe("Checking the tool. The tool said streamed ping.")
    expect(streamedToolDeltas(chunks)).toEqual([])
    expect(finishReasons(chunks)).toEqual(["stop"])
    const last = chunks.at(-1)
    expect(last?.choices).toEqual([])
    expect(last?.usage).toMatchObject({
      prompt_tokens: 30,
      completion_tokens: 7,
      total_tokens: 37,
      prompt_tokens_details: { cached_tokens: 3 },
      completion_tokens_details: { reasoning_tokens: 1 }
    })
    expect(chunks.slice(0, -1).every((c) => c.usage === undefined)).toBe(true)
    expect(last?.svc_tool_runs).toEqual([{ id: "svc_alpha", outcome: "ok", round: 1 }])
    expect(chunks.some((c) => c.svc_pending_id !== undefined)).toBe(false)

    // the gateway put the streamed deltas back together for the next round
    expect(runs.map((run) => run.args)).toEqual([{ text: "streamed ping" }])
    expect(upstream.chatRequests().map((r) => r.body.stream)).toEqual([true, true])
    const second = messagesOf(upstream, 2)
    expectValidToolConversation(second)
    expect(second).toEqual([
      ...question,
      {
        role: "assistant",
        content: "Checking the tool. ",
        tool_calls: [toolCall("call_s1", "svc_alpha", { text: "streamed ping" })]
      },
      { role: "tool", tool_call_id: "call_s1", content: JSON.stringify({ echo: "streamed ping" }) }
    ])
  })

  it("several rounds with parallel calls, all inside the same response", async () => {
    runs.length = 0
    script(upstream, [
      {
        toolCalls: [toolCall("call_m1", "svc_meet_a", {}), toolCall("call_m2", "svc_meet_b", {})],
        usage: usage(10, 1)
      },
      { content: "Half way. ", toolCalls: [toolCall("call_m3", "svc_alpha", { text: "again" })], usage: usage(20, 2) },
      { content: "Done.", usage: usage(30, 3) }
    ])
    const started = Date.now()
    const chunks = await streamOf(await ask())
    expect(Date.now() - started).toBeLessThan(2_500)
    expectWellFormed(chunks)
    expect(streamedText(chunks)).toBe("Half way. Done.")
    expect(streamedToolDeltas(chunks)).toEqual([])
    expect(finishReasons(chunks)).toEqual(["stop"])
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 60, completion_tokens: 6, total_tokens: 66 })
    expect(chunks.at(-1)?.svc_tool_runs).toEqual([
      { id: "svc_meet_a", outcome: "ok", round: 1 },
      { id: "svc_meet_b", outcome: "ok", round: 1 },
      { id: "svc_alpha", outcome: "ok", round: 2 }
    ])

    expect(upstream.chatRequests()).toHaveLength(3)
    const third = messagesOf(upstream, 3)
    expectValidToolConversation(third)
    expect(toolMessages(third).map((m) => [m.tool_call_id, m.content])).toEqual([
      ["call_m1", JSON.stringify({ met: true, tool: "svc_meet_a" })],
      ["call_m2", JSON.stringify({ met: true, tool: "svc_meet_b" })],
      ["call_m3", JSON.stringify({ echo: "again" })]
    ])
  })

  it("text deltas reach the client while the round is still streaming", async () => {
    script(upstream, [
      answer({ content: "Early words ", toolCalls: [toolCall("call_slow", "svc_alpha", { text: "x" })] }, {
        delayMs: 250
      }),
      { content: "late words" }
    ])
    const response = await ask()
    expect(response.status).toBe(200)
    const reader = response.body?.getReader()
    if (reader === undefined) throw new Error("no body")
    const decoder = new TextDecoder()
    let text = ""
    // read until the first content delta (the first round's body takes about 2 s in all)
    for (let i = 0; i < 50 && !/"content":"[^"]+"/.test(text); i++) {
      const { done, value } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
    }
    expect(text).toMatch(/"content":"Early/)
    // the first round is still streaming: the second model call has not been made yet
    expect(upstream.chatRequests()).toHaveLength(1)
    for (let i = 0; i < 200; i++) {
      const { done, value } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
    }
    const chunks = sseData(text)
    expect(chunks.at(-1)).toBe("[DONE]")
    expect(streamedText(chunks.slice(0, -1).map((c) => JSON.parse(c) as StreamChunk))).toBe("Early words late words")
    expect(upstream.chatRequests()).toHaveLength(2)
  })

  it("without include_usage no chunk carries usage, and the loop still runs", async () => {
    script(upstream, [
      { toolCalls: [toolCall("call_nu", "svc_alpha", { text: "quiet" })] },
      { content: "no usage here" }
    ])
    const chunks = await streamOf(await ask(false))
    expect(streamedText(chunks)).toBe("no usage here")
    expect(chunks.every((c) => c.usage === undefined)).toBe(true)
    expect(streamedToolDeltas(chunks)).toEqual([])
    // the gateway still asked the upstream for usage, for its own accounting
    expect(upstream.chatRequests()[0]?.body.stream_options).toEqual({ include_usage: true })
  })

  it("a mixed turn on the last allowed round ends the stream with the client's call and a pending id", async () => {
    script(upstream, [
      { toolCalls: [toolCall("call_1", "svc_alpha", { text: "1" })] },
      { toolCalls: [toolCall("call_2", "svc_alpha", { text: "2" })] },
      { toolCalls: [toolCall("call_client", "lookup", {}), toolCall("call_3", "svc_alpha", { text: "3" })] }
    ])
    const lookup = { type: "function", function: { name: "lookup", parameters: { type: "object", properties: {} } } }
    const response = await postChat(gw.url, { model: MODEL, messages: question, stream: true, tools: [lookup] }, {
      key: caller.key
    })
    const chunks = await streamOf(response)
    expect(streamedToolDeltas(chunks).find((delta) => delta.id !== undefined)?.id).toBe("call_client")
    expect(finishReasons(chunks)).toEqual(["tool_calls"])
    expect(typeof chunks.at(-1)?.svc_pending_id).toBe("string")
    expect(upstream.chatRequests()).toHaveLength(3)
  })

  it("an upstream that sends a call's id before its name: the shared call is still recognised, run and hidden", async () => {
    runs.length = 0
    script(upstream, [
      () =>
        reply.sse([
          chunk({ role: "assistant", content: null }),
          chunk({ tool_calls: [{ index: 0, id: "call_late_name", type: "function" }] }),
          chunk({ tool_calls: [{ index: 0, function: { name: "svc_alpha" } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: "{\"text\":\"late\"}" } }] }),
          chunk({}, "tool_calls"),
          usageChunk()
        ]),
      { content: "named late" }
    ])
    const chunks = await streamOf(await ask())
    expect(streamedToolDeltas(chunks)).toEqual([])
    expect(streamedText(chunks)).toBe("named late")
    expect(runs.map((run) => run.args)).toEqual([{ text: "late" }])
  })

  it("past the round limit the stream ends with an svc_tool_round_limit error event and no [DONE]", async () => {
    alwaysCalls(upstream, "svc_alpha")
    const response = await ask()
    expect(response.status).toBe(200)
    const events = sseData(await response.text())
    expect(events).not.toContain("[DONE]")
    const last = JSON.parse(events.at(-1) ?? "{}") as {
      readonly error?: { readonly code?: string; readonly type?: string }
    }
    expect(last.error).toMatchObject({ code: "svc_tool_round_limit", type: "upstream_error" })
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as StreamChunk)
    expect(streamedToolDeltas(chunks)).toEqual([])
    expect(finishReasons(chunks)).toEqual([])
    expect(upstream.chatRequests()).toHaveLength(3)
  })
})
