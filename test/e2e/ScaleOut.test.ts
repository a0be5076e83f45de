/**
 * Several gateway processes on one PostgreSQL (this test's own, on a spare port) and one Redis (the
 * machine's, 127.0.0.1:6379): a key revoked or limited on one instance takes effect on the other at once
 * (LISTEN/NOTIFY, with a key cache TTL of a minute that would otherwise hide it), a rate limit and a
 * token budget hold across both (their counters in Redis), a budget alert is posted once whichever
 * instance saw the crossing, and `GATEWAY_WORKERS=2` runs two workers behind one port
 * that drain and exit cleanly on SIGTERM.
 */
import { rmSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  completion,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  usage
} from "../utils/FakeUpstream.ts"
import { type GatewayProcess, startGatewayProcess, within } from "../utils/GatewayProcess.ts"
import { type OwnPostgres, startOwnPostgres } from "../utils/OwnPostgres.ts"
import { ADMIN_TOKEN, postChat } from "../utils/TestGateway.ts"
import { startWebhookReceiver } from "../utils/WebhookReceiver.ts"

const REDIS_URL = process.env["TEST_REDIS_URL"] ?? "redis://127.0.0.1:6379"
const ask = { model: "local/echo", messages: [{ role: "user", content: "hello" }] }

const admin = async (gateway: GatewayProcess, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${gateway.url}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: response.status, json: await response.json() as any }
}

/** Polls `check` every 20 ms for up to `ms`; the time it took, or a failure naming what never held. */
const eventually = async (ms: number, what: string, check: () => Promise<boolean>) => {
  const started = Date.now()
  while (Date.now() - started < ms) {
    if (await check()) return Date.now() - started
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`not within ${ms} ms: ${what}`)
}

describe("two gateway processes on one PostgreSQL and one Redis", () => {
  let upstream: FakeUpstream
  let pg: OwnPostgres
  let a: GatewayProcess
  let b: GatewayProcess

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    pg = await startOwnPostgres()
    // `fake/*` priced ($2 input, $8 output per million tokens), for the dollar budgets
    const priced = fakeGatewayEnv(upstream, {
      providers: {
        fake: {
          adapter: "openai-compatible",
          base_url: `${upstream.url}/v1`,
          api_key_env: "FAKE_KEY",
          prices: { "*": { input: 2, output: 8 } }
        }
      }
    })
    const env = { ...priced, DATABASE_URL: pg.url, REDIS_URL, GATEWAY_KEY_CACHE_TTL: "1 minute" }
    a = await startGatewayProcess(upstream, env)
    // the other one as npm start runs it: the bundle, which loads the Redis client on demand
    b = await startGatewayProcess(upstream, env, "dist/main.js")
  }, 90_000)
  afterAll(async () => {
    for (const gateway of [a, b]) {
      gateway?.proc.kill("SIGTERM")
      if (gateway !== undefined) await within(20_000, "exit", gateway.exited).catch(() => gateway.proc.kill("SIGKILL"))
      if (gateway !== undefined) rmSync(gateway.dataDir, { recursive: true, force: true })
    }
    await upstream?.close()
    pg?.destroy()
  })

  it("a key revoked on one instance is refused by the other at once, not after its cache's minute", async () => {
    const created = await admin(a, "POST", `/orgs/${a.orgId}/keys`, { name: "revoked-elsewhere" })
    const key = created.json.key as string
    // cached on B
    expect((await postChat(b.url, ask, { key })).status).toBe(200)
    expect((await admin(a, "DELETE", `/keys/${created.json.id}`)).status).toBe(200)
    const took = await eventually(
      2_000,
      "B refuses the revoked key",
      async () => (await postChat(b.url, ask, { key })).status === 401
    )
    expect(took).toBeLessThan(2_000)
  })

  it("a rate limit holds across both instances (counted in Redis), and is set on B from A at once", async () => {
    const created = await admin(a, "POST", `/orgs/${a.orgId}/keys`, { name: "shared-limit" })
    const key = created.json.key as string
    expect((await postChat(b.url, ask, { key })).status).toBe(200)
    expect((await admin(a, "PATCH", `/keys/${created.json.id}`, { limits: { rpm: 5 } })).status).toBe(200)
    // B hears of the limit through the change feed, despite its cached key
    await eventually(2_000, "B applies the new limit", async () => {
      const response = await postChat(b.url, ask, { key })
      await response.text()
      return response.headers.get("x-ratelimit-limit-requests") === "5"
    })
    const statuses: Array<number> = []
    for (const gateway of [a, b, a, b, a, b]) {
      const response = await postChat(gateway.url, ask, { key })
      await response.text()
      statuses.push(response.status)
    }
    // 5 a minute over both: the one B answered above, then four more, then refusals on either instance
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429])
  })

  it("a daily token budget used up on one instance is refused on the other (one counter in Redis)", async () => {
    const created = await admin(a, "POST", `/orgs/${a.orgId}/keys`, {
      name: "shared-budget",
      limits: { tokens_per_day: 20 }
    })
    const key = created.json.key as string
    const long = {
      ...ask,
      messages: [{ role: "user", content: "one two three four five six seven eight nine ten eleven twelve" }]
    }
    expect((await postChat(b.url, long, { key })).status).toBe(200)
    const refused = await postChat(a.url, ask, { key })
    expect(refused.status).toBe(429)
    expect((await refused.json() as { error: { code: string } }).error.code).toBe("budget_exceeded")
  })
  it("budget alerts across both instances: each threshold crossed is posted once", async () => {
    const hook = await startWebhookReceiver()
    try {
      // each answer costs $0.0028: four of them take a $0.0112 budget through 25, 50, 75 and 100 %
      upstream.handle(() => reply.json(completion({ content: "ok", usage: usage(1000, 100) })))
      const org = await admin(a, "POST", "/orgs", { name: "alerts-across" })
      const url = hook.url
      const set = await admin(b, "PATCH", `/orgs/${org.json.id}`, {
        limits: { usd_per_day: 0.0112 },
        alerts: { webhook_url: url, thresholds: [0.25, 0.5, 0.75, 1] }
      })
      expect(set.status).toBe(200)
      const created = await admin(a, "POST", `/orgs/${org.json.id}/keys`, { name: "alerted" })
      const key = created.json.key as string
      const priced = { ...ask, model: "fake/some-model" }
      const statuses = await Promise.all([a, b, a, b].map(async (gateway) => {
        const response = await postChat(gateway.url, priced, { key })
        await response.text()
        return response.status
      }))
      expect(statuses).toEqual([200, 200, 200, 200])
      await eventually(10_000, "four alerts posted", async () => hook.posted.length >= 4)
      // both instances sweep the same store: give a duplicate every chance to arrive, then count
      await eventually(10_000, "every alert delivered", async () => {
        const listed = await admin(b, "GET", `/orgs/${org.json.id}/alerts`)
        return listed.json.data.length === 4 &&
          listed.json.data.every((alert: { delivery: { status: string } }) => alert.delivery.status === "delivered")
      })
      expect(hook.posted.map((event) => event.body["threshold"]).sort()).toEqual([0.25, 0.5, 0.75, 1])
      expect(new Set(hook.posted.map((event) => event.body["org_id"]))).toEqual(new Set([org.json.id]))
      const refused = await postChat(a.url, priced, { key })
      expect(refused.status).toBe(429)
    } finally {
      await hook.close()
    }
  })
})

describe("GATEWAY_WORKERS", () => {
  let upstream: FakeUpstream
  let pg: OwnPostgres

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    pg = await startOwnPostgres()
  }, 60_000)
  afterAll(async () => {
    await upstream?.close()
    pg?.destroy()
  })

  it("2 workers behind one port answer, and all exit cleanly on SIGTERM", async () => {
    const gateway = await startGatewayProcess(upstream, { DATABASE_URL: pg.url, GATEWAY_WORKERS: "2" })
    try {
      await eventually(
        20_000,
        "both workers listen",
        async () => gateway.output().split("svc-gateway listening on").length - 1 >= 2
      )
      const answered = await Promise.all(
        Array.from(
          { length: 20 },
          () => postChat(gateway.url, ask, { key: gateway.key, headers: { connection: "close" } }).then((r) => r.status)
        )
      )
      expect(answered.every((status) => status === 200)).toBe(true)
    } finally {
      gateway.proc.kill("SIGTERM")
    }
    const exit = await within(30_000, `exit:\n${gateway.output()}`, gateway.exited)
    expect(exit.code, gateway.output()).toBe(0)
    rmSync(gateway.dataDir, { recursive: true, force: true })
  }, 90_000)

  it("without DATABASE_URL, more than one worker is refused with the reason", async () => {
    const started = startGatewayProcess(upstream, { GATEWAY_WORKERS: "2", DATABASE_URL: "" })
    await expect(started).rejects.toThrow(/GATEWAY_WORKERS above 1 needs DATABASE_URL/)
  })
})
