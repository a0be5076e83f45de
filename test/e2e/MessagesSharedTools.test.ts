/**
 * Shared tools on `/v1/messages`, the same rules as on chat completions (the one core runs them): a
 * listed tool runs and the model answers with its result, whole and streamed; a tool hydrated for the
 * org is injected unlisted; a bad id is Anthropic's 400 naming it; a mixed turn returns only the client's
 * `tool_use` with a `svc_pending_id`, and its continuation puts the gateway's turn back for the upstream.
 */
import Anthropic from "@anthropic-ai/sdk"
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
import { postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"

const PARIS = "call svc_current_time {\"timezone\":\"Europe/Paris\"}"
const weather: Anthropic.Tool = {
  name: "get_weather",
  input_schema: { type: "object", properties: { city: { type: "string" } } }
}

/** What the gateway adds to a Messages answer. */
interface SvcFields {
  readonly svc_tool_runs?: ReadonlyArray<{ readonly id: string; readonly outcome: string; readonly round: number }>
  readonly svc_pending_id?: string
}

describe("shared tools on /v1/messages", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let client: Anthropic
  let key: string
  let orgId: string

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(upstream))
    const caller = await createCaller(gw)
    ;({ key, orgId } = caller)
    client = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0, timeout: 15_000 })
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })
  beforeEach(() => upstream.reset())

  const ask = (body: Record<string, unknown>) =>
    postChat(gw.url, { model: "local/echo", max_tokens: 200, ...body }, {
      path: "/v1/messages",
      headers: { "x-api-key": key }
    })

  it("a listed tool runs at the gateway and the model answers with its result, whole and streamed", async () => {
    await setOrgTool(gw, orgId, "svc_current_time", { activated: true })
    const whole = await ask({ svc_tool_ids: ["svc_current_time"], messages: [{ role: "user", content: PARIS }] })
    expect(whole.status).toBe(200)
    const message = await whole.json() as Anthropic.Message & SvcFields
    expect(message.stop_reason).toBe("end_turn")
    expect(message.content[0]).toMatchObject({
      type: "text",
      text: expect.stringContaining("\"timezone\":\"Europe/Paris\"")
    })
    expect(message.svc_tool_runs).toEqual([{ id: "svc_current_time", outcome: "ok", round: 1 }])

    const streamed = await ask({
      stream: true,
      svc_tool_ids: ["svc_current_time"],
      messages: [{ role: "user", content: PARIS }]
    })
    const text = await streamed.text()
    // the shared call never reaches the client: no tool_use block, the tool's result as text
    expect(text).not.toContain("tool_use")
    expect(text).toContain("Europe/Paris")
    expect(text).toMatch(/event: message_delta\ndata: \{[^\n]*"svc_tool_runs":\[\{"id":"svc_current_time"/)
    expect(text.trimEnd().endsWith("event: message_stop\ndata: {\"type\":\"message_stop\"}")).toBe(true)
  })

  it("a tool hydrated for the org is injected without being listed", async () => {
    await setOrgTool(gw, orgId, "svc_current_time", { activated: true, hydrate_org: true })
    const message = await client.messages.create({
      model: "local/echo",
      max_tokens: 100,
      messages: [{ role: "user", content: PARIS }]
    })
    expect((message as Anthropic.Message & SvcFields).svc_tool_runs).toEqual([{
      id: "svc_current_time",
      outcome: "ok",
      round: 1
    }])
    await setOrgTool(gw, orgId, "svc_current_time", { activated: true, hydrate_org: false })
  })

  it("a tool that is not activated is Anthropic's 400 naming it", async () => {
    const response = await ask({
      svc_tool_ids: ["svc_generate_uuid", "svc_nope"],
      messages: [{ role: "user", content: "hi" }]
    })
    expect(response.status).toBe(400)
    const body = await response.json() as {
      type: string
      error: { type: string; message: string; invalid_svc_tool_ids: Array<string> }
    }
    expect(body.type).toBe("error")
    expect(body.error.type).toBe("invalid_request_error")
    expect(body.error.invalid_svc_tool_ids).toEqual(["svc_generate_uuid", "svc_nope"])
    expect(body.error.message).toContain("svc_nope")
  })

  it("a mixed turn: the client gets only its tool_use and a svc_pending_id; the continuation restores the gateway's turn", async () => {
    await setOrgTool(gw, orgId, "svc_generate_uuid", { activated: true })
    upstream.handle(() =>
      reply.json(completion({
        content: null,
        toolCalls: [
          toolCall("call_uuid", "svc_generate_uuid", {}),
          toolCall("call_weather", "get_weather", { city: "Lyon" })
        ],
        finishReason: "tool_calls"
      }))
    )
    const question = { role: "user" as const, content: "an id, and the weather in Lyon" }
    const first = await client.messages.create({
      model: "fake/some-model",
      max_tokens: 100,
      tools: [weather],
      messages: [question],
      // @ts-expect-error the gateway's own field
      svc_tool_ids: ["svc_generate_uuid"]
    }) as Anthropic.Message & SvcFields
    expect(first.stop_reason).toBe("tool_use")
    expect(first.content).toEqual([{
      type: "tool_use",
      id: "call_weather",
      name: "get_weather",
      input: { city: "Lyon" }
    }])
    expect(first.svc_pending_id).toMatch(/^svcpend_/)

    upstream.handle(() => reply.json(completion({ content: "Here you go." })))
    const second = await client.messages.create({
      model: "fake/some-model",
      max_tokens: 100,
      tools: [weather],
      messages: [
        question,
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "call_weather", content: "12C" }] }
      ],
      // @ts-expect-error the gateway's own fields
      svc_tool_ids: ["svc_generate_uuid"],
      svc_pending_id: first.svc_pending_id
    })
    expect(second.content).toEqual([{ type: "text", text: "Here you go." }])
    const sent = upstream.last().body.messages ?? []
    const assistant = sent.find((m) => m["role"] === "assistant")
    expect((assistant?.["tool_calls"] as Array<{ id: string }>).map((call) => call.id).sort()).toEqual([
      "call_uuid",
      "call_weather"
    ])
    expect(sent.filter((m) => m["role"] === "tool").map((m) => m["tool_call_id"]).sort()).toEqual([
      "call_uuid",
      "call_weather"
    ])
  })

  it("Claude Code's session id is kept in the log: its requests are found and grouped by it", async () => {
    const session = `sess-${Date.now()}`
    const send = (headers: Record<string, string>) =>
      postChat(gw.url, { model: "local/echo", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }, {
        path: "/v1/messages",
        headers: { "x-api-key": key, ...headers }
      })
    for (const headers of [{ "x-claude-code-session-id": session }, { "x-claude-code-session-id": session }, {}]) {
      expect((await send(headers)).status).toBe(200)
    }
    await expect.poll(
      async () => (await gw.admin("GET", `/orgs/${orgId}/requests?session_id=${session}`)).json.data.length,
      {
        timeout: 10_000
      }
    ).toBe(2)
    const rows = (await gw.admin("GET", `/orgs/${orgId}/requests?session_id=${session}`)).json.data as Array<
      { session_id: string }
    >
    expect(rows.map((row) => row.session_id)).toEqual([session, session])
    const groups = (await gw.admin("GET", `/orgs/${orgId}/analytics?group_by=session`)).json.data as Array<
      { group: string | null; requests: number }
    >
    expect(groups.find((g) => g.group === session)?.requests).toBe(2)
  })
})
