/**
 * Rate limits and token budgets per key and per org, set through the admin API and enforced on every
 * inbound format: 429 with `Retry-After` and `rate_limit_exceeded` / `budget_exceeded` (Anthropic's
 * `rate_limit_error` on /v1/messages), the `x-ratelimit-*` headers on answers, tokens charged from the
 * answer's usage (streamed answers included), budgets seeded from the request log, bad limits refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"

const ask = (content = "hello there", stream = false) => ({
  model: "local/echo",
  messages: [{ role: "user", content }],
  ...(stream ? { stream: true, stream_options: { include_usage: true } } : {})
})

describe("rate limits and budgets", () => {
  let gw: TestGateway

  beforeAll(async () => {
    gw = await startGateway()
  })
  afterAll(async () => {
    await gw?.close()
  })

  const limitedKey = async (limits: Record<string, number | null>, scope: "key" | "org" = "key") => {
    const created = await gw.newKey()
    const path = scope === "key" ? `/keys/${created.keyId}` : `/orgs/${created.orgId}`
    const patched = await gw.admin("PATCH", path, { limits })
    expect(patched.status).toBe(200)
    return { ...created, patched: patched.json }
  }

  it("rpm: the limit's requests answered with x-ratelimit-* headers, the next one 429 with Retry-After", async () => {
    const { key, patched } = await limitedKey({ rpm: 3 })
    expect(patched.limits).toEqual({
      rpm: 3,
      tpm: null,
      tokens_per_day: null,
      tokens_per_month: null,
      usd_per_day: null,
      usd_per_month: null
    })
    const remaining: Array<string | null> = []
    for (let i = 0; i < 3; i++) {
      const response = await postChat(gw.url, ask(), { key })
      expect(response.status).toBe(200)
      expect(response.headers.get("x-ratelimit-limit-requests")).toBe("3")
      expect(response.headers.get("x-ratelimit-reset-requests")).toMatch(/^\d+s$/)
      remaining.push(response.headers.get("x-ratelimit-remaining-requests"))
      await response.text()
    }
    expect(remaining).toEqual(["2", "1", "0"])
    const refused = await postChat(gw.url, ask(), { key })
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    const body = await refused.json() as { error: { code: string; type: string; message: string } }
    expect(body.error).toMatchObject({ code: "rate_limit_exceeded", type: "requests" })
    expect(body.error.message).toContain("3 requests per minute")
  })

  it("on /v1/messages the refusal is Anthropic's rate_limit_error", async () => {
    const { key } = await limitedKey({ rpm: 1 })
    const messages = { model: "local/echo", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }
    expect((await postChat(gw.url, messages, { key, path: "/v1/messages", headers: { "x-api-key": key } })).status)
      .toBe(200)
    const refused = await postChat(gw.url, messages, { key, path: "/v1/messages", headers: { "x-api-key": key } })
    expect(refused.status).toBe(429)
    expect(refused.headers.get("retry-after")).not.toBeNull()
    const body = await refused.json() as { type: string; error: { type: string } }
    expect(body).toMatchObject({ type: "error", error: { type: "rate_limit_error" } })
  })

  it("tpm: tokens are charged from the answer's usage, streamed too; over the minute's tokens the next request is refused", async () => {
    const { key } = await limitedKey({ tpm: 40 })
    const long = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
    const first = await postChat(gw.url, ask(long, true), { key })
    expect(first.status).toBe(200)
    expect(first.headers.get("x-ratelimit-limit-tokens")).toBe("40")
    expect(first.headers.get("x-ratelimit-remaining-tokens")).toBe("40")
    await first.text()
    const second = await postChat(gw.url, ask(long), { key })
    expect(second.status).toBe(200)
    const charged = Number(second.headers.get("x-ratelimit-remaining-tokens"))
    expect(charged).toBeLessThan(40)
    const usage = (await second.json() as { usage: { total_tokens: number } }).usage.total_tokens
    expect(usage).toBeGreaterThan(20)
    const refused = await postChat(gw.url, ask(long), { key })
    expect(refused.status).toBe(429)
    expect((await refused.json() as { error: { code: string; type: string } }).error).toMatchObject({
      code: "rate_limit_exceeded",
      type: "tokens"
    })
  })

  it("an org's daily budget covers all its keys: once used up, budget_exceeded until the next UTC day", async () => {
    const { key, orgId } = await limitedKey({ tokens_per_day: 10 }, "org")
    const second = await gw.admin("POST", `/orgs/${orgId}/keys`, { name: "second" })
    expect((await postChat(gw.url, ask("a b c d e f g h i j k l"), { key })).status).toBe(200)
    const refused = await postChat(gw.url, ask(), { key: second.json.key })
    expect(refused.status).toBe(429)
    const body = await refused.json() as { error: { code: string; type: string; message: string } }
    expect(body.error).toMatchObject({ code: "budget_exceeded", type: "insufficient_quota" })
    expect(body.error.message).toContain("organization")
    const now = new Date()
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)
    expect(Math.abs(Number(refused.headers.get("retry-after")) - (midnight - Date.now()) / 1000)).toBeLessThan(5)
  })

  it("a budget set after usage counts what the request log already holds for the month", async () => {
    const created = await gw.newKey()
    // used before any budget: written to the log
    expect((await postChat(gw.url, ask("a b c d e f g h i j k l m n o p"), { key: created.key })).status).toBe(200)
    await waitForLoggedRequests(gw, created.orgId, 1)
    await gw.admin("PATCH", `/keys/${created.keyId}`, { limits: { tokens_per_month: 5 } })
    const refused = await postChat(gw.url, ask(), { key: created.key })
    expect(refused.status).toBe(429)
    expect((await refused.json() as { error: { code: string } }).error.code).toBe("budget_exceeded")
  })

  it("limits: null removes them all; a kind set to null removes that kind only", async () => {
    const { keyId } = await limitedKey({ rpm: 5, tpm: 100 })
    const one = await gw.admin("PATCH", `/keys/${keyId}`, { limits: { rpm: null } })
    expect(one.json.limits).toEqual({
      rpm: null,
      tpm: 100,
      tokens_per_day: null,
      tokens_per_month: null,
      usd_per_day: null,
      usd_per_month: null
    })
    const all = await gw.admin("PATCH", `/keys/${keyId}`, { limits: null })
    expect(all.json.limits).toEqual({
      rpm: null,
      tpm: null,
      tokens_per_day: null,
      tokens_per_month: null,
      usd_per_day: null,
      usd_per_month: null
    })
  })

  it("a key without limits gets no x-ratelimit headers", async () => {
    const { key } = await gw.newKey()
    const response = await postChat(gw.url, ask(), { key })
    expect(response.status).toBe(200)
    expect(response.headers.get("x-ratelimit-limit-requests")).toBeNull()
  })

  for (const bad of [{ rpm: 0 }, { rpm: -1 }, { tpm: 1.5 }, { tokens_per_day: "10" }, { tokens_per_month: true }]) {
    it(`refuses limits ${JSON.stringify(bad)} with a 400 naming the field`, async () => {
      const { keyId, orgId } = await gw.newKey()
      for (const path of [`/keys/${keyId}`, `/orgs/${orgId}`]) {
        const response = await gw.admin("PATCH", path, { limits: bad })
        expect(response.status).toBe(400)
        expect(response.json.error.message).toContain(Object.keys(bad)[0])
      }
    })
  }
})

/** Waits until the org's log holds `n` requests (the log is written behind the answers). */
const waitForLoggedRequests = async (gw: TestGateway, orgId: string, n: number) => {
  for (let i = 0; i < 100; i++) {
    const page = await gw.admin("GET", `/orgs/${orgId}/requests`)
    if ((page.json.data ?? []).length >= n) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`the log never held ${n} requests of ${orgId}`)
}
