/**
 * Budgets in dollars and their alerts, through a real gateway to a fake upstream priced in the routing
 * file ($2 input, $8 output per million tokens: 1,000 prompt and 100 completion tokens cost $0.0028).
 * A key's or an org's `usd_per_day` / `usd_per_month` refuses requests once spent (429
 * `budget_exceeded`), streamed answers count as whole ones, a budget set late counts the log's spend,
 * concurrent requests overshoot by at most what was in flight, and crossing an alert threshold posts one
 * `budget.threshold` event to the org's webhook.
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
import { ADMIN_TOKEN, postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"
import { until } from "../utils/Until.ts"
import { startWebhookReceiver, type WebhookReceiver } from "../utils/WebhookReceiver.ts"

/** What one request costs at the fake's price, in micro-dollars. */
const COST = 2_800

describe("budgets in dollars", () => {
  let upstream: FakeUpstream
  let gw: TestGateway
  let receiver: WebhookReceiver

  beforeAll(async () => {
    upstream = await startFakeUpstream(() => reply.json(completion({ content: "ok", usage: usage(1000, 100) })))
    receiver = await startWebhookReceiver()
    gw = await startGateway(
      fakeGatewayEnv(upstream, {
        providers: {
          fake: {
            adapter: "openai-compatible",
            base_url: `${upstream.url}/v1`,
            api_key_env: "FAKE_KEY",
            prices: { "*": { input: 2, output: 8 } }
          }
        },
        env: { GATEWAY_LOG_FLUSH_INTERVAL: "20 millis" }
      })
    )
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
    await receiver?.close()
  })

  const ask = (key: string, stream = false) =>
    postChat(gw.url, {
      model: "fake/some-model",
      messages: [{ role: "user", content: "price me" }],
      ...(stream ? { stream: true } : {})
    }, { key })

  const spentMicro = async (orgId: string) => {
    const report = await gw.admin("GET", `/orgs/${orgId}/analytics?group_by=none`)
    return Math.round(Number(report.json.data[0]?.cost_usd ?? 0) * 1_000_000)
  }

  it("a key's daily dollar budget: answered until spent, then 429 budget_exceeded naming the dollars", async () => {
    const { key, keyId } = await gw.newKey()
    const patched = await gw.admin("PATCH", `/keys/${keyId}`, { limits: { usd_per_day: 0.005 } })
    expect(patched.status).toBe(200)
    expect(patched.json.limits).toMatchObject({ usd_per_day: 0.005, usd_per_month: null })
    expect((await ask(key)).status).toBe(200)
    // $0.0028 spent, under $0.005: let through, and it takes the spend over the line
    expect((await ask(key)).status).toBe(200)
    const refused = await ask(key)
    expect(refused.status).toBe(429)
    const body = await refused.json() as { error: { code: string; type: string; message: string } }
    expect(body.error).toMatchObject({ code: "budget_exceeded", type: "insufficient_quota" })
    expect(body.error.message).toContain("$0.005 per day")
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
  })

  it("streamed answers are charged what whole ones are", async () => {
    upstream.handle(() => reply.sse(textStream(["o", "k"], usage(1000, 100))))
    try {
      const { key, orgId } = await gw.newKey()
      await gw.admin("PATCH", `/orgs/${orgId}`, { limits: { usd_per_month: 0.0056 } })
      for (let i = 0; i < 2; i++) {
        const response = await ask(key, true)
        expect(response.status).toBe(200)
        await response.text()
      }
      const refused = await ask(key, true)
      expect(refused.status).toBe(429)
      expect((await refused.json() as { error: { message: string } }).error.message).toContain("organization")
    } finally {
      upstream.handle(() => reply.json(completion({ content: "ok", usage: usage(1000, 100) })))
    }
  })

  it("the gateway-wide spend: per org and day, as JSON and CSV, an org's row its own sum", async () => {
    const { key, orgId } = await gw.newKey()
    for (let i = 0; i < 3; i++) expect((await ask(key)).status).toBe(200)
    await until("the org's three requests in the log", async () => (await spentMicro(orgId)) === 3 * COST)
    const today = new Date().toISOString().slice(0, 10)
    const report = await gw.admin("GET", "/spend?group_by=org")
    expect(report.status).toBe(200)
    expect(report.json.group_by).toBe("org")
    expect(report.json.data.filter((row: { group: string }) => row.group === orgId)).toEqual([
      expect.objectContaining({ day: today, group: orgId, requests: 3, unpriced_requests: 0, cost_usd: 0.0084 })
    ])
    const csv = await fetch(`${gw.url}/admin/v1/spend.csv?group_by=org`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` }
    })
    expect(csv.headers.get("content-type")).toContain("text/csv")
    const lines = (await csv.text()).split("\r\n")
    expect(lines[0]).toBe("day,org,requests,unpriced_requests,prompt_tokens,completion_tokens,cost_usd")
    expect(lines).toContain(`${today},${orgId},3,0,3000,300,0.008400`)
  })

  it("a dollar budget set after spending counts what the request log holds", async () => {
    const { key, keyId, orgId } = await gw.newKey()
    expect((await ask(key)).status).toBe(200)
    await until("the request's cost in the log", async () => (await spentMicro(orgId)) === COST)
    await gw.admin("PATCH", `/keys/${keyId}`, { limits: { usd_per_month: 0.002 } })
    const refused = await ask(key)
    expect(refused.status).toBe(429)
    expect((await refused.json() as { error: { code: string } }).error.code).toBe("budget_exceeded")
  })

  it("concurrent requests overshoot the budget by at most what was in flight", async () => {
    const { key, keyId, orgId } = await gw.newKey()
    const limitMicro = 10 * COST
    await gw.admin("PATCH", `/keys/${keyId}`, { limits: { usd_per_day: limitMicro / 1_000_000 } })
    const clients = 16
    let refusals = 0
    // each client asks until refused: when the budget runs out, at most one request per client is in flight
    await Promise.all(Array.from({ length: clients }, async () => {
      for (let i = 0; i < 50; i++) {
        const response = await ask(key)
        await response.text()
        if (response.status === 429) return void refusals++
        expect(response.status).toBe(200)
      }
    }))
    expect(refusals).toBe(clients)
    await until("every answer in the log", async () => (await spentMicro(orgId)) >= limitMicro)
    const overshoot = (await spentMicro(orgId)) - limitMicro
    expect(overshoot).toBeGreaterThanOrEqual(0)
    expect(overshoot).toBeLessThanOrEqual(clients * COST)
  })

  it("an org's alerts: one event per threshold crossed, posted to its webhook, listed with its delivery", async () => {
    const { key, orgId } = await gw.newKey()
    const set = await gw.admin("PATCH", `/orgs/${orgId}`, {
      limits: { usd_per_day: 0.0056 },
      alerts: { webhook_url: receiver.url, thresholds: [1, 0.5] }
    })
    expect(set.status).toBe(200)
    expect(set.json.alerts).toEqual({ webhook_url: receiver.url, thresholds: [0.5, 1] })
    const mine = () => receiver.posted.filter((event) => event.body["org_id"] === orgId)

    expect((await ask(key)).status).toBe(200)
    await until("the 50 % event", () => mine().length === 1)
    expect((await ask(key)).status).toBe(200)
    await until("the 100 % event", () => mine().length === 2)
    expect((await ask(key)).status).toBe(429)

    const [half, full] = mine()
    expect(half!.body).toEqual({
      type: "budget.threshold",
      org_id: orgId,
      key_id: null,
      period: "day",
      threshold: 0.5,
      spent_usd: 0.0028,
      limit_usd: 0.0056,
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/)
    })
    expect(full!.body).toMatchObject({ threshold: 1, spent_usd: 0.0056 })
    expect(half!.headers["x-svc-event-id"]).toMatch(/^alert_/)
    expect(half!.headers["content-type"]).toContain("application/json")

    await until("both deliveries recorded", async () => {
      const listed = await gw.admin("GET", `/orgs/${orgId}/alerts`)
      return listed.json.data.every((alert: { delivery: { status: string } }) =>
        alert.delivery.status === "delivered"
      ) &&
        listed.json.data.length === 2
    })
    const listed = await gw.admin("GET", `/orgs/${orgId}/alerts`)
    expect(listed.json.data.map((alert: { threshold: number }) => alert.threshold)).toEqual([1, 0.5])
    expect(listed.json.data[0].delivery).toMatchObject({ status: "delivered", attempts: 1, last_error: null })
    // nothing more was posted for this org: once per threshold and period
    expect(mine()).toHaveLength(2)
  })

  it("alerts: null turns them off; a key's budget alerts name the key", async () => {
    const { key, keyId, orgId } = await gw.newKey()
    await gw.admin("PATCH", `/orgs/${orgId}`, { alerts: { webhook_url: receiver.url } })
    await gw.admin("PATCH", `/keys/${keyId}`, { limits: { usd_per_day: 0.0028 } })
    expect((await ask(key)).status).toBe(200)
    await until(
      "the key's 100 % event",
      () => receiver.posted.some((event) => event.body["key_id"] === keyId && event.body["threshold"] === 1)
    )
    const thresholds = receiver.posted.filter((event) => event.body["key_id"] === keyId).map((e) => e.body["threshold"])
    // $0.0028 of $0.0028 crosses every default threshold at once
    expect(thresholds.sort()).toEqual([0.5, 0.8, 1])
    const off = await gw.admin("PATCH", `/orgs/${orgId}`, { alerts: null })
    expect(off.json.alerts).toBeNull()
  })

  const bad: ReadonlyArray<readonly [string, unknown]> = [
    ["limits", { usd_per_day: 0 }],
    ["limits", { usd_per_day: -1 }],
    ["limits", { usd_per_month: "5" }],
    ["limits", { usd_per_day: 0.0000001 }],
    ["alerts", { webhook_url: "ftp://example.com/hook" }],
    ["alerts", { webhook_url: "not a url" }],
    ["alerts", { webhook_url: "https://user:pw@example.com/hook" }],
    ["alerts", { webhook_url: "https://example.com/hook", thresholds: [0] }],
    ["alerts", { webhook_url: "https://example.com/hook", thresholds: [1.5] }],
    ["alerts", { webhook_url: "https://example.com/hook", thresholds: [] }],
    ["alerts", { thresholds: [0.5] }]
  ]
  for (const [field, value] of bad) {
    it(`refuses ${field} ${JSON.stringify(value)} with a 400 naming it, and changes nothing`, async () => {
      const { orgId } = await gw.newKey()
      const response = await gw.admin("PATCH", `/orgs/${orgId}`, { [field]: value })
      expect(response.status).toBe(400)
      expect(response.json.error.message).toContain(field)
      const org = await gw.admin("GET", `/orgs/${orgId}`)
      expect(org.json.alerts).toBeNull()
      expect(org.json.limits.usd_per_day).toBeNull()
    })
  }

  it("an alerts list with a bad limit or an unknown parameter is a 400 naming it", async () => {
    const { orgId } = await gw.newKey()
    for (const [query, param] of [["limit=0", "limit"], ["limit=abc", "limit"], ["cursor=x", "cursor"]] as const) {
      const refused = await gw.admin("GET", `/orgs/${orgId}/alerts?${query}`)
      expect(refused.status, query).toBe(400)
      expect(refused.json.error.message, query).toContain(param)
    }
    expect((await gw.admin("GET", `/orgs/${orgId}/alerts?limit=200`)).status).toBe(200)
  })

  it("an unknown org's alerts are a 404", async () => {
    const response = await gw.admin("GET", "/orgs/org_nope/alerts")
    expect(response.status).toBe(404)
  })
})

describe("GATEWAY_ALERT_WEBHOOK_HOSTS", () => {
  let gw: TestGateway

  beforeAll(async () => {
    gw = await startGateway({ GATEWAY_ALERT_WEBHOOK_HOSTS: "hooks.example.com, *.alerts.example.org" })
  })
  afterAll(async () => {
    await gw?.close()
  })

  it("refuses a webhook on another host, naming the hosts allowed; takes one on an allowed host", async () => {
    const { orgId } = await gw.newKey()
    const inside = await gw.admin("PATCH", `/orgs/${orgId}`, { alerts: { webhook_url: "http://127.0.0.1:9/hook" } })
    expect(inside.status).toBe(400)
    expect(inside.json.error.message).toContain("hooks.example.com, *.alerts.example.org")
    expect(inside.json.error.param).toBe("alerts.webhook_url")
    for (const url of ["https://hooks.example.com/a", "https://team.alerts.example.org/b"]) {
      expect((await gw.admin("PATCH", `/orgs/${orgId}`, { alerts: { webhook_url: url } })).status).toBe(200)
    }
    const suffixOnly = await gw.admin("PATCH", `/orgs/${orgId}`, {
      alerts: { webhook_url: "https://evilalerts.example.org/b" }
    })
    expect(suffixOnly.status).toBe(400)
  })
})
