/**
 * `POST /v1/messages/count_tokens` through the chat routes' edge: the key's auth and requests-per-minute
 * limit apply (no tokens charged), refusals come in Anthropic's shape, and every count leaves a row of
 * kind `count_tokens` in the request log, found by the `x-svc-request-id` its answer carries.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { logRowOf, postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"

interface Row {
  readonly id: string
  readonly kind: string
  readonly status: number
  readonly error_code: string | null
  readonly requested_model: string | null
  readonly provider: string | null
  readonly key_id: string | null
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly attempts: number
}

const body = { model: "local/echo", messages: [{ role: "user", content: "count these few words" }] }

describe("count_tokens through the pipeline", () => {
  let gw: TestGateway

  beforeAll(async () => {
    gw = await startGateway({ GATEWAY_LOG_FLUSH_INTERVAL: "20 millis" })
  })
  afterAll(async () => {
    await gw?.close()
  })

  const count = (key: string, payload: unknown = body) =>
    fetch(`${gw.url}/v1/messages/count_tokens`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" },
      body: JSON.stringify(payload)
    })

  it("answers the count and logs a count_tokens row without usage", async () => {
    const { key, keyId, orgId } = await gw.newKey()
    const response = await count(key)
    expect(response.status).toBe(200)
    const answer = await response.json() as { input_tokens: number }
    expect(answer.input_tokens).toBeGreaterThan(0)
    const requestId = response.headers.get("x-svc-request-id")
    expect(requestId).toMatch(/^req_/)

    const row = await logRowOf<Row>(gw, orgId, requestId!)
    expect(row).toMatchObject({
      kind: "count_tokens",
      status: 200,
      error_code: null,
      requested_model: "local/echo",
      provider: "local",
      key_id: keyId,
      prompt_tokens: 0,
      completion_tokens: 0,
      attempts: 0
    })

    // a chat request of the same key is a completion
    const chat = await postChat(gw.url, body, { key })
    const chatRow = await logRowOf<Row>(gw, orgId, chat.headers.get("x-svc-request-id")!)
    expect(chatRow.kind).toBe("completion")
  })

  it("a revoked key is refused in Anthropic's shape, and the refusal is in its org's log", async () => {
    const { key, keyId, orgId } = await gw.newKey()
    expect((await gw.admin("DELETE", `/keys/${keyId}`)).status).toBe(200)
    const response = await count(key)
    expect(response.status).toBe(401)
    const error = await response.json() as { type: string; error: { type: string } }
    expect(error).toMatchObject({ type: "error", error: { type: "authentication_error" } })
    const row = await logRowOf<Row>(gw, orgId, response.headers.get("x-svc-request-id")!)
    expect(row).toMatchObject({ kind: "count_tokens", status: 401, key_id: keyId })
  })

  it("a bad body is a 400 in Anthropic's shape, logged", async () => {
    const { key, orgId } = await gw.newKey()
    const response = await count(key, { model: "local/echo" })
    expect(response.status).toBe(400)
    const error = await response.json() as { error: { type: string } }
    expect(error.error.type).toBe("invalid_request_error")
    const row = await logRowOf<Row>(gw, orgId, response.headers.get("x-svc-request-id")!)
    expect(row).toMatchObject({ kind: "count_tokens", status: 400 })
  })

  it("counts against the key's requests per minute, with the quota headers; charges no tokens", async () => {
    const { key, keyId } = await gw.newKey()
    expect((await gw.admin("PATCH", `/keys/${keyId}`, { limits: { rpm: 2, tpm: 5 } })).status).toBe(200)
    const first = await count(key)
    expect(first.status).toBe(200)
    expect(first.headers.get("x-ratelimit-limit-requests")).toBe("2")
    // a count bills no tokens: the tokens-per-minute budget of 5 is untouched, so a second count passes
    const second = await count(key)
    expect(second.status).toBe(200)
    expect(second.headers.get("x-ratelimit-remaining-tokens")).toBe("5")
    const third = await count(key)
    expect(third.status).toBe(429)
    expect(third.headers.get("retry-after")).toMatch(/^\d+$/)
    const error = await third.json() as { error: { type: string } }
    expect(error.error.type).toBe("rate_limit_error")
  })
})
