/**
 * Every tool choice of chat completions through the `openai` SDK (what LangChain's
 * `withStructuredOutput` and the AI SDK's `toolChoice: "required"` send): `required` and a named function
 * against `local/echo`, whole and streamed; with shared tools injected, `required` may be met by a shared
 * tool, a named client tool never is; and an upstream gets the choice as the client wrote it.
 */
import OpenAI from "openai"
import type { ChatCompletionChunk, ChatCompletionTool } from "openai/resources/chat/completions"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  completion,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  toolCall
} from "../utils/FakeUpstream.ts"
import { createCaller, setOrgTool } from "../utils/SharedToolsHarness.ts"
import { startGateway, type TestGateway } from "../utils/TestGateway.ts"

const tools: Array<ChatCompletionTool> = [
  {
    type: "function",
    function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } }
  },
  { type: "function", function: { name: "get_time", parameters: { type: "object", properties: {} } } }
]

const callsOf = async (stream: AsyncIterable<ChatCompletionChunk>) => {
  const names: Array<string> = []
  let finish: string | null = null
  for await (const chunk of stream) {
    for (const choice of chunk.choices) {
      for (const call of choice.delta.tool_calls ?? []) {
        if (call.function?.name !== undefined) names.push(call.function.name)
      }
      finish = choice.finish_reason ?? finish
    }
  }
  return { names, finish }
}

describe("tool choice through the OpenAI SDK", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let client: OpenAI
  let orgId: string

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(upstream))
    const caller = await createCaller(gw)
    orgId = caller.orgId
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: caller.key, maxRetries: 0, timeout: 15_000 })
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })
  beforeEach(() => upstream.reset())

  it("required: local/echo must call a tool, whole and streamed", async () => {
    const messages = [{ role: "user" as const, content: "what's up?" }]
    const whole = await client.chat.completions.create({
      model: "local/echo",
      messages,
      tools,
      tool_choice: "required"
    })
    expect(whole.choices[0]?.finish_reason).toBe("tool_calls")
    expect(whole.choices[0]?.message.tool_calls?.map((call) => call.type === "function" ? call.function.name : ""))
      .toEqual(["get_weather"])
    const streamed = await callsOf(
      await client.chat.completions.create({
        model: "local/echo",
        messages,
        tools,
        tool_choice: "required",
        stream: true
      })
    )
    expect(streamed).toEqual({ names: ["get_weather"], finish: "tool_calls" })
  })

  it("a named function is the one called, whatever the text asks for", async () => {
    const messages = [{ role: "user" as const, content: "call get_weather {\"city\":\"Paris\"}" }]
    const tool_choice = { type: "function" as const, function: { name: "get_time" } }
    const whole = await client.chat.completions.create({ model: "local/echo", messages, tools, tool_choice })
    const call = whole.choices[0]?.message.tool_calls?.[0]
    expect(call?.type === "function" ? [call.function.name, call.function.arguments] : []).toEqual(["get_time", "{}"])
    const streamed = await callsOf(
      await client.chat.completions.create({ model: "local/echo", messages, tools, tool_choice, stream: true })
    )
    expect(streamed).toEqual({ names: ["get_time"], finish: "tool_calls" })
  })

  it("with a shared tool injected, required is met by the shared tool: it runs and the model answers", async () => {
    await setOrgTool(gw, orgId, "svc_generate_uuid", { activated: true })
    const body = {
      model: "local/echo",
      messages: [{ role: "user" as const, content: "call svc_generate_uuid {}" }],
      tools,
      tool_choice: "required" as const,
      svc_tool_ids: ["svc_generate_uuid"]
    }
    const whole = await client.chat.completions.create(body)
    expect(whole.choices[0]?.finish_reason).toBe("stop")
    expect(whole.choices[0]?.message.content).toMatch(/[0-9a-f-]{36}/)
    expect((whole as unknown as { svc_tool_runs: unknown }).svc_tool_runs).toEqual([
      { id: "svc_generate_uuid", outcome: "ok", round: 1 }
    ])
  })

  it("with a shared tool injected, a named client tool is still the one called", async () => {
    await setOrgTool(gw, orgId, "svc_generate_uuid", { activated: true })
    const whole = await client.chat.completions.create({
      model: "local/echo",
      messages: [{ role: "user" as const, content: "call svc_generate_uuid {}" }],
      tools,
      tool_choice: { type: "function", function: { name: "get_weather" } },
      // @ts-expect-error gateway field
      svc_tool_ids: ["svc_generate_uuid"]
    })
    const call = whole.choices[0]?.message.tool_calls?.[0]
    expect(call?.type === "function" ? call.function.name : undefined).toBe("get_weather")
    expect(whole.choices[0]?.finish_reason).toBe("tool_calls")
  })

  it("once a shared tool met required, the next round asks the upstream for auto", async () => {
    await setOrgTool(gw, orgId, "svc_generate_uuid", { activated: true })
    let round = 0
    upstream.handle(() =>
      reply.json(
        ++round === 1
          ? completion({
            content: null,
            toolCalls: [toolCall("call_1", "svc_generate_uuid", {})],
            finishReason: "tool_calls"
          })
          : completion({ content: "done" })
      )
    )
    const whole = await client.chat.completions.create({
      model: "fake/some-model",
      messages: [{ role: "user", content: "an id please" }],
      tools,
      tool_choice: "required",
      // @ts-expect-error gateway field
      svc_tool_ids: ["svc_generate_uuid"]
    })
    expect(whole.choices[0]?.message.content).toBe("done")
    expect(upstream.chatRequests().map((request) => request.body["tool_choice"])).toEqual(["required", "auto"])
  })

  it("an upstream gets required and a named function as the client wrote them", async () => {
    upstream.handle(() => reply.json(completion({ content: "ok" })))
    const named = { type: "function" as const, function: { name: "get_time" } }
    for (const tool_choice of ["required" as const, named]) {
      await client.chat.completions.create({
        model: "fake/some-model",
        messages: [{ role: "user", content: "hi" }],
        tools,
        tool_choice
      })
      expect(upstream.last().body["tool_choice"]).toEqual(tool_choice)
    }
  })
})
