/**
 * Shared tools through the official `openai` SDK, with the real plugins: `svc_tool_ids` and
 * `svc_pending_id` go as extra body fields, `svc_pending_id` / `svc_tool_runs` are read off the
 * response. The mixed flow end to end (whole and streamed), checking what the fake upstream received on
 * the continuation; and the README's offline `local/echo` example.
 */
import OpenAI from "openai"
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool
} from "openai/resources/chat/completions"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { fakeGatewayEnv, type FakeUpstream, startFakeUpstream, toolCall } from "../utils/FakeUpstream.ts"
import {
  createCaller,
  expectValidToolConversation,
  messagesOf,
  script,
  setOrgTool,
  toolMessages,
  type ToolRun
} from "../utils/SharedToolsHarness.ts"
import { startGateway, type TestGateway } from "../utils/TestGateway.ts"

/** The gateway's own request fields, sent by the SDK as they are. */
interface SvcRequestFields {
  readonly svc_tool_ids?: ReadonlyArray<string>
  readonly svc_pending_id?: string
}

/** The gateway's own response fields. */
interface SvcResponseFields {
  readonly svc_pending_id?: string
  readonly svc_tool_runs?: ReadonlyArray<ToolRun>
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const weather: ChatCompletionTool = {
  type: "function",
  function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } }
}
const clientCall = toolCall("call_weather", "get_weather", { city: "Lyon" })
const sharedCall = toolCall("call_uuid", "svc_generate_uuid", {})
const question: ChatCompletionMessageParam = { role: "user", content: "Weather in Lyon, and a fresh id please" }

describe("shared tools through the OpenAI SDK", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let client: OpenAI

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(upstream))
    const caller = await createCaller(gw)
    await setOrgTool(gw, caller.orgId, "svc_generate_uuid", { activated: true })
    await setOrgTool(gw, caller.orgId, "svc_current_time", { activated: true })
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: caller.key, maxRetries: 0, timeout: 15_000 })
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })
  beforeEach(() => upstream.reset())

  const create = async (params: ChatCompletionCreateParamsNonStreaming & SvcRequestFields) =>
    (await client.chat.completions.create(params)) as ChatCompletion & SvcResponseFields

  const collect = async (params: ChatCompletionCreateParamsStreaming & SvcRequestFields) => {
    const chunks: Array<ChatCompletionChunk & SvcResponseFields> = []
    for await (const chunk of await client.chat.completions.create(params)) chunks.push(chunk)
    return chunks
  }

  /** What the upstream got on the continuation: the whole mixed turn, with the uuid the gateway made. */
  /** The conversation the upstream got back: the model's turn as it wrote it (calls and results in its order). */
  const expectRestored = (assistantContent: string | null, modelOrder: ReadonlyArray<typeof clientCall>) => {
    const sent = messagesOf(upstream, 1)
    expectValidToolConversation(sent)
    expect(sent.slice(0, 2)).toEqual([question, {
      role: "assistant",
      content: assistantContent,
      tool_calls: modelOrder
    }])
    expect(toolMessages(sent).map((m) => m.tool_call_id)).toEqual(modelOrder.map((call) => call.id))
    expect(toolMessages(sent).find((m) => m.tool_call_id === "call_weather")?.content).toBe("rainy, 12°C")
    const shared = toolMessages(sent).find((m) => m.tool_call_id === "call_uuid")
    expect((JSON.parse(shared?.content ?? "{}") as { uuid?: string }).uuid).toMatch(UUID_V4)
    expect(sent).toHaveLength(4)
  }

  it("mixed turn, whole: the SDK gets its own call and svc_pending_id; the continuation restores the shared call", async () => {
    script(upstream, [{ toolCalls: [clientCall, sharedCall] }])
    const first = await create({
      model: "fake/sdk-model",
      messages: [question],
      tools: [weather],
      svc_tool_ids: ["svc_generate_uuid"]
    })
    expect(upstream.chatRequests()[0]?.body.tools).toEqual([
      weather,
      expect.objectContaining({
        type: "function",
        function: expect.objectContaining({ name: "svc_generate_uuid" })
      })
    ])
    const choice = first.choices[0]
    expect(choice?.finish_reason).toBe("tool_calls")
    expect(choice?.message.tool_calls).toEqual([clientCall])
    expect(first.svc_tool_runs).toEqual([{ id: "svc_generate_uuid", outcome: "ok", round: 1 }])
    const pendingId = first.svc_pending_id
    expect(typeof pendingId).toBe("string")
    if (choice === undefined || pendingId === undefined) return

    // the client runs its own tool and continues, sending the assistant message back as the SDK gave it
    script(upstream, [{ content: "Rainy in Lyon; your id is ready." }])
    const final = await create({
      model: "fake/sdk-model",
      messages: [question, choice.message, { role: "tool", tool_call_id: "call_weather", content: "rainy, 12°C" }],
      tools: [weather],
      svc_pending_id: pendingId
    })
    expect(final.choices[0]?.message.content).toBe("Rainy in Lyon; your id is ready.")
    expect(final.svc_pending_id).toBeUndefined()
    expectRestored(null, [clientCall, sharedCall])
  })

  it("mixed turn, streamed: the SDK sees only its call, svc_pending_id on the last chunk; continued streamed", async () => {
    script(upstream, [{ content: "Looking.", toolCalls: [sharedCall, clientCall] }])
    const chunks = await collect({
      model: "fake/sdk-model",
      messages: [question],
      tools: [weather],
      svc_tool_ids: ["svc_generate_uuid"],
      stream: true,
      stream_options: { include_usage: true }
    })
    const deltas = chunks.flatMap((c) => c.choices.flatMap((choice) => choice.delta.tool_calls ?? []))
    expect(new Set(deltas.map((d) => d.index))).toEqual(new Set([0]))
    expect(deltas.map((d) => d.function?.name ?? "").join("")).toBe("get_weather")
    const args = deltas.map((d) => d.function?.arguments ?? "").join("")
    expect(JSON.parse(args)).toEqual({ city: "Lyon" })
    expect(chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter((r) => r !== null)).toEqual([
      "tool_calls"
    ])
    const pendingId = chunks.at(-1)?.svc_pending_id
    expect(typeof pendingId).toBe("string")
    expect(chunks.at(-1)?.usage?.total_tokens).toBeGreaterThan(0)
    if (pendingId === undefined) return

    script(upstream, [{ content: "Streamed: rainy, and here is your id." }])
    const content = chunks.flatMap((c) => c.choices.map((choice) => choice.delta.content ?? "")).join("")
    const next = await collect({
      model: "fake/sdk-model",
      messages: [
        question,
        {
          role: "assistant",
          content,
          tool_calls: [{ id: "call_weather", type: "function", function: { name: "get_weather", arguments: args } }]
        },
        { role: "tool", tool_call_id: "call_weather", content: "rainy, 12°C" }
      ],
      tools: [weather],
      svc_pending_id: pendingId,
      stream: true
    })
    expect(next.flatMap((c) => c.choices.map((choice) => choice.delta.content ?? "")).join("")).toBe(
      "Streamed: rainy, and here is your id."
    )
    expectRestored("Looking.", [sharedCall, clientCall])
  })

  it("an unknown svc_pending_id is a 400 the SDK raises as BadRequestError with code invalid_svc_pending_id", async () => {
    const failure = await create({
      model: "fake/sdk-model",
      messages: [question, { role: "assistant", content: null, tool_calls: [clientCall] }, {
        role: "tool",
        tool_call_id: "call_weather",
        content: "x"
      }],
      svc_pending_id: "svcpend_unknown"
    }).then(() => undefined, (error: unknown) => error)
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError)
    if (failure instanceof OpenAI.BadRequestError) {
      expect(failure.status).toBe(400)
      expect(failure.code).toBe("invalid_svc_pending_id")
      expect(failure.param).toBe("svc_pending_id")
    }
    expect(upstream.chatRequests()).toHaveLength(0)
  })

  it("invalid svc_tool_ids: BadRequestError invalid_svc_tool_ids", async () => {
    const failure = await create({ model: "fake/sdk-model", messages: [question], svc_tool_ids: ["svc_teleport"] })
      .then(
        () => undefined,
        (error: unknown) => error
      )
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError)
    if (failure instanceof OpenAI.BadRequestError) {
      expect(failure.code).toBe("invalid_svc_tool_ids")
      expect(failure.message).toContain("svc_teleport")
    }
  })

  it("the README example with the SDK: local/echo + svc_current_time answers Paris time offline", async () => {
    const data = await create({
      model: "local/echo",
      messages: [{ role: "user", content: "call svc_current_time {\"timezone\":\"Europe/Paris\"}" }],
      svc_tool_ids: ["svc_current_time"]
    })
    expect(data.choices[0]?.message.content).toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0[12]:00/)
    expect(data.svc_tool_runs).toEqual([{ id: "svc_current_time", outcome: "ok", round: 1 }])
    expect(upstream.chatRequests()).toHaveLength(0)
  })
  it("the README's offline mixed turn: local/echo asks for a shared tool and a client tool in one turn; the continuation answers with both results", async () => {
    const question = {
      role: "user" as const,
      content: "call svc_current_time {\"timezone\":\"UTC\"}\ncall get_weather {\"city\":\"Paris\"}"
    }
    const tools = [{ type: "function" as const, function: { name: "get_weather", parameters: { type: "object" } } }]
    const first = await create({ model: "local/echo", messages: [question], tools, svc_tool_ids: ["svc_current_time"] })
    const message = first.choices[0]!.message
    expect(first.choices[0]?.finish_reason).toBe("tool_calls")
    const calls = (message.tool_calls ?? []) as ReadonlyArray<
      { readonly id: string; readonly function: { readonly name: string; readonly arguments: string } }
    >
    expect(calls.map((call) => [call.function.name, call.function.arguments])).toEqual([[
      "get_weather",
      "{\"city\":\"Paris\"}"
    ]])
    expect(message.tool_calls?.[0]?.id).toMatch(/^call_[A-Za-z0-9]{24}_2$/)
    expect(first.svc_pending_id).toMatch(/^svcpend_/)
    expect(first.svc_tool_runs).toEqual([{ id: "svc_current_time", outcome: "ok", round: 1 }])

    const next = await create({
      model: "local/echo",
      tools,
      svc_tool_ids: ["svc_current_time"],
      svc_pending_id: first.svc_pending_id!,
      messages: [question, message, { role: "tool", tool_call_id: calls[0]!.id, content: "sunny" }]
    })
    // the turn as the model wrote it: the shared call's result first, then the client's
    expect(next.choices[0]?.message.content).toMatch(/^\{"datetime":"[^"]+","timezone":"UTC".*\}\nsunny$/)
    expect(upstream.chatRequests()).toHaveLength(0)
  })
})
