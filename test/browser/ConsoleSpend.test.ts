/**
 * The console's spend page in Chromium, over real priced requests: a fake upstream behind a routing
 * file that prices its models ($2 input, $1 cached input, $8 output per million tokens), one provider
 * without prices, and failed requests. The page shows the gateway's sums in dollars (the total, a
 * model's row, what failed requests cost), counts the unpriced request apart (never as $0), follows a
 * period chosen from its presets, and saves the CSV export with the admin token it cannot put in a link.
 */
import { readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  completion,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  usage
} from "../utils/FakeUpstream.ts"
import { makeRecord } from "../utils/RequestLogHarness.ts"
import { postChat } from "../utils/TestGateway.ts"
import { startWebhookReceiver } from "../utils/WebhookReceiver.ts"
import { type ConsoleUnderTest, startConsole } from "./ConsoleBrowser.ts"

const PRICE = { "*": { input: 2, cached_input: 1, output: 8 } }
const DAY_MS = 86_400_000

describe("console: the spend page, in Chromium", () => {
  let upstream: FakeUpstream
  let c: ConsoleUnderTest
  let orgId: string
  let keyId: string
  let key: string

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    upstream.handle((request) => {
      switch (request.body.model) {
        // 5,000,000 x 2 + 250,000 x 8 micro-dollars: $12.00
        case "big":
          return reply.json(completion({ content: "ok", usage: usage(5_000_000, 250_000) }))
        case "broken":
          return reply.error(500, "the fake upstream is down", { type: "server_error" })
        // 800 x 2 + 200 x 1 + 100 x 8 micro-dollars: $0.0026
        default:
          return reply.json(completion({ content: "ok", usage: usage(1_000, 100, 200) }))
      }
    })
    const base = { adapter: "openai-compatible", base_url: `${upstream.url}/v1`, api_key_env: "FAKE_KEY" }
    c = await startConsole(fakeGatewayEnv(upstream, {
      providers: { fake: { ...base, prices: PRICE }, unpriced: base },
      env: { GATEWAY_LOG_FLUSH_INTERVAL: "20 millis" }
    }))
    ;({ orgId, keyId, key } = await c.gw.newKey())

    const ask = async (model: string, tags: string) => {
      const response = await postChat(c.gw.url, { model, messages: [{ role: "user", content: "price me" }] }, {
        key,
        headers: { "x-svc-tags": tags }
      })
      await response.text()
      return response.status
    }
    expect(await ask("fake/small", "team-a")).toBe(200)
    expect(await ask("fake/small", "team-a")).toBe(200)
    expect(await ask("fake/big", "team-b")).toBe(200)
    expect(await ask("unpriced/mystery", "team-a")).toBe(200)
    // failed before anything was billed: a failed request, of no cost
    expect(await ask("fake/broken", "team-b")).toBeGreaterThanOrEqual(500)
    // a failed request that was billed: a shared-tool loop stopped at its round limit after two priced
    // rounds (2 x 1,000 x 2 micro-dollars), written as the log holds it (test/e2e/Cost.test.ts makes
    // such a failure through the gateway) since this gateway installs no shared tool
    await c.gw.record([makeRecord({
      orgId,
      keyId,
      requestedModel: "fake/loop",
      model: "loop",
      provider: "fake",
      status: 502,
      errorCode: "svc_tool_round_limit",
      tags: ["team-b"],
      cost: { input: 4_000, cachedInput: 0, cacheWrite: 0, output: 0, total: 4_000 }
    })])
    await logged("", 6)
  })
  afterAll(async () => {
    await c?.close()
    await upstream?.close()
  })

  /** Waits until the log holds `n` of the org's rows matching `filter` (it is written in batches). */
  const logged = async (filter: string, n: number) => {
    const deadline = Date.now() + 10_000
    const count = async () =>
      (await c.gw.admin("GET", `/orgs/${orgId}/analytics?group_by=none${filter}`)).json.data[0]?.requests ?? 0
    while ((await count()) !== n) {
      if (Date.now() > deadline) throw new Error(`the log never held ${n} rows matching '${filter}'`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  const figure = (page: Awaited<ReturnType<ConsoleUnderTest["open"]>>, name: string) =>
    page.locator(`[data-figure='${name}'] .figure`).textContent()

  it("shows the period's total, requests, unpriced requests, failed requests' cost, and the top models", async () => {
    const page = await c.open()
    await page.goto(`${c.gw.url}/console#/orgs/${orgId}/spend`)
    await page.getByRole("heading", { level: 1, name: /Spend/ }).waitFor()

    // $0.0052 + $12.00 + the failed loop's two rounds ($0.004), summed by the gateway: $12.0092
    await expect.poll(() => figure(page, "total")).toBe("$12.01")
    expect(await page.locator("[data-figure='total'] data").getAttribute("value")).toBe("12.009200")
    expect(await figure(page, "requests")).toBe("6")
    expect(await figure(page, "unpriced")).toBe("1")
    expect(await figure(page, "failed")).toBe("$0.004")
    expect(await page.locator("[data-figure='failed']").textContent()).toContain(
      "(2 answered with a status of 400 or above"
    )

    const models = page.getByRole("region", { name: "Top models" })
    const cells = (model: string) => models.getByRole("row", { name: new RegExp(`^${model} `) }).getByRole("cell")
    await expect.poll(() => cells("fake/big").allTextContents()).toEqual(["$12.00", "1", "0"])
    expect(await cells("fake/small").allTextContents()).toEqual(["$0.0052", "2", "0"])
    // a model without a price: its cost is unknown, not $0
    expect(await cells("unpriced/mystery").allTextContents()).toEqual(["unknown", "1", "1"])
    // most spent first
    expect(await models.locator("tbody th").first().textContent()).toBe("fake/big")

    const tags = page.getByRole("region", { name: "Top tags" })
    expect(await tags.locator("tbody tr").first().textContent()).toContain("team-b$12.00")
    const keys = page.getByRole("region", { name: "Top keys" })
    // the key's name comes with the org's keys, loaded apart from the spend
    await expect.poll(() => keys.locator("tbody tr").first().textContent()).toMatch(/^test \(sk-svc-.*\)\$12\.01/)

    // one bar per day of the last 30, all of today's spend on the last one
    expect(await page.locator(".chart svg rect.bar").count()).toBe(30)
    expect(await page.locator(".chart svg").getAttribute("aria-label")).toContain("at most $12.01 in one day")
    await page.context().close()
  })

  it("follows a period chosen from the presets: an older request appears in the last 90 days", async () => {
    const old = new Date(Date.now() - 40 * DAY_MS)
    await c.gw.record([makeRecord({
      orgId,
      keyId,
      createdAt: old,
      requestedModel: "fake/old",
      model: "old",
      provider: "fake",
      tags: ["archive"],
      cost: { input: 5_000_000, cachedInput: 0, cacheWrite: 0, output: 0, total: 5_000_000 }
    })])
    await logged("&tag=archive", 1)

    const page = await c.open()
    await page.goto(`${c.gw.url}/console#/orgs/${orgId}/spend`)
    await expect.poll(() => figure(page, "total")).toBe("$12.01")
    await page.getByRole("link", { name: "Last 90 days" }).click()
    await expect.poll(() => figure(page, "total")).toBe("$17.01")
    expect(await figure(page, "requests")).toBe("7")
    expect(page.url()).toMatch(/from=\d{4}-\d{2}-\d{2}&to=\d{4}-\d{2}-\d{2}/)
    expect(await page.getByRole("link", { name: "Last 90 days" }).getAttribute("aria-current")).toBe("true")

    // the same old day by hand: its first and last day
    const day = old.toISOString().slice(0, 10)
    await page.getByLabel("First day (UTC)").fill(day)
    await page.getByLabel("Last day (UTC)").fill(day)
    await page.getByRole("button", { name: "Show period" }).click()
    await expect.poll(() => figure(page, "total")).toBe("$5.00")
    expect(await page.getByRole("heading", { level: 2, name: `${day} (UTC)` }).count()).toBe(1)

    // a last day before the first is refused where it was typed
    await page.getByLabel("First day (UTC)").fill(day)
    await page.getByLabel("Last day (UTC)").fill(new Date(old.getTime() - DAY_MS).toISOString().slice(0, 10))
    await page.getByRole("button", { name: "Show period" }).click()
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("The last day comes before the first.")

    // an address naming a period the page cannot show says so, and shows the default
    await page.goto(`${c.gw.url}/console#/orgs/${orgId}/spend?from=2026-02-30&to=2026-03-01`)
    await expect.poll(() => page.getByRole("status").first().textContent()).toContain("the last 30 days are shown")
    await expect.poll(() => figure(page, "total")).toBe("$12.01")
    await page.context().close()
  })

  it("saves the CSV export, fetched with the admin token, for the period on the page", async () => {
    const page = await c.open()
    await page.goto(`${c.gw.url}/console#/orgs/${orgId}/spend`)
    await expect.poll(() => figure(page, "total")).toBe("$12.01")
    await page.getByLabel("CSV rows").selectOption("model")
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download CSV" }).click()
    ])
    expect(download.suggestedFilename()).toMatch(
      new RegExp(`^spend-${orgId}-\\d{4}-\\d{2}-\\d{2}-to-\\d{4}-\\d{2}-\\d{2}-by-model\\.csv$`)
    )
    const csv = readFileSync(await download.path(), "utf8").split("\r\n")
    expect(csv[0]).toBe("day,model,requests,unpriced_requests,prompt_tokens,completion_tokens,cost_usd")
    expect(csv.filter((line) => /^\d{4}-\d{2}-\d{2},fake\/big,1,0,5000000,250000,12\.000000$/.test(line)))
      .toHaveLength(1)
    expect(csv.some((line) => line.includes("fake/old"))).toBe(false)
    await expect.poll(() => page.getByRole("status").first().textContent()).toBe(
      `Saved ${download.suggestedFilename()}.`
    )
    await page.context().close()
  })
  it("sets the org's budget alerts, and lists an alert with its delivery once spend crosses a share", async () => {
    const hook = await startWebhookReceiver()
    const url = hook.url
    try {
      const alerted = await c.gw.newKey()
      const page = await c.open()
      await page.goto(`${c.gw.url}/console#/orgs/${alerted.orgId}/spend`)
      await page.getByRole("heading", { level: 2, name: "Budget alerts" }).waitFor()
      await expect.poll(() => page.getByText("No budget alert yet.").count()).toBe(1)
      await page.getByLabel("Webhook URL").fill(url)
      await page.getByLabel("At (% of the budget)").fill("50, 100%")
      await page.getByRole("button", { name: "Save alerts" }).click()
      await expect.poll(() => page.getByRole("status").first().textContent()).toBe(
        `Budget alerts at 50 %, 100 % go to ${url}.`
      )
      expect((await c.gw.admin("GET", `/orgs/${alerted.orgId}`)).json.alerts).toEqual({
        webhook_url: url,
        thresholds: [0.5, 1]
      })
      // a share the page refuses before sending anything
      await page.getByLabel("At (% of the budget)").fill("50, 120")
      await page.getByRole("button", { name: "Save alerts" }).click()
      await expect.poll(() => page.getByRole("alert").first().textContent()).toBe(
        "Each percentage must be above 0 and at most 100."
      )

      // $0.0026 of a $0.005 day: over half
      await c.gw.admin("PATCH", `/orgs/${alerted.orgId}`, { limits: { usd_per_day: 0.005 } })
      const response = await postChat(c.gw.url, { model: "fake/small", messages: [{ role: "user", content: "hi" }] }, {
        key: alerted.key
      })
      expect(response.status).toBe(200)
      await expect.poll(() => hook.posted.length).toBe(1)
      await expect.poll(async () => {
        const listed = await c.gw.admin("GET", `/orgs/${alerted.orgId}/alerts`)
        return listed.json.data[0]?.delivery.status
      }).toBe("delivered")
      await page.reload()
      const row = page.getByRole("region", { name: "Budget alerts" }).locator("tbody tr")
      await expect.poll(() => row.locator("td").allTextContents()).toEqual([
        expect.any(String),
        "the organization",
        "day",
        "50 %",
        "$0.0026",
        "$0.005",
        "delivered"
      ])
      await page.getByRole("button", { name: "Turn alerts off" }).click()
      await expect.poll(() => page.getByRole("status").first().textContent()).toBe("Budget alerts are off.")
      expect((await c.gw.admin("GET", `/orgs/${alerted.orgId}`)).json.alerts).toBeNull()
      await page.context().close()
    } finally {
      await hook.close()
    }
  })
})
