/**
 * Every page of the console, with data on it, checked by axe-core against WCAG 2.1 A and AA (labels,
 * names, contrast, landmarks, ARIA use), at 1280 px and on a phone. A violation fails with its rule,
 * its help text and the elements that break it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postChat } from "../utils/TestGateway.ts"
import { type ConsoleUnderTest, startConsole, violations } from "./ConsoleBrowser.ts"

const SESSION = "0b6f1d2e-5c3a-4f7e-9a1b-2c3d4e5f6a7b"

describe("console: accessibility of every page, in Chromium", () => {
  let c: ConsoleUnderTest
  let orgId: string
  let requestId: string
  beforeAll(async () => {
    c = await startConsole()
    const created = await c.gw.newKey()
    orgId = created.orgId
    // a person with a role, so the People page has a row to show
    const person = await c.gw.admin("POST", "/users", { email: "ada@example.com", name: "Ada" })
    await c.gw.admin("PUT", `/users/${person.json.id}/roles`, { roles: [{ role: "viewer", org_id: orgId }] })
    await c.gw.admin("PUT", `/orgs/${orgId}/svc-tools/svc_current_time`, { activated: true, hydrate_org: true })
    const response = await postChat(c.gw.url, { model: "local/echo", messages: [{ role: "user", content: "hi" }] }, {
      key: created.key,
      // a UUID, as Claude Code sends: the longest session id a page has to fit
      headers: { "x-svc-tags": "a11y", "x-claude-code-session-id": SESSION }
    })
    requestId = response.headers.get("x-svc-request-id") ?? ""
    // the log is written in batches: wait for the row, so the requests pages have one to show
    for (let i = 0; i < 100; i++) {
      if ((await c.gw.admin("GET", `/orgs/${orgId}/requests`)).json.data.length > 0) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  })
  afterAll(() => c?.close())

  const pages = () => [
    "orgs",
    "people",
    "account",
    `orgs/${orgId}/keys`,
    `orgs/${orgId}/tools`,
    `orgs/${orgId}/requests`,
    `orgs/${orgId}/requests/${requestId}`,
    `orgs/${orgId}/sessions`,
    `orgs/${orgId}/sessions/${SESSION}`,
    `orgs/${orgId}/analytics`,
    `orgs/${orgId}/spend`,
    `orgs/${orgId}/mcp-servers`,
    "quick-start"
  ]

  for (const width of [1280, 375]) {
    it(`has no WCAG A/AA violations at ${width} px`, async () => {
      const signIn = await c.open({ signIn: false, bypassCSP: true, width })
      await signIn.getByLabel("Admin token").waitFor()
      expect(await violations(signIn), "sign-in").toEqual([])
      await signIn.context().close()

      const page = await c.open({ bypassCSP: true, width })
      for (const path of pages()) {
        await page.goto(`${c.gw.url}/console#/${path}`)
        await page.locator("main h1").waitFor()
        await page.waitForLoadState("networkidle")
        await expect.poll(() => page.locator("[aria-busy='true']").count()).toBe(0)
        expect(await violations(page), path).toEqual([])
      }
      await page.context().close()
    })
  }

  it("the key's secret panel and the revoke dialog have no violations either", async () => {
    const page = await c.open({ bypassCSP: true })
    await page.goto(`${c.gw.url}/console#/orgs/${orgId}/keys`)
    await page.getByLabel("Name").fill("a11y")
    await page.getByRole("button", { name: "Create key" }).click()
    await page.getByLabel("The new API key").waitFor()
    expect(await violations(page), "secret").toEqual([])
    await page.getByRole("button", { name: "Revoke a11y" }).click()
    await page.getByRole("dialog").waitFor()
    expect(await violations(page), "dialog").toEqual([])
    await page.context().close()
  })
})
