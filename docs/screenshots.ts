/**
 * Takes the README's console screenshots (`npm run screenshots`): a throwaway in-memory gateway with
 * one organization, its keys and shared tools set through the admin API, real requests through
 * `local/echo`, and a day of request-log history so the analytics chart has something to draw. Writes
 * docs/screenshots/*.png. Nothing here outlives the run: the store is in memory, and so is every key.
 */
import { mkdirSync } from "node:fs"
import type { Page } from "playwright-core"
import type { RequestRecord } from "../src/logs/RequestRecord.ts"
import { startConsole } from "../test/browser/ConsoleBrowser.ts"
import { makeRecord } from "../test/utils/RequestLogHarness.ts"
import { postChat } from "../test/utils/TestGateway.ts"

const OUT = new URL("./screenshots/", import.meta.url).pathname
mkdirSync(OUT, { recursive: true })

const c = await startConsole({ GATEWAY_LOG_FLUSH_INTERVAL: "50 millis" })
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

  // a day of history, as the gateway would have logged it, for the chart and the groupings
  const models = ["openai/gpt-4o", "anthropic/claude-sonnet-4", "google/gemini-2.5-flash", "local/echo"]
  const tags = [["prod", "team-search"], ["prod", "team-support"], ["staging"], ["batch"], []]
  const keys = [ci.id, alice.id, batch.id]
  const now = Date.now()
  const history: Array<RequestRecord> = []
  for (let i = 0; i < 600; i++) {
    const hoursAgo = 23 * (i / 600) ** 0.8
    const failed = i % 37 === 0 || (hoursAgo > 9 && hoursAgo < 10 && i % 5 === 0)
    const model = models[(i * 7) % models.length]!
    history.push(makeRecord({
      id: `req_demo_${i}`,
      createdAt: new Date(now - hoursAgo * 3_600_000 - 300_000),
      orgId: org.id,
      keyId: keys[i % keys.length]!,
      requestedModel: model,
      model: failed ? null : model.split("/")[1]!,
      provider: failed ? null : model.split("/")[0]!,
      status: failed ? (i % 2 === 0 ? 502 : 429) : 200,
      errorCode: failed ? (i % 2 === 0 ? "upstream_error" : "rate_limited") : null,
      stream: i % 3 === 0,
      tags: tags[i % tags.length]!,
      promptTokens: failed ? 0 : 200 + ((i * 131) % 1800),
      completionTokens: failed ? 0 : 40 + ((i * 71) % 600),
      cachedTokens: i % 4 === 0 ? 128 : 0,
      reasoningTokens: 0,
      svcTools: i % 11 === 0 ? ["svc_current_time"] : [],
      attempts: failed ? 2 : 1,
      latencyMs: 180 + ((i * 97) % 2400),
      ttftMs: i % 3 === 0 ? 120 + ((i * 13) % 300) : null,
      userAgent: i % 2 === 0 ? "OpenAI/Python 1.99.0" : "opencode/0.9"
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

  await go(`/orgs/${org.id}/analytics?group_by=model`)
  await page.locator(".chart svg").waitFor()
  await shoot(page, "analytics")

  await go("/quick-start")
  await shoot(page, "quick-start")
  await page.context().close()

  const narrow = await c.open({ width: 390 })
  await narrow.goto(`${gw.url}/console#/orgs/${org.id}/keys`)
  await narrow.locator("tbody tr").first().waitFor()
  await shoot(narrow, "api-keys-narrow")
  await narrow.context().close()
} finally {
  await c.close()
}
