/**
 * The request log through a real gateway: each request leaves one row that says what happened (a whole
 * answer, a stream, an upstream error, a client that left), found through the admin API by the
 * `x-svc-request-id` the response carried, and filterable by a tag sent in `x-svc-tags`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  completion,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  textStream,
  usage
} from "../utils/FakeUpstream.ts"
import { logRowOf, postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"

interface Row {
  readonly id: string
  readonly status: number
  readonly error_code: string | null
  readonly stream: boolean
  readonly tags: ReadonlyArray<string>
  readonly requested_model: string | null
  readonly model: string | null
  readonly provider: string | null
  readonly key_id: string | null
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly attempts: number
  readonly latency_ms: number
  readonly ttft_ms: number | null
  readonly user_agent: string | null
  readonly prompt_text?: string | null
  readonly completion_text?: string | null
}

describe("the request log", () => {
  let upstream: FakeUpstream
  let gw: TestGateway
  let orgId: string
  let keyId: string
  let key: string

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(upstream, { env: { GATEWAY_LOG_FLUSH_INTERVAL: "20 millis" } }))
    ;({ key, keyId, orgId } = await gw.newKey())
  })
  afterAll(async () => {
    await gw.close()
    await upstream.close()
  })

  const rowOf = (requestId: string, org = orgId) => logRowOf<Row>(gw, org, requestId)

  const requestIdOf = (response: Response) => {
    const id = response.headers.get("x-svc-request-id")
    expect(id).toMatch(/^req_/)
    return id!
  }

  it("a whole answer: status, models, provider, tokens, tags in merge order, key, timing, user agent", async () => {
    upstream.handle(() => reply.json(completion({ content: "hi", model: "some-model-2024", usage: usage(7, 2) })))
    const response = await postChat(gw.url, {
      model: "fake/some-model",
      tags: ["b", "a"],
      messages: [{ role: "user", content: "hello" }]
    }, { key, headers: { "x-svc-tags": "c, a", "user-agent": "log-test/1.0" } })
    expect(response.status).toBe(200)
    const row = await rowOf(requestIdOf(response))
    expect(row).toMatchObject({
      status: 200,
      error_code: null,
      stream: false,
      tags: ["b", "a", "c"],
      requested_model: "fake/some-model",
      model: "some-model-2024",
      provider: "fake",
      key_id: keyId,
      prompt_tokens: 7,
      completion_tokens: 2,
      attempts: 1,
      ttft_ms: null,
      user_agent: "log-test/1.0"
    })
    expect(row.latency_ms).toBeGreaterThan(0)
    // the org did not opt in: no text
    expect(row.prompt_text ?? null).toBeNull()
    expect(row.completion_text ?? null).toBeNull()
  })

  it("a stream: the usage the upstream reported, a time to first token, stream true", async () => {
    upstream.handle(() => reply.sse(textStream(["one ", "two"], usage(11, 4))))
    const response = await postChat(gw.url, {
      model: "fake/some-model",
      stream: true,
      messages: [{ role: "user", content: "hello" }]
    }, { key })
    await response.text()
    const row = await rowOf(requestIdOf(response))
    expect(row).toMatchObject({ status: 200, stream: true, prompt_tokens: 11, completion_tokens: 4, provider: "fake" })
    expect(row.ttft_ms).not.toBeNull()
    expect(row.ttft_ms!).toBeLessThanOrEqual(row.latency_ms)
  })

  it("an upstream 400: the provider's status and code", async () => {
    upstream.handle(() => reply.error(400, "bad stop sequence", { code: "invalid_stop" }))
    const response = await postChat(gw.url, { model: "fake/some-model", messages: [{ role: "user", content: "x" }] }, {
      key
    })
    expect(response.status).toBe(400)
    const row = await rowOf(requestIdOf(response))
    expect(row).toMatchObject({ status: 400, error_code: "invalid_stop" })
  })

  it("a known key refused (revoked, expired) is logged under its org with the refusal; an unknown key only in the metrics", async () => {
    const revoked = await gw.newKey()
    await gw.admin("DELETE", `/keys/${revoked.keyId}`)
    const refused = await postChat(gw.url, { model: "local/echo", messages: [{ role: "user", content: "x" }] }, {
      key: revoked.key
    })
    expect(refused.status).toBe(401)
    expect(await rowOf(requestIdOf(refused), revoked.orgId)).toMatchObject({
      status: 401,
      error_code: "revoked_api_key",
      key_id: revoked.keyId
    })

    const expiresAt = new Date(Date.now() + 1_500).toISOString()
    const created = await gw.admin("POST", `/orgs/${orgId}/keys`, { name: "short", expires_at: expiresAt })
    const short = created.json as { id: string; key: string }
    await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 50))
    const expired = await postChat(gw.url, { model: "local/echo", messages: [{ role: "user", content: "x" }] }, {
      key: short.key
    })
    expect(expired.status).toBe(401)
    expect(await rowOf(requestIdOf(expired))).toMatchObject({
      status: 401,
      error_code: "expired_api_key",
      key_id: short.id
    })

    const unknown = await postChat(gw.url, { model: "local/echo", messages: [{ role: "user", content: "x" }] }, {
      key: "sk-svc-not-a-key"
    })
    expect(unknown.status).toBe(401)
    const missing = await gw.admin("GET", `/orgs/${orgId}/requests/${requestIdOf(unknown)}`)
    expect(missing.status).toBe(404)
    const metrics = await (await fetch(`${gw.url}/metrics`)).text()
    expect(metrics).toMatch(/svc_gateway_requests_total\{[^}]*status="401"[^}]*\} [1-9]/)
  })

  it("a request refused before any upstream call (unknown author) is logged too", async () => {
    const response = await postChat(gw.url, { model: "nobody/x", messages: [{ role: "user", content: "x" }] }, { key })
    expect(response.status).toBe(404)
    const row = await rowOf(requestIdOf(response))
    expect(row).toMatchObject({ status: 404, error_code: "model_not_found", key_id: keyId, attempts: 0 })
  })

  it("a client that leaves mid-stream: 499 client_closed", async () => {
    upstream.handle(() => reply.sse(textStream(["a", "b", "c", "d", "e"]), { delayMs: 200 }))
    const controller = new AbortController()
    const response = await postChat(gw.url, {
      model: "fake/some-model",
      stream: true,
      messages: [{ role: "user", content: "hello" }]
    }, { key, signal: controller.signal })
    const id = requestIdOf(response)
    const reader = response.body!.getReader()
    await reader.read()
    controller.abort()
    const row = await rowOf(id)
    expect(row).toMatchObject({ status: 499, error_code: "client_closed", stream: true })
  })

  it("filters the log by a tag sent only in x-svc-tags", async () => {
    upstream.handle(() => reply.json(completion({ content: "ok" })))
    const tag = `only-header-${Math.random().toString(36).slice(2, 8)}`
    const tagged = await postChat(gw.url, { model: "fake/some-model", messages: [{ role: "user", content: "x" }] }, {
      key,
      headers: { "x-svc-tags": tag }
    })
    const untagged = await postChat(gw.url, { model: "fake/some-model", messages: [{ role: "user", content: "y" }] }, {
      key
    })
    const taggedId = requestIdOf(tagged)
    await rowOf(taggedId)
    await rowOf(requestIdOf(untagged))
    const listed = await gw.admin("GET", `/orgs/${orgId}/requests?tag=${tag}`)
    expect(listed.status).toBe(200)
    expect((listed.json as { data: ReadonlyArray<Row> }).data.map((row) => row.id)).toEqual([taggedId])
  })

  it("stores prompt and completion text only for an org that opted in", async () => {
    const opted = await gw.newKey()
    expect((await gw.admin("PATCH", `/orgs/${opted.orgId}`, { log_content: true })).status).toBe(200)
    upstream.handle(() => reply.json(completion({ content: "the answer" })))
    const response = await postChat(gw.url, {
      model: "fake/some-model",
      messages: [{ role: "user", content: "the question" }]
    }, { key: opted.key })
    const id = requestIdOf(response)
    let row: Row | undefined
    for (let i = 0; i < 100 && row === undefined; i++) {
      const found = await gw.admin("GET", `/orgs/${opted.orgId}/requests/${id}`)
      if (found.status === 200) row = found.json as Row
      else await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(row?.completion_text).toBe("the answer")
    expect(JSON.parse(row?.prompt_text ?? "null")).toEqual([{ role: "user", content: "the question" }])
  })
})
