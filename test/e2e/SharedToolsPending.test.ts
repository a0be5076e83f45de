/**
 * Mixed turns over raw fetch: when the model asks for client and shared tools at once, the gateway runs
 * the shared ones, stores the turn, and returns only the client's calls (`finish_reason: "tool_calls"`)
 * with a `svc_pending_id` (in a stream: on the last chunk before `[DONE]`). Continued with that id, the
 * upstream sees a valid conversation: the assistant message with both kinds of calls, then results for
 * all of them. Unknown, expired and other orgs' ids are 400 `invalid_svc_pending_id`; a retry within
 * the TTL works.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  fakeGatewayEnv,
  type FakeUpstream,
  startFakeUpstream,
  toolCall,
  usage as usageOf
} from "../utils/FakeUpstream.ts"
import {
  type Caller,
  createCaller,
  errorOf,
  expectValidToolConversation,
  finishReasons,
  messagesOf,
  script,
  setOrgTool,
  type SharedCompletion,
  sharedCompletionOf,
  streamedText,
  streamedToolDeltas,
  streamOf
} from "../utils/SharedToolsHarness.ts"
import { postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"
import { recordingTool, type ToolInvocation } from "../utils/TestSvcTools.ts"

const MODEL = "fake/pending-model"
const question = { role: "user", content: "Weather in Paris, and a shared lookup" }
const clientTool = {
  type: "function",
  function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } }
}
const clientCall = toolCall("call_client", "get_weather", { city: "Paris" })
const sharedCall = toolCall("call_shared", "svc_alpha", { text: "shared" })
const sharedResult = { role: "tool", tool_call_id: "call_shared", content: JSON.stringify({ echo: "shared" }) }
const clientResult = { role: "tool", tool_call_id: "call_client", content: "sunny, 21°C" }

/** The conversation the upstream must see on the continuation. */
const restored = [
  question,
  { role: "assistant", content: null, tool_calls: [clientCall, sharedCall] },
  clientResult,
  sharedResult
]

const startMixedGateway = async (
  upstream: FakeUpstream,
  runs: Array<ToolInvocation>,
  env: Record<string, string> = {}
) => {
  const gw = await startGateway(fakeGatewayEnv(upstream, { env }), { tools: [recordingTool("svc_alpha", runs)] })
  return gw
}

const newCaller = async (gw: TestGateway) => {
  const caller = await createCaller(gw)
  await setOrgTool(gw, caller.orgId, "svc_alpha", { activated: true })
  return caller
}

describe("mixed client and shared tool calls", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let caller: Caller
  const runs: Array<ToolInvocation> = []

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    gw = await startMixedGateway(upstream, runs)
    caller = await newCaller(gw)
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })

  const first = (key = caller.key, extra: Readonly<Record<string, unknown>> = {}) =>
    postChat(
      gw.url,
      { model: MODEL, messages: [question], tools: [clientTool], svc_tool_ids: ["svc_alpha"], ...extra },
      { key }
    )

  /** Sends the client's result back with the pending id; `assistant` is the message the client got. */
  const continueWith = (
    pendingId: string,
    assistant: unknown,
    key = caller.key,
    extra: Readonly<Record<string, unknown>> = {}
  ) =>
    postChat(gw.url, {
      model: MODEL,
      messages: [question, assistant, clientResult],
      tools: [clientTool],
      svc_pending_id: pendingId,
      ...extra
    }, { key })

  /** Runs the first half; returns the client's assistant message and the pending id. */
  const pendingTurn = async (key = caller.key) => {
    script(upstream, [{ toolCalls: [clientCall, sharedCall] }])
    const body = await sharedCompletionOf(await first(key))
    const pendingId = body.svc_pending_id
    if (pendingId === undefined) throw new Error(`no svc_pending_id in ${JSON.stringify(body)}`)
    return { body, pendingId, assistant: body.choices[0]?.message }
  }

  it("the client gets only its own calls, finish_reason tool_calls and a svc_pending_id; the shared call ran", async () => {
    runs.length = 0
    const { body, pendingId } = await pendingTurn()
    expect(pendingId).toMatch(/\S{8,}/)
    expect(body.choices[0]?.finish_reason).toBe("tool_calls")
    expect(body.choices[0]?.message.tool_calls).toEqual([clientCall])
    expect(body.svc_tool_runs).toEqual([{ id: "svc_alpha", outcome: "ok", round: 1 }])
    expect(runs).toEqual([{ args: { text: "shared" }, orgId: caller.orgId, keyId: caller.keyId }])
    expect(upstream.chatRequests()).toHaveLength(1)
  })

  it("the continuation restores both calls and every result for the upstream; the client gets the answer", async () => {
    runs.length = 0
    const { pendingId, assistant } = await pendingTurn()
    script(upstream, [{ content: "Sunny in Paris; the shared tool said shared." }])
    const body = await sharedCompletionOf(await continueWith(pendingId, assistant))

    expect(body.choices[0]?.message.content).toBe("Sunny in Paris; the shared tool said shared.")
    expect(body.choices[0]?.finish_reason).toBe("stop")
    expect(body).not.toHaveProperty("svc_pending_id")
    const sent = messagesOf(upstream, 1)
    expect(sent).toEqual(restored)
    expectValidToolConversation(sent)
    // the shared tool is not run again, and the client's tool is still offered
    expect(runs).toHaveLength(1)
    expect(upstream.chatRequests()[0]?.body.tools).toContainEqual(clientTool)
  })

  it("the continuation may loop on: a shared-only call after it runs as usual", async () => {
    const { pendingId, assistant } = await pendingTurn()
    script(upstream, [
      { toolCalls: [toolCall("call_after", "svc_alpha", { text: "after" })] },
      { content: "done after the loop" }
    ])
    const body = await sharedCompletionOf(await continueWith(pendingId, assistant))
    expect(body.choices[0]?.message.content).toBe("done after the loop")
    expect(body.svc_tool_runs).toEqual([{ id: "svc_alpha", outcome: "ok", round: 1 }])
    const last = messagesOf(upstream, 2)
    expectValidToolConversation(last)
    expect(last.slice(0, 4)).toEqual(restored)
  })

  it("a mixed turn after a shared-only round: the continuation still shows the model the earlier round", async () => {
    runs.length = 0
    const earlyCall = toolCall("call_early", "svc_alpha", { text: "early" })
    script(upstream, [
      { toolCalls: [earlyCall], usage: usageOf(10, 1) },
      { toolCalls: [clientCall, sharedCall], usage: usageOf(20, 2) }
    ])
    const body = await sharedCompletionOf(await first())
    expect(body.choices[0]?.message.tool_calls).toEqual([clientCall])
    expect(body.svc_tool_runs).toEqual([
      { id: "svc_alpha", outcome: "ok", round: 1 },
      { id: "svc_alpha", outcome: "ok", round: 2 }
    ])
    expect(body.usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 3, total_tokens: 33 })
    expect(runs.map((run) => run.args)).toEqual([{ text: "early" }, { text: "shared" }])

    script(upstream, [{ content: "all together" }])
    const final = await sharedCompletionOf(await continueWith(String(body.svc_pending_id), body.choices[0]?.message))
    expect(final.choices[0]?.message.content).toBe("all together")
    const sent = messagesOf(upstream, 1)
    expectValidToolConversation(sent)
    // the mixed turn, restored, ends the conversation
    expect(sent.slice(-3)).toEqual(restored.slice(1))
    // and the first round's call and result, which the model based that turn on, are not lost
    expect(sent).toContainEqual({ role: "assistant", content: null, tool_calls: [earlyCall] })
    expect(sent).toContainEqual({
      role: "tool",
      tool_call_id: "call_early",
      content: JSON.stringify({ echo: "early" })
    })
  })

  it("streamed: only the client's call deltas (re-indexed from 0), then svc_pending_id on the last chunk before [DONE]", async () => {
    runs.length = 0
    // the shared call comes first, at index 0; the client's is index 1 upstream
    script(upstream, [{ content: "One moment. ", toolCalls: [sharedCall, clientCall] }])
    const chunks = await streamOf(await first(caller.key, { stream: true, stream_options: { include_usage: true } }))

    expect(streamedText(chunks)).toBe("One moment. ")
    const deltas = streamedToolDeltas(chunks)
    expect(deltas.every((delta) => delta.index === 0)).toBe(true)
    expect(deltas.find((delta) => delta.id !== undefined)?.id).toBe("call_client")
    expect(deltas.map((delta) => delta.function?.name ?? "").join("")).toBe("get_weather")
    expect(deltas.map((delta) => delta.function?.arguments ?? "").join("")).toBe(clientCall.function.arguments)
    expect(finishReasons(chunks)).toEqual(["tool_calls"])
    const last = chunks.at(-1)
    expect(last?.choices).toEqual([])
    const pendingId = last?.svc_pending_id
    expect(typeof pendingId).toBe("string")
    expect(chunks.slice(0, -1).some((c) => c.svc_pending_id !== undefined)).toBe(false)
    expect(runs).toHaveLength(1)

    // continued as a stream: the upstream sees the whole conversation
    script(upstream, [{ content: "Streamed final." }])
    const assistant = { role: "assistant", content: "One moment. ", tool_calls: [clientCall] }
    const next = await streamOf(await continueWith(String(pendingId), assistant, caller.key, { stream: true }))
    expect(streamedText(next)).toBe("Streamed final.")
    expect(next.some((c) => c.svc_pending_id !== undefined)).toBe(false)
    const sent = messagesOf(upstream, 1)
    expectValidToolConversation(sent)
    // the model's turn as it wrote it: the shared call first, as it came, and the results in that order
    expect(sent).toEqual([
      question,
      { role: "assistant", content: "One moment. ", tool_calls: [sharedCall, clientCall] },
      sharedResult,
      clientResult
    ])
  })

  it("streamed without include_usage: svc_pending_id still comes on a last chunk before [DONE]", async () => {
    script(upstream, [{ toolCalls: [clientCall, sharedCall] }])
    const chunks = await streamOf(await first(caller.key, { stream: true }))
    expect(chunks.at(-1)?.choices).toEqual([])
    expect(typeof chunks.at(-1)?.svc_pending_id).toBe("string")
    expect(chunks.every((c) => c.usage === undefined)).toBe(true)
  })

  it("a retry with the same pending id within its TTL works, and restores the same conversation", async () => {
    const { pendingId, assistant } = await pendingTurn()
    const bodies: Array<SharedCompletion> = []
    for (const answer of ["first try", "second try"]) {
      script(upstream, [{ content: answer }])
      bodies.push(await sharedCompletionOf(await continueWith(pendingId, assistant)))
      expect(messagesOf(upstream, 1)).toEqual(restored)
    }
    expect(bodies.map((b) => b.choices[0]?.message.content)).toEqual(["first try", "second try"])
  })

  it("an unknown pending id → 400 invalid_svc_pending_id; the upstream is not called", async () => {
    upstream.reset()
    const assistant = { role: "assistant", content: null, tool_calls: [clientCall] }
    for (const id of ["svcpend_doesnotexist000000", ""]) {
      const error = await errorOf(await continueWith(id, assistant), 400)
      expect(error.code).toBe("invalid_svc_pending_id")
      expect(error.param).toBe("svc_pending_id")
    }
    expect(upstream.chatRequests()).toHaveLength(0)
  })

  it("another org's pending id → 400 invalid_svc_pending_id, and it stays usable by its owner", async () => {
    const { pendingId, assistant } = await pendingTurn()
    const stranger = await newCaller(gw)
    upstream.reset()
    const error = await errorOf(await continueWith(pendingId, assistant, stranger.key), 400)
    expect(error.code).toBe("invalid_svc_pending_id")
    expect(error.message).toContain(pendingId)
    expect(upstream.chatRequests()).toHaveLength(0)

    script(upstream, [{ content: "still mine" }])
    const body = await sharedCompletionOf(await continueWith(pendingId, assistant))
    expect(body.choices[0]?.message.content).toBe("still mine")
  })
})

describe("pending ids expire after GATEWAY_SVC_PENDING_TTL", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let caller: Caller

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    gw = await startMixedGateway(upstream, [], { GATEWAY_SVC_PENDING_TTL: "300 millis" })
    caller = await newCaller(gw)
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })

  it("usable at once, 400 invalid_svc_pending_id once expired", async () => {
    const ask = (extra: Readonly<Record<string, unknown>>) =>
      postChat(gw.url, { model: MODEL, tools: [clientTool], svc_tool_ids: ["svc_alpha"], ...extra }, {
        key: caller.key
      })
    const start = async () => {
      script(upstream, [{ toolCalls: [clientCall, sharedCall] }])
      const body = await sharedCompletionOf(await ask({ messages: [question] }))
      return { pendingId: String(body.svc_pending_id), assistant: body.choices[0]?.message }
    }
    const resume = (pendingId: string, assistant: unknown) =>
      ask({ messages: [question, assistant, clientResult], svc_pending_id: pendingId })

    const fresh = await start()
    script(upstream, [{ content: "in time" }])
    expect((await sharedCompletionOf(await resume(fresh.pendingId, fresh.assistant))).choices[0]?.message.content).toBe(
      "in time"
    )

    const stale = await start()
    await new Promise((resolve) => setTimeout(resolve, 800))
    upstream.reset()
    const error = await errorOf(await resume(stale.pendingId, stale.assistant), 400)
    expect(error.code).toBe("invalid_svc_pending_id")
    expect(error.param).toBe("svc_pending_id")
    expect(upstream.chatRequests()).toHaveLength(0)
  })
})
