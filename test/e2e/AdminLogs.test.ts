/**
 * The request-log admin routes over real sockets: the admin token guard, the org's `log_content`
 * opt-in, listing with every filter through the query string, cursor walks, detail, analytics, 404s for
 * unknown orgs and other orgs' requests, and a 400 naming the parameter for every bad one.
 *
 * The server is the gateway's services and the admin API alone, composed here as `src/App.ts`
 * composes `HttpApp`.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { ConfigProvider, Effect, Layer, ManagedRuntime } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AppServices } from "../../src/App.ts"
import { GatewayConfig } from "../../src/Config.ts"
import { AdminApiRoutes } from "../../src/http/AdminApiLive.ts"
import { Orgs } from "../../src/orgs/Orgs.ts"
import { expectedOrder, insertRows, OTHER_ORG_SEED, pagingSeed, SEED } from "../logs/QueriesSeed.ts"
import { ADMIN_TOKEN, expectError, testEnv } from "../utils/TestGateway.ts"

const settings = testEnv()
const ServerLive = HttpRouter.serve(AdminApiRoutes, {
  disableLogger: true,
  disableListenLog: true
}).pipe(
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
  Layer.provideMerge(AppServices),
  Layer.provideMerge(GatewayConfig.layerFrom(settings)),
  Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(settings)))
)

const runtime = ManagedRuntime.make(ServerLive)
let url = ""

const call = async (method: string, path: string, options: { body?: unknown; token?: string | null } = {}) => {
  const token = options.token === undefined ? ADMIN_TOKEN : options.token
  return fetch(`${url}/admin/v1${path}`, {
    method,
    headers: {
      "content-type": "application/json",
      ...(token === null ? {} : { authorization: `Bearer ${token}` })
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) })
  })
}

const json = async (method: string, path: string, body?: unknown) => {
  const response = await call(method, path, body === undefined ? {} : { body })
  const text = await response.text()
  expect(response.status, text).toBe(200)
  return JSON.parse(text)
}

const newOrg = () => runtime.runPromise(Effect.flatMap(Effect.service(Orgs), (orgs) => orgs.create("logs e2e")))

let org = ""
let other = ""
let paging = ""
const id = (n: number) => `${org}-r${n}`
const idsOf = async (query: string): Promise<ReadonlyArray<string>> => {
  const page = await json("GET", `/orgs/${org}/requests?${query}`)
  return page.data.map((entry: { id: string }) => entry.id)
}

beforeAll(async () => {
  const address = await runtime.runPromise(Effect.map(Effect.service(HttpServer.HttpServer), (s) => s.address))
  if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
  url = `http://127.0.0.1:${address.port}`
  org = (await newOrg()).id
  other = (await newOrg()).id
  paging = (await newOrg()).id
  await runtime.runPromise(
    Effect.all([insertRows(org, SEED), insertRows(other, OTHER_ORG_SEED), insertRows(paging, pagingSeed(23))])
  )
})
afterAll(() => runtime.dispose())

describe("request log admin API", () => {
  it("every route needs the admin token", async () => {
    const routes: ReadonlyArray<readonly [string, string, unknown?]> = [
      ["GET", `/orgs/${org}/requests`],
      ["GET", `/orgs/${org}/requests/${id(1)}`],
      ["GET", `/orgs/${org}/analytics?group_by=tag`],
      ["PATCH", `/orgs/${org}`, { log_content: true }]
    ]
    for (const [method, path, body] of routes) {
      for (const token of [null, "wrong-token"]) {
        await expectError(await call(method, path, { body, token }), 401, { code: "invalid_admin_token" })
      }
    }
    expect((await json("GET", `/orgs/${org}`)).log_content).toBe(false)
  })

  it("PATCH /orgs/{id} turns log_content on and off", async () => {
    const on = await json("PATCH", `/orgs/${org}`, { log_content: true })
    expect(on).toEqual({
      id: org,
      name: "logs e2e",
      created_at: expect.any(String),
      log_content: true,
      compression: null,
      limits: {
        rpm: null,
        tpm: null,
        tokens_per_day: null,
        tokens_per_month: null,
        usd_per_day: null,
        usd_per_month: null
      },
      alerts: null
    })
    expect((await json("GET", `/orgs/${org}`)).log_content).toBe(true)
    expect((await json("PATCH", `/orgs/${org}`, { log_content: false })).log_content).toBe(false)
    expect((await json("GET", "/orgs")).data.find((o: { id: string }) => o.id === org).log_content).toBe(false)
  })

  it("PATCH /orgs/{id} sets the compression level, null going back to the gateway's, leaving log_content", async () => {
    const set = await json("PATCH", `/orgs/${org}`, { compression: "shadow" })
    expect([set.compression, set.log_content]).toEqual(["shadow", false])
    expect((await json("GET", `/orgs/${org}`)).compression).toBe("shadow")
    const both = await json("PATCH", `/orgs/${org}`, { compression: "aggressive", log_content: true })
    expect([both.compression, both.log_content]).toEqual(["aggressive", true])
    expect((await json("PATCH", `/orgs/${org}`, { compression: null, log_content: false })).compression).toBeNull()
  })

  it("PATCH refuses bad bodies and unknown orgs", async () => {
    await expectError(await call("PATCH", `/orgs/${org}`, { body: { log_content: "yes" } }), 400, {
      param: "log_content"
    })
    await expectError(await call("PATCH", `/orgs/${org}`, { body: { compression: "max" } }), 400, {
      param: "compression"
    })
    await expectError(await call("PATCH", `/orgs/${org}`, { body: {} }), 400, { param: "body" })
    await expectError(await call("PATCH", "/orgs/org_missing", { body: { log_content: true } }), 404, {
      code: "not_found"
    })
  })

  it("lists newest first with every filter from the query string", async () => {
    const page = await json("GET", `/orgs/${org}/requests`)
    expect(Object.keys(page)).toEqual(["object", "data", "next_cursor"])
    expect(page.object).toBe("list")
    expect(page.next_cursor).toBeNull()
    expect(page.data.map((e: { id: string }) => e.id)).toEqual([8, 7, 6, 5, 4, 3, 2, 1].map(id))
    expect(page.data[0].prompt_text).toBe("hello")
    expect(page.data[1]).not.toHaveProperty("prompt_text")
    expect(page.data[1].created_at).toBe("2026-03-04T00:00:00.000Z")

    expect(await idsOf("tag=prod&tag=dev")).toEqual([6, 4, 3, 2, 1].map(id))
    expect(await idsOf("tag=batch&tag=chat&tag_mode=all")).toEqual([id(8)])
    expect(await idsOf("model=openai%2Fgpt-4o")).toEqual([5, 2, 1].map(id))
    expect(await idsOf("key_id=key_b")).toEqual([4, 3].map(id))
    expect(await idsOf("status=4xx")).toEqual([7, 3].map(id))
    expect(await idsOf("status=error")).toEqual([7, 5, 3].map(id))
    expect(await idsOf("status=200&tag=chat")).toEqual([8, 4, 1].map(id))
    expect(await idsOf("from=2026-03-02&to=2026-03-04T00:00:00Z")).toEqual([6, 5, 4, 3].map(id))
    expect(await idsOf("from=2026-03-04T01:00:00%2B01:00")).toEqual([8, 7].map(id))
  })

  it("a cursor walk visits every row once, in order", async () => {
    const seen: Array<string> = []
    let cursor: string | null = null
    for (let i = 0; i < 50; i++) {
      const query: string = cursor === null ? "limit=4" : `limit=4&cursor=${cursor}`
      const page = await json("GET", `/orgs/${paging}/requests?${query}`)
      seen.push(...page.data.map((e: { id: string }) => e.id))
      cursor = page.next_cursor
      if (cursor === null) break
    }
    expect(seen).toEqual(expectedOrder(paging, pagingSeed(23)))
  })

  it("detail of one request; another org's or a missing one is 404", async () => {
    const eight = await json("GET", `/orgs/${org}/requests/${id(8)}`)
    expect(eight).toMatchObject({
      id: id(8),
      key_id: "key_c",
      status: 200,
      prompt_text: "hello",
      completion_text: "world"
    })
    await expectError(await call("GET", `/orgs/${org}/requests/${other}-r1`), 404, { code: "not_found" })
    await expectError(await call("GET", `/orgs/${other}/requests/${id(1)}`), 404, { code: "not_found" })
    await expectError(await call("GET", `/orgs/${org}/requests/nope`), 404, { code: "not_found" })
  })

  it("analytics per group, filtered like the list", async () => {
    const byStatus = await json("GET", `/orgs/${org}/analytics?group_by=status`)
    expect(byStatus.object).toBe("list")
    expect(byStatus.group_by).toBe("status")
    expect(byStatus.has_more).toBe(false)
    expect(byStatus.data[0]).toEqual({
      group: "200",
      requests: 5,
      errors: 0,
      prompt_tokens: 650,
      completion_tokens: 420,
      cached_tokens: 110,
      reasoning_tokens: 70,
      total_tokens: 1070,
      prompt_tokens_saved: 0,
      prompt_tokens_saved_net: 0,
      shadow_tokens_saved_safe: 0,
      shadow_tokens_saved_aggressive: 0,
      // the seed rows have no cost: answered without a known price
      cost_usd: 0,
      unpriced_requests: 5,
      compression_saved_usd: 0,
      p50_latency_ms: 100,
      p95_latency_ms: 360
    })
    expect(byStatus.data.map((g: { group: string }) => g.group)).toEqual(["200", "404", "429", "502"])
    const byTag = await json("GET", `/orgs/${org}/analytics?group_by=tag&key_id=key_b`)
    expect(byTag.data.map((g: { group: string; requests: number }) => [g.group, g.requests])).toEqual([["dev", 2], [
      "chat",
      1
    ]])
    const byDay = await json("GET", `/orgs/${org}/analytics?group_by=day&from=2026-03-03&to=2026-03-05`)
    expect(byDay.data.map((g: { group: string; requests: number }) => [g.group, g.requests])).toEqual([
      ["2026-03-03", 1],
      ["2026-03-04", 2]
    ])
  })

  it("spend per day and group, as JSON and as a CSV download; a bad group_by is a 400", async () => {
    const report = await json("GET", `/orgs/${org}/spend?group_by=model&from=2026-03-01&to=2026-03-02`)
    expect(report).toMatchObject({ object: "list", group_by: "model", has_more: false })
    expect(report.data.map((row: { day: string; group: string }) => [row.day, row.group])).toEqual([
      ["2026-03-01", "openai/gpt-4o"]
    ])
    const csv = await call("GET", `/orgs/${org}/spend.csv?group_by=model&from=2026-03-01&to=2026-03-02`)
    expect(csv.status).toBe(200)
    expect(csv.headers.get("content-type")).toContain("text/csv")
    expect(csv.headers.get("content-disposition")).toBe("attachment; filename=\"spend-model.csv\"")
    expect(await csv.text()).toBe(
      "day,model,requests,unpriced_requests,prompt_tokens,completion_tokens,cost_usd\r\n" +
        "2026-03-01,openai/gpt-4o,2,2,300,150,0.000000\r\n"
    )
    await expectError(await call("GET", `/orgs/${org}/spend.csv?group_by=week`), 400, { param: "group_by" })
  })

  it("an unknown org is 404 on every read", async () => {
    for (
      const path of [
        "/orgs/org_missing/requests",
        "/orgs/org_missing/analytics?group_by=key",
        "/orgs/org_missing/spend?group_by=key",
        "/orgs/org_missing/spend.csv?group_by=key"
      ]
    ) {
      await expectError(await call("GET", path), 404, { code: "not_found" })
    }
  })

  const bad: ReadonlyArray<readonly [string, string, string?]> = [
    ["requests?limit=0", "limit"],
    ["requests?limit=500", "limit"],
    ["requests?limit=1&limit=2", "limit"],
    ["requests?cursor=garbage!", "cursor"],
    ["requests?status=299x", "status"],
    ["requests?tag_mode=most", "tag_mode"],
    ["requests?tag=", "tag"],
    ["requests?from=last-week", "from"],
    ["requests?from=2026-03-01T10:00:00", "from"],
    ["requests?to=2026-02-30", "to"],
    ["requests?from=2026-03-02&to=2026-03-01", "to"],
    ["requests?sort=asc", "sort", "unknown_parameter"],
    ["analytics", "group_by", "missing_required_parameter"],
    ["analytics?group_by=week", "group_by"],
    ["analytics?group_by=day&cursor=abc", "cursor", "unknown_parameter"],
    ["analytics?group_by=day&status=teapot", "status"]
  ]
  for (const [query, param, code] of bad) {
    it(`400 naming '${param}' for ${query}`, async () => {
      const error = await expectError(await call("GET", `/orgs/${org}/${query}`), 400, {
        type: "invalid_request_error",
        param,
        code: code ?? "invalid_value"
      })
      expect(error.message).toContain(`'${param}'`)
    })
  }
})
