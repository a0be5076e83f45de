/**
 * The console in Chromium, for shared tools and traffic: activating and hydrating a tool for the org
 * makes a request get it without listing it; the request log filters by a tag sent in `x-svc-tags`
 * and opens a request's detail; analytics shows totals, a chart and groups; every page fits a narrow
 * screen and is reachable with the keyboard.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeRecord } from "../utils/RequestLogHarness.ts"
import { ADMIN_TOKEN, postChat } from "../utils/TestGateway.ts"
import { type ConsoleUnderTest, inPage, startConsole } from "./ConsoleBrowser.ts"

const PARIS = "call svc_current_time {\"timezone\":\"Europe/Paris\"}"

describe("console: shared tools, requests and analytics, in Chromium", () => {
  let c: ConsoleUnderTest
  let orgId: string
  let key: string
  let keyId: string
  beforeAll(async () => {
    c = await startConsole()
    ;({ orgId, key, keyId } = await c.gw.newKey())
  })
  afterAll(() => c?.close())

  const ask = (content: string, tags?: string) =>
    postChat(c.gw.url, { model: "local/echo", messages: [{ role: "user", content }] }, {
      key,
      ...(tags === undefined ? {} : { headers: { "x-svc-tags": tags } })
    })

  /** Waits until the request log has `n` rows for the org (it is written in batches, off the request). */
  const logged = async (n: number) =>
    expect.poll(async () => (await c.gw.admin("GET", `/orgs/${orgId}/requests?limit=200`)).json.data.length, {
      timeout: 10_000
    }).toBe(n)

  it("activates a tool and hydrates it for the org: a request that does not list it gets it", async () => {
    const before = (await (await ask(PARIS)).json()) as { choices: Array<{ message: { content: string } }> }
    expect(before.choices[0]?.message.content).toBe(PARIS)

    const page = await c.open()
    await page.goto(`${c.gw.url}/console#/orgs/${orgId}/tools`)
    const card = page.locator("form[data-tool-id='svc_current_time']")
    await card.waitFor()
    expect(await card.textContent()).toContain("not activated")
    await card.getByText("Parameters").click()
    await expect.poll(() => card.locator("table").textContent()).toContain("timezone")

    await card.getByLabel("Activated").check()
    await card.getByLabel("Hydrate for the whole organization").check()
    await card.getByRole("button", { name: "Save svc_current_time" }).click()
    await expect.poll(() => page.getByRole("status").textContent())
      .toBe("svc_current_time: activated, hydrated for the whole organization.")
    await expect.poll(() => card.locator(".badge").textContent()).toBe("activated")

    const after = (await (await ask(PARIS)).json()) as {
      svc_tool_runs?: unknown
      choices: Array<{ message: { content: string } }>
    }
    expect(after.svc_tool_runs).toEqual([{ id: "svc_current_time", outcome: "ok", round: 1 }])
    expect(after.choices[0]?.message.content).toMatch(/"timezone":"Europe\/Paris"/)
    await page.context().close()
  })

  it("hydrates a tool for a chosen key only", async () => {
    const other = await c.gw.admin("POST", `/orgs/${orgId}/keys`, { name: "chosen" })
    const page = await c.open()
    await page.goto(`${c.gw.url}/console#/orgs/${orgId}/tools`)
    const card = page.locator("form[data-tool-id='svc_generate_uuid']")
    await card.getByLabel("Activated").check()
    await card.getByRole("checkbox", { name: /chosen/ }).check()
    await card.getByRole("button", { name: "Save svc_generate_uuid" }).click()
    await expect.poll(() => page.getByRole("status").textContent()).toBe(
      "svc_generate_uuid: activated, hydrated for 1 key(s)."
    )
    const settings = await c.gw.admin("GET", `/orgs/${orgId}/svc-tools`)
    const uuid = settings.json.data.find((s: { id: string }) => s.id === "svc_generate_uuid")
    expect(uuid).toEqual({
      id: "svc_generate_uuid",
      activated: true,
      hydrate_org: false,
      hydrate_key_ids: [other.json.id]
    })
    await page.context().close()
  })

  it("filters the request log by a tag sent in x-svc-tags, and opens a request's detail", async () => {
    const start = (await c.gw.admin("GET", `/orgs/${orgId}/requests?limit=200`)).json.data.length
    await ask("first alpha", "alpha")
    await ask("then beta", "beta")
    await ask("alpha again", "alpha,gamma")
    await logged(start + 3)

    const page = await c.open()
    await page.goto(`${c.gw.url}/console#/orgs/${orgId}/requests`)
    const rows = page.locator("tbody tr[data-request-id]")
    await expect.poll(() => rows.count()).toBe(start + 3)

    await page.getByLabel("Tag").fill("alpha")
    await page.getByRole("button", { name: "Apply filters" }).click()
    await expect.poll(() => rows.count()).toBe(2)
    for (const text of await rows.allTextContents()) expect(text).toContain("alpha")
    expect(page.url()).toContain("tag=alpha")

    // the filter lives in the URL: a reload shows the same rows and the same form
    await page.reload()
    await expect.poll(() => rows.count()).toBe(2)
    expect(await page.getByLabel("Tag").inputValue()).toBe("alpha")

    await rows.first().getByRole("link", { name: /Detail/ }).click()
    await page.getByRole("heading", { level: 1, name: /Request/ }).waitFor()
    const detail = page.locator("dl.detail")
    await expect.poll(() => detail.textContent()).toContain("alpha")
    expect(await detail.textContent()).toContain("gamma")
    expect(await detail.textContent()).toContain("local/echo")
    // local/echo is free: its cost is known, and nothing
    expect(await detail.textContent()).toContain("Cost$0.000000: input $0.000000")
    await page.getByRole("link", { name: "← Back to the requests" }).click()
    await expect.poll(() => rows.count()).toBe(2)

    // a status filter the API refuses comes back as its message, the page stays usable
    await page.goto(`${c.gw.url}/console#/orgs/${orgId}/requests?status=7xx`)
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("status")
    await page.getByRole("button", { name: "Clear" }).click()
    await expect.poll(() => rows.count()).toBe(start + 3)
    await page.context().close()
  })

  it("pages through the log: 50 rows, then older ones on demand, until there are none", async () => {
    const base = Date.now() - 3_600_000
    await c.gw.record(
      Array.from({ length: 55 }, (_, i) =>
        makeRecord({
          id: `req_paged_${orgId}_${i}`,
          createdAt: new Date(base + i * 1000),
          orgId,
          keyId,
          tags: ["paged"]
        }))
    )
    await expect.poll(
      async () => (await c.gw.admin("GET", `/orgs/${orgId}/requests?tag=paged&limit=200`)).json.data.length,
      { timeout: 10_000 }
    ).toBe(55)

    const page = await c.open()
    await page.goto(`${c.gw.url}/console#/orgs/${orgId}/requests?tag=paged`)
    const rows = page.locator("tbody tr[data-request-id]")
    await expect.poll(() => rows.count()).toBe(50)
    expect(await rows.first().getAttribute("data-request-id")).toBe(`req_paged_${orgId}_54`)
    await page.getByRole("button", { name: "Load older requests" }).click()
    await expect.poll(() => rows.count()).toBe(55)
    expect(await rows.last().getAttribute("data-request-id")).toBe(`req_paged_${orgId}_0`)
    expect(await page.getByRole("button", { name: "Load older requests" }).count()).toBe(0)
    await page.context().close()
  })

  it("analytics: totals, a chart over time and figures by tag", async () => {
    const total = (await c.gw.admin("GET", `/orgs/${orgId}/analytics?group_by=none`)).json.data[0].requests as number
    const page = await c.open()
    await page.goto(`${c.gw.url}/console#/orgs/${orgId}/analytics?group_by=tag`)
    await expect.poll(() => page.locator(".totals").textContent()).toContain(`${total} requests`)
    await expect.poll(() => page.locator(".chart svg rect.bar").count()).toBeGreaterThan(0)
    expect(await page.locator(".chart svg").getAttribute("aria-label")).toContain(`${total} requests`)
    const alpha = page.locator("tbody tr", { hasText: "alpha" })
    await expect.poll(() => alpha.locator("td").nth(1).textContent()).toBe("2")

    await page.getByRole("link", { name: "Key", exact: true }).click()
    await expect.poll(() => page.getByRole("heading", { name: "By key" }).count()).toBe(1)
    await expect.poll(() => page.locator("tbody tr", { hasText: "test" }).count()).toBe(1)
    expect(keyId).toMatch(/^key_/)
    await page.context().close()
  })

  it("every page fits a 375 px screen without sideways scrolling of the page", async () => {
    const page = await c.open({ width: 375 })
    for (
      const path of [
        "orgs",
        `orgs/${orgId}/keys`,
        `orgs/${orgId}/tools`,
        `orgs/${orgId}/requests`,
        `orgs/${orgId}/sessions`,
        `orgs/${orgId}/analytics`,
        `orgs/${orgId}/spend`,
        "quick-start"
      ]
    ) {
      await page.goto(`${c.gw.url}/console#/${path}`)
      await page.locator("main h1").waitFor()
      await page.waitForLoadState("networkidle")
      const overflow = await inPage<number>(page, "document.documentElement.scrollWidth - window.innerWidth")
      expect(overflow, path).toBeLessThanOrEqual(0)
    }
    await page.context().close()
  })

  it("a page address entered as the console first appears is followed, not lost before the console listens", async () => {
    const context = await c.browser.newContext()
    // moves to another page the moment the organizations heading is in the DOM: before the console's
    // effects (its hashchange listener among them) have run, which happens after the first paint
    await context.addInitScript(`
      new MutationObserver((_, observer) => {
        if (document.querySelector("h1")?.textContent === "Organizations") {
          observer.disconnect()
          location.hash = "#/quick-start"
        }
      }).observe(document, { subtree: true, childList: true })
    `)
    const page = await context.newPage()
    page.setDefaultTimeout(10_000)
    await page.goto(`${c.gw.url}/console`)
    await signInWithoutWaiting(page)
    await page.getByRole("heading", { level: 1, name: "Quick start" }).waitFor()
    expect(page.url()).toContain("#/quick-start")
    await context.close()
  })

  it("is keyboard reachable: Tab reaches the pages, Enter opens one and focus lands on its heading", async () => {
    const page = await c.open()
    const focusTo = async (name: string) => {
      for (let i = 0; i < 30; i++) {
        await page.keyboard.press("Tab")
        if ((await focusedText(page)) === name) return
      }
      throw new Error(`Tab never reached ${name}`)
    }
    await focusTo("Quick start")
    await page.keyboard.press("Enter")
    await page.getByRole("heading", { level: 1, name: "Quick start" }).waitFor()
    // the link is named "Quick start" too: wait for the heading itself to take the focus
    await expect.poll(() => inPage(page, "document.activeElement?.tagName")).toBe("H1")
    expect(await focusedText(page)).toBe("Quick start")
    expect(await page.locator(".base-url").textContent()).toBe(`${c.gw.url}/v1`)
    await page.context().close()
  })
})

/** Signs in without waiting for the organizations page, which the test moves away from at once. */
const signInWithoutWaiting = async (page: Page) => {
  await page.getByLabel("Admin token").fill(ADMIN_TOKEN)
  await page.getByRole("button", { name: "Sign in" }).click()
}

const focusedText = (page: Page) => inPage<string>(page, "document.activeElement?.textContent?.trim() ?? ''")
