/**
 * Client sessions through the gateway: a request's session comes from the client's own id (Claude
 * Code's `X-Claude-Code-Session-Id`, Codex's `session-id`, or the gateway's `x-svc-session-id`), and
 * `GET /admin/v1/orgs/{id}/sessions` and `/sessions/{session_id}` sum each session's requests, cost
 * and cache reads and give its timeline; bad input and unknown sessions are refused plainly.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  completion,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  usage
} from "../utils/FakeUpstream.ts"
import { postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"
import { until } from "../utils/Until.ts"

describe("client sessions", () => {
  let upstream: FakeUpstream
  let gw: TestGateway
  let key: string
  let keyId: string
  let orgId: string

  beforeAll(async () => {
    // 1,000 prompt tokens of which 400 read from the cache, 100 out: $2 / $0.50 / $8 per million
    upstream = await startFakeUpstream(() => reply.json(completion({ content: "ok", usage: usage(1_000, 100, 400) })))
    const base = { adapter: "openai-compatible", base_url: `${upstream.url}/v1`, api_key_env: "FAKE_KEY" }
    gw = await startGateway(fakeGatewayEnv(upstream, {
      providers: { fake: { ...base, prices: { "*": { input: 2, cached_input: 0.5, output: 8 } } } },
      env: { GATEWAY_LOG_FLUSH_INTERVAL: "20 millis" }
    }))
    ;({ key, keyId, orgId } = await gw.newKey())
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })

  const ask = async (headers: Record<string, string>, model = "fake/coder") => {
    const response = await postChat(gw.url, { model, messages: [{ role: "user", content: "hi" }] }, { key, headers })
    await response.text()
    return response.status
  }

  const sessions = async (query = "") => (await gw.admin("GET", `/orgs/${orgId}/sessions${query}`))

  it("each client's own session header names the session; the list sums each, newest activity first", async () => {
    const claude = {
      "x-claude-code-session-id": "claude-1",
      "user-agent": "claude-cli/2.1.328",
      "x-svc-tags": "developer:ana+dev@example.com"
    }
    expect(await ask(claude)).toBe(200)
    expect(await ask(claude)).toBe(200)
    expect(await ask({ "session-id": "01a21c19-62f0-7622-b0b0-cf60052c74ba", "user-agent": "codex_exec/0.169.0" }))
      .toBe(200)
    expect(await ask({ "x-svc-session-id": "script-7", "x-claude-code-session-id": "ignored" })).toBe(200)
    // no session: not listed
    expect(await ask({})).toBe(200)
    await until("the log holds the three sessions", async () => (await sessions()).json.data.length === 3)

    const list = (await sessions()).json.data as Array<Record<string, unknown>>
    const byId = (id: string) => list.find((session) => session["session_id"] === id)
    expect(new Set(list.map((session) => session["session_id"]))).toEqual(
      new Set(["script-7", "01a21c19-62f0-7622-b0b0-cf60052c74ba", "claude-1"])
    )
    // newest activity first
    const lasts = list.map((session) => String(session["last_request_at"]))
    expect([...lasts].sort().reverse()).toEqual(lasts)
    expect(byId("claude-1")).toMatchObject({
      client: "claude-cli/2.1.328",
      developer: "ana+dev@example.com",
      key_ids: [keyId],
      models: ["fake/coder"],
      requests: 2,
      errors: 0,
      prompt_tokens: 2_000,
      completion_tokens: 200,
      cached_tokens: 800,
      cache_hit_rate: 0.4,
      // each: 600 x 2 + 400 x 0.5 + 100 x 8 = 2,200 micro-dollars
      cost_usd: 0.0044,
      unpriced_requests: 0,
      svc_tool_runs: 0
    })
    expect(byId("01a21c19-62f0-7622-b0b0-cf60052c74ba")).toMatchObject({
      client: "codex_exec/0.169.0",
      developer: null,
      requests: 1
    })
  })

  it("a key reads its own session's sums at /v1/svc/sessions/{id}, and nothing of another key's", async () => {
    const own = await fetch(`${gw.url}/v1/svc/sessions/claude-1`, { headers: { authorization: `Bearer ${key}` } })
    expect(own.status).toBe(200)
    expect(await own.json()).toMatchObject({
      object: "svc.session",
      session_id: "claude-1",
      developer: "ana+dev@example.com",
      requests: 2,
      cost_usd: 0.0044
    })
    // another key of the same org
    const other = (await gw.admin("POST", `/orgs/${orgId}/keys`, { name: "other" })).json.key as string
    const refused = await fetch(`${gw.url}/v1/svc/sessions/claude-1`, { headers: { authorization: `Bearer ${other}` } })
    expect(refused.status).toBe(404)
    expect(((await refused.json()) as { error: unknown }).error).toMatchObject({
      code: "not_found",
      message: "No session with id 'claude-1'."
    })
    const anonymous = await fetch(`${gw.url}/v1/svc/sessions/claude-1`)
    expect(anonymous.status).toBe(401)
    expect(((await anonymous.json()) as { error: { type: string } }).error.type).toBe("authentication_error")
  })

  it("one session: its sums and its requests as a timeline, oldest first", async () => {
    const detail = await gw.admin("GET", `/orgs/${orgId}/sessions/claude-1`)
    expect(detail.status).toBe(200)
    expect(detail.json).toMatchObject({ session_id: "claude-1", requests: 2 })
    const timeline = detail.json.timeline as Array<{ created_at: string; session_id: string; cost_usd: number }>
    expect(timeline).toHaveLength(2)
    expect(timeline.every((entry) => entry.session_id === "claude-1" && entry.cost_usd === 0.0022)).toBe(true)
    expect(timeline[0]!.created_at <= timeline[1]!.created_at).toBe(true)
  })

  it("refuses what it cannot answer, in the API's words", async () => {
    const unknown = await gw.admin("GET", `/orgs/${orgId}/sessions/nope`)
    expect(unknown.status).toBe(404)
    expect(unknown.json.error.message).toBe("No session with id 'nope'.")
    expect((await gw.admin("GET", "/orgs/org_nope/sessions")).status).toBe(404)
    for (const query of ["?limit=0", "?limit=201", "?cursor=abc", "?group_by=day", "?status=7xx"]) {
      const refused = await sessions(query)
      expect(refused.status, query).toBe(400)
    }
    const [newest] = (await sessions()).json.data
    expect((await sessions("?limit=1")).json.data).toEqual([newest])
  })
})

describe("a session's prompt cache key to OpenAI", () => {
  let upstream: FakeUpstream
  let gw: TestGateway
  let key: string

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) =>
      request.path.endsWith("/responses")
        ? reply.json({
          id: "resp_1",
          object: "response",
          created_at: 1,
          status: "completed",
          model: "m",
          output: [{
            id: "msg_1",
            type: "message",
            status: "completed",
            role: "assistant",
            content: [{ type: "output_text", text: "ok", annotations: [] }]
          }],
          usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 }
        })
        : reply.json(completion({ content: "ok" }))
    )
    const at = { base_url: `${upstream.url}/v1`, api_key_env: "FAKE_KEY" }
    gw = await startGateway(fakeGatewayEnv(upstream, {
      providers: {
        openai: { adapter: "openai", ...at },
        oresp: { adapter: "openai-responses", ...at },
        other: { adapter: "openai-compatible", ...at }
      }
    }))
    ;({ key } = await gw.newKey())
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })

  const sent = async (model: string, extra: Record<string, unknown> = {}) => {
    upstream.reset()
    const response = await postChat(gw.url, { model, messages: [{ role: "user", content: "hi" }], ...extra }, {
      key,
      headers: { "x-claude-code-session-id": "claude-9" }
    })
    expect(response.status, await response.text()).toBe(200)
    return upstream.last().body as Record<string, unknown>
  }

  it("OpenAI's chat completions and Responses get the session as prompt_cache_key; the client's own wins", async () => {
    expect((await sent("openai/m"))["prompt_cache_key"]).toBe("claude-9")
    expect((await sent("oresp/m"))["prompt_cache_key"]).toBe("claude-9")
    expect((await sent("openai/m", { prompt_cache_key: "mine" }))["prompt_cache_key"]).toBe("mine")
  })

  it("another OpenAI-compatible server gets no field it may refuse", async () => {
    expect(await sent("other/m")).not.toHaveProperty("prompt_cache_key")
  })
})
