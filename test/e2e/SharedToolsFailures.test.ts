/**
 * Shared tools that go wrong never break a request: a tool error, a crash, a timeout
 * (`GATEWAY_SVC_TOOL_TIMEOUT`), an output over `GATEWAY_SVC_TOOL_MAX_OUTPUT_BYTES` and bad arguments
 * all become tool results the model (the fake upstream) reads, and the client still gets the answer.
 * A `svc_` call for a tool that was not injected into this request is never run: the model gets an
 * error result instead, and the call never reaches the client as its own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fakeGatewayEnv, type FakeUpstream, startFakeUpstream, toolCall } from "../utils/FakeUpstream.ts"
import {
  activate,
  type Caller,
  createCaller,
  expectValidToolConversation,
  messagesOf,
  script,
  sharedCompletionOf,
  streamedText,
  streamedToolDeltas,
  streamOf,
  type ToolMessage,
  toolMessages
} from "../utils/SharedToolsHarness.ts"
import { postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"
import {
  bigTool,
  crashingTool,
  failingTool,
  hangingTool,
  recordingTool,
  type ToolInvocation
} from "../utils/TestSvcTools.ts"

const MODEL = "fake/failures-model"
const INJECTED = ["svc_ok", "svc_fails", "svc_crashes", "svc_hangs", "svc_big"]
const clientTool = { type: "function", function: { name: "lookup", parameters: { type: "object", properties: {} } } }

/** The error a result carries: tool results for failures are `{"error": "..."}`. */
const errorText = (message: ToolMessage | undefined): string => {
  expect(message, "tool message").toBeDefined()
  const parsed = JSON.parse(message?.content ?? "{}") as { readonly error?: unknown }
  expect(typeof parsed.error, message?.content).toBe("string")
  return String(parsed.error)
}

describe("shared tools that fail, hang or misbehave", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let caller: Caller
  const runs: Array<ToolInvocation> = []
  const probeRuns: Array<ToolInvocation> = []

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    const tools = [
      recordingTool("svc_ok", runs),
      failingTool("svc_fails", "The weather service said no: quota exhausted"),
      crashingTool("svc_crashes"),
      hangingTool("svc_hangs"),
      bigTool("svc_big", 5_000),
      // installed and activated, but never listed or hydrated: not injected
      recordingTool("svc_probe", probeRuns)
    ]
    gw = await startGateway(
      fakeGatewayEnv(upstream, {
        env: { GATEWAY_SVC_TOOL_TIMEOUT: "300 millis", GATEWAY_SVC_TOOL_MAX_OUTPUT_BYTES: "2000" }
      }),
      { tools }
    )
    caller = await createCaller(gw)
    await activate(gw, caller.orgId, [...INJECTED, "svc_probe"])
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })

  const ask = (extra: Readonly<Record<string, unknown>> = {}) =>
    postChat(gw.url, {
      model: MODEL,
      messages: [{ role: "user", content: "use the tools" }],
      svc_tool_ids: INJECTED,
      ...extra
    }, { key: caller.key })

  /** One round calling `name` with `args`, then the answer; returns the client's body and the tool result the model got. */
  const runOnce = async (name: string, args: string) => {
    script(upstream, [
      { toolCalls: [{ id: "call_x", type: "function", function: { name, arguments: args } }] },
      { content: "I read the tool result." }
    ])
    const body = await sharedCompletionOf(await ask())
    expect(body.choices[0]?.message.content).toBe("I read the tool result.")
    expect(upstream.chatRequests()).toHaveLength(2)
    const second = messagesOf(upstream, 2)
    expectValidToolConversation(second)
    return { body, result: toolMessages(second).find((m) => m.tool_call_id === "call_x") }
  }

  it("a tool error becomes the tool result the model reads; the request succeeds", async () => {
    const { body, result } = await runOnce("svc_fails", "{}")
    expect(errorText(result)).toContain("quota exhausted")
    expect(body.svc_tool_runs).toEqual([{ id: "svc_fails", outcome: "error", round: 1 }])
  })

  it("a crashing tool becomes an error result, without its internals", async () => {
    const { body, result } = await runOnce("svc_crashes", "{}")
    const text = errorText(result)
    expect(text).toMatch(/failed/)
    expect(text).not.toContain("undefined is not a function")
    expect(body.svc_tool_runs).toEqual([{ id: "svc_crashes", outcome: "error", round: 1 }])
  })

  it("a tool past GATEWAY_SVC_TOOL_TIMEOUT becomes a timeout result; the request does not wait for it", async () => {
    const started = Date.now()
    const { body, result } = await runOnce("svc_hangs", "{}")
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(errorText(result)).toMatch(/timed out/)
    expect(body.svc_tool_runs).toEqual([{ id: "svc_hangs", outcome: "timeout", round: 1 }])
  })

  it("a timeout inside a stream: the stream goes on to the answer", async () => {
    script(upstream, [
      { content: "Trying. ", toolCalls: [toolCall("call_h", "svc_hangs", {})] },
      { content: "It timed out, sorry." }
    ])
    const chunks = await streamOf(await ask({ stream: true, stream_options: { include_usage: true } }))
    expect(streamedText(chunks)).toBe("Trying. It timed out, sorry.")
    expect(streamedToolDeltas(chunks)).toEqual([])
    expect(chunks.at(-1)?.svc_tool_runs).toEqual([{ id: "svc_hangs", outcome: "timeout", round: 1 }])
    expect(errorText(toolMessages(messagesOf(upstream, 2))[0])).toMatch(/timed out/)
  })

  it("an output over GATEWAY_SVC_TOOL_MAX_OUTPUT_BYTES becomes an error result, not the output", async () => {
    const { body, result } = await runOnce("svc_big", "{}")
    expect(result?.content.length).toBeLessThan(2_000)
    expect(errorText(result)).toContain("2000 bytes")
    expect(body.svc_tool_runs).toEqual([{ id: "svc_big", outcome: "error", round: 1 }])
  })

  it("arguments that are not JSON, or do not match the parameters, become error results; the tool never runs", async () => {
    runs.length = 0
    const broken = await runOnce("svc_ok", "{\"text\": ")
    expect(errorText(broken.result)).toMatch(/not valid JSON/)
    const mistyped = await runOnce("svc_ok", JSON.stringify({ text: 42 }))
    expect(errorText(mistyped.result)).toMatch(/Invalid arguments/)
    expect(runs).toHaveLength(0)
  })

  it("one failing call does not spoil its parallel siblings", async () => {
    runs.length = 0
    script(upstream, [
      {
        toolCalls: [
          toolCall("call_f", "svc_fails", {}),
          toolCall("call_o", "svc_ok", { text: "fine" }),
          toolCall("call_t", "svc_hangs", {})
        ]
      },
      { content: "mixed results" }
    ])
    const body = await sharedCompletionOf(await ask())
    expect(body.choices[0]?.message.content).toBe("mixed results")
    const results = toolMessages(messagesOf(upstream, 2))
    expect(results.map((m) => m.tool_call_id)).toEqual(["call_f", "call_o", "call_t"])
    expect(errorText(results[0])).toContain("quota exhausted")
    expect(results[1]?.content).toBe(JSON.stringify({ echo: "fine" }))
    expect(errorText(results[2])).toMatch(/timed out/)
    expect(body.svc_tool_runs?.map((run) => run.outcome)).toEqual(["error", "ok", "timeout"])
  })

  it("a svc_ call for a tool that was not injected is never run; the model gets an error result", async () => {
    probeRuns.length = 0
    const { body, result } = await runOnce("svc_probe", JSON.stringify({ text: "sneaky" }))
    expect(probeRuns).toHaveLength(0)
    expect(errorText(result)).toContain("svc_probe")
    expect(body.svc_tool_runs).toEqual([{ id: "svc_probe", outcome: "not_allowed", round: 1 }])
    // the request did not offer it to the model either
    expect(upstream.chatRequests()[0]?.body.tools).not.toContainEqual(
      expect.objectContaining({ function: expect.objectContaining({ name: "svc_probe" }) })
    )

    const missing = await runOnce("svc_not_installed", "{}")
    expect(errorText(missing.result)).toContain("svc_not_installed")
    expect(missing.body.svc_tool_runs).toEqual([{ id: "svc_not_installed", outcome: "not_allowed", round: 1 }])
  })

  it("a non-injected svc_ call streamed: never run, never shown to the client", async () => {
    probeRuns.length = 0
    script(upstream, [
      { toolCalls: [toolCall("call_p", "svc_probe", { text: "x" })] },
      { content: "not available" }
    ])
    const chunks = await streamOf(await ask({ stream: true }))
    expect(streamedText(chunks)).toBe("not available")
    expect(streamedToolDeltas(chunks)).toEqual([])
    expect(probeRuns).toHaveLength(0)
    expect(errorText(toolMessages(messagesOf(upstream, 2))[0])).toContain("svc_probe")
  })

  it("a non-injected svc_ call next to a client call is not handed to the client as its own", async () => {
    probeRuns.length = 0
    script(upstream, [{
      toolCalls: [toolCall("call_c", "lookup", {}), toolCall("call_p2", "svc_probe", { text: "x" })]
    }])
    const body = await sharedCompletionOf(await ask({ tools: [clientTool] }))
    expect(body.choices[0]?.finish_reason).toBe("tool_calls")
    expect(body.choices[0]?.message.tool_calls?.map((call) => call.function.name)).toEqual(["lookup"])
    expect(probeRuns).toHaveLength(0)
    expect(typeof body.svc_pending_id).toBe("string")
  })
})
