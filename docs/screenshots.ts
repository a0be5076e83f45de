/**
 * Takes the README's console screenshots (`npm run screenshots`): a throwaway in-memory gateway with
 * one organization, its keys and shared tools set through the admin API, real requests through
 * `local/echo`, and a day of request-log history so the analytics chart has something to draw. Writes
 * docs/screenshots/*.png. Nothing here outlives the run: the store is in memory, and so is every key.
 */
import { createHash } from "node:crypto"
import { mkdirSync } from "node:fs"
import type { Page } from "playwright-core"
import type { RequestRecord } from "../src/logs/RequestRecord.ts"
import { signIn, startConsole } from "../test/browser/ConsoleBrowser.ts"
import { searchTool, startFakeMcpServer } from "../test/utils/FakeMcpServer.ts"
import { makeRecord } from "../test/utils/RequestLogHarness.ts"
import { postChat } from "../test/utils/TestGateway.ts"

const OUT = new URL("./screenshots/", import.meta.url).pathname
mkdirSync(OUT, { recursive: true })

// an org's own MCP server, its tools shared through the gateway
const docsServer = await startFakeMcpServer({ tools: [searchTool("Searches the team's engineering docs.")] })
const c = await startConsole({
  GATEWAY_LOG_FLUSH_INTERVAL: "50 millis",
  GATEWAY_SECRET_KEY: "a throwaway key for the screenshots' store"
})
try {
  const { gw } = c
  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await gw.admin(method, path, body)
    if (response.status >= 300) throw new Error(`${method} ${path}: ${JSON.stringify(response.json)}`)
    return response.json
  }
  const org = await admin("POST", "/orgs", { name: "Acme" })
  await admin("POST", "/orgs", { name: "Globex Research" })
  await admin("PATCH", `/orgs/${org.id}`, { log_content: true })
  const ci = await admin("POST", `/orgs/${org.id}/keys`, {
    name: "ci-pipeline",
    allowed_svc_tool_ids: ["svc_current_time"]
  })
  const alice = await admin("POST", `/orgs/${org.id}/keys`, { name: "alice-laptop" })
  const nextYear = new Date(Date.now() + 365 * 86_400_000).toISOString()
  const batch = await admin("POST", `/orgs/${org.id}/keys`, { name: "batch-jobs", expires_at: nextYear })
  const old = await admin("POST", `/orgs/${org.id}/keys`, { name: "old-staging" })
  await admin("DELETE", `/keys/${old.id}`)
  await admin("PUT", `/orgs/${org.id}/svc-tools/svc_current_time`, { activated: true, hydrate_org: true })
  await admin("PUT", `/orgs/${org.id}/svc-tools/svc_generate_uuid`, { activated: true, hydrate_key_ids: [alice.id] })
  await admin("POST", `/orgs/${org.id}/mcp-servers`, { name: "docs", url: docsServer.url })

  // the people who run it: an owner, an admin of Acme, a viewer, and one who left
  const person = async (email: string, name: string, roles: ReadonlyArray<{ role: string; org_id?: string }>) => {
    const user = await admin("POST", "/users", { email, name })
    await admin("PUT", `/users/${user.id}/roles`, { roles })
    return user
  }
  const dana = await person("dana@acme.example", "Dana Okafor", [{ role: "owner" }])
  await person("lee@acme.example", "Lee Tanaka", [{ role: "admin", org_id: org.id }])
  await person("sam@acme.example", "Sam Ruiz", [{ role: "viewer", org_id: org.id }])
  const left = await person("kim@acme.example", "Kim Berg", [{ role: "admin", org_id: org.id }])
  await admin("PATCH", `/users/${left.id}`, { disabled: true })
  const danaToken = await admin("POST", `/users/${dana.id}/tokens`, { name: "console" })
  await admin("POST", `/users/${dana.id}/tokens`, { name: "cli on the laptop", expires_at: nextYear })

  // real traffic: answers, a shared tool run, a stream and a refusal
  const ask = (key: string, content: string, tags: string, extra: Record<string, unknown> = {}) =>
    postChat(gw.url, { model: "local/echo", messages: [{ role: "user", content }], ...extra }, {
      key,
      headers: { "x-svc-tags": tags }
    }).then((response) => response.text())
  await ask(alice.key, "Summarise the release notes for 2.4", "team-docs,prod")
  await ask(ci.key, "call svc_current_time {\"timezone\":\"Europe/Paris\"}", "ci,prod")
  await ask(batch.key, "Classify ticket 4411 as bug or question", "team-support,batch", { stream: true })
  await ask(alice.key, "Draft a reply to the customer", "team-support")
  await postChat(gw.url, { model: "openai/gpt-unknown", messages: [{ role: "user", content: "hi" }] }, {
    key: ci.key,
    headers: { "x-svc-tags": "ci" }
  })

  // four weeks of history, as the gateway would have logged it, for the charts and the groupings: the
  // last day hour by hour, the days before at a quieter pace, weekends quieter still
  const models = ["openai/gpt-4o", "anthropic/claude-sonnet-4", "google/gemini-2.5-flash", "local/echo"]
  // dollars per million tokens, input and output: micro-dollars per token
  const prices: Record<string, readonly [number, number]> = {
    "openai/gpt-4o": [2.5, 10],
    "anthropic/claude-sonnet-4": [3, 15],
    "google/gemini-2.5-flash": [0.3, 2.5],
    "local/echo": [0, 0]
  }
  const tags = [["prod", "team-search"], ["prod", "team-support"], ["staging"], ["batch"], []]
  const keys = [ci.id, alice.id, batch.id]
  const now = Date.now()
  const hoursAgo: Array<number> = Array.from({ length: 600 }, (_, i) => 23 * (i / 600) ** 0.8)
  for (let day = 1; day < 28; day++) {
    const perDay = day % 7 === 2 || day % 7 === 3 ? 6 : 30
    for (let j = 0; j < perDay; j++) hoursAgo.push(day * 24 + 8 + (10 * j) / perDay)
  }
  // a Claude Code session spans a couple of hours
  const sessionOf = (hours: number) => {
    const hex = createHash("sha256").update(String(Math.floor(hours / 2.5))).digest("hex")
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`
  }
  const history: Array<RequestRecord> = []
  for (const [i, hours] of hoursAgo.entries()) {
    const failed = i % 37 === 0 || (hours > 9 && hours < 10 && i % 5 === 0)
    const model = models[(i * 7) % models.length]!
    // a quarter of the last day's traffic is Claude Code
    const claudeCode = hours < 24 && i % 4 === 1
    const promptTokens = failed ? 0 : 200 + ((i * 131) % 1800)
    const completionTokens = failed ? 0 : 40 + ((i * 71) % 600)
    const [inPrice, outPrice] = prices[model]!
    const input = Math.round(promptTokens * inPrice)
    const output = Math.round(completionTokens * outPrice)
    history.push(makeRecord({
      id: `req_demo_${i}`,
      createdAt: new Date(now - hours * 3_600_000 - 300_000),
      orgId: org.id,
      keyId: keys[i % keys.length]!,
      requestedModel: model,
      model: failed ? null : model.split("/")[1]!,
      provider: failed ? null : model.split("/")[0]!,
      status: failed ? (i % 2 === 0 ? 502 : 429) : 200,
      errorCode: failed ? (i % 2 === 0 ? "upstream_error" : "rate_limited") : null,
      stream: i % 3 === 0,
      tags: tags[i % tags.length]!,
      promptTokens,
      completionTokens,
      cost: failed ? null : { input, cachedInput: 0, cacheWrite: 0, output, total: input + output },
      sessionId: claudeCode ? sessionOf(hours) : null,
      cachedTokens: i % 4 === 0 ? 128 : 0,
      reasoningTokens: 0,
      svcTools: i % 11 === 0 ? ["svc_current_time"] : [],
      attempts: failed ? 2 : 1,
      latencyMs: 180 + ((i * 97) % 2400),
      ttftMs: i % 3 === 0 ? 120 + ((i * 13) % 300) : null,
      userAgent: claudeCode ? "claude-cli/2.1.0 (external, cli)" : i % 2 === 0 ? "OpenAI/Python 1.99.0" : "opencode/0.9"
    }))
  }
  await gw.record(history)
  await new Promise((resolve) => setTimeout(resolve, 1000))

  const shoot = async (page: Page, name: string) => {
    await page.waitForLoadState("networkidle")
    await page.locator("main h1").first().waitFor()
    await page.screenshot({ path: `${OUT}${name}.png`, fullPage: true })
    console.log(`docs/screenshots/${name}.png`)
  }

  const signInPage = await c.open({ signIn: false })
  await shoot(signInPage, "sign-in")
  await signInPage.context().close()

  const page = await c.open()
  const go = (hash: string) => page.goto(`${gw.url}/console#${hash}`)
  await shoot(page, "organizations")

  await go(`/orgs/${org.id}/keys`)
  await page.getByLabel("Name").fill("bob-laptop")
  await page.getByRole("button", { name: "Create key" }).click()
  await page.getByLabel("The new API key").waitFor()
  await shoot(page, "api-keys")
  await page.getByRole("button", { name: "I have copied the key" }).click()

  await go(`/orgs/${org.id}/tools`)
  await page.locator("form[data-tool-id='svc_current_time'] summary").click()
  await shoot(page, "shared-tools")

  await go(`/orgs/${org.id}/requests`)
  await page.locator("tbody tr").first().waitFor()
  await shoot(page, "requests")

  await go(`/orgs/${org.id}/requests?tag=team-support`)
  await page.locator("tbody tr").first().getByRole("link", { name: /Detail/ }).click()
  await page.locator("dl.detail").waitFor()
  await shoot(page, "request-detail")

  // the last day: hour by hour
  const dayAgo = new Date(now - 24 * 3_600_000).toISOString()
  await go(`/orgs/${org.id}/analytics?group_by=model&from=${encodeURIComponent(dayAgo)}`)
  await page.locator(".chart svg").waitFor()
  await shoot(page, "analytics")

  await go(`/orgs/${org.id}/mcp-servers`)
  await page.locator("article.mcp-server summary").first().click()
  await shoot(page, "mcp-servers")

  await go(`/orgs/${org.id}/sessions`)
  await page.locator("tr[data-session-id]").first().waitFor()
  await shoot(page, "sessions")

  await go(`/orgs/${org.id}/spend`)
  await page.locator("main svg").first().waitFor()
  await shoot(page, "spend")

  await go(`/orgs/${org.id}/audit`)
  await page.locator("main table tbody tr").first().waitFor()
  await shoot(page, "audit")

  await go("/people")
  await page.locator("main table tbody tr").first().waitFor()
  await shoot(page, "people")

  await go("/quick-start")
  await shoot(page, "quick-start")
  await page.context().close()

  const own = await c.open({ signIn: false })
  await signIn(own, danaToken.token)
  await own.goto(`${gw.url}/console#/account`)
  await own.locator("main table tbody tr").first().waitFor()
  await shoot(own, "account")
  await own.context().close()

  const narrow = await c.open({ width: 390 })
  await narrow.goto(`${gw.url}/console#/orgs/${org.id}/keys`)
  await narrow.locator("tbody tr").first().waitFor()
  await shoot(narrow, "api-keys-narrow")
  await narrow.context().close()
} finally {
  await c.close()
  await docsServer.close()
}
