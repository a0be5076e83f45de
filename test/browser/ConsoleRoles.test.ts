/**
 * The console signed in with personal access tokens, in Chromium: Ana (admin of team A) and Vic
 * (viewer of A), made through the admin API. Each sees who she is signed in as; Vic reads A's keys,
 * tools and alerts without a control that changes them and has no audit log; Ana creates a key and
 * finds her change, with her email, on A's audit page, filters it and opens its values. Neither may
 * create an organization. A role taken away under an open page: the API's 403 shows plainly; a personal
 * token refused or revoked: the API's reason. The audit page passes axe-core's WCAG 2.1 A/AA checks and
 * fits a 375 px screen.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type ConsoleUnderTest,
  inPage,
  makePerson,
  type Person,
  signIn,
  startConsole,
  violations
} from "./ConsoleBrowser.ts"

describe("console: what each role sees, in Chromium", () => {
  let c: ConsoleUnderTest
  let orgA: string
  let orgB: string
  let keyId: string
  let ana: Person
  let vic: Person
  const suffix = Math.random().toString(36).slice(2, 8)
  const teamA = `Team A ${suffix}`

  const person = (name: string, roles: ReadonlyArray<{ role: string; org_id: string }>) =>
    makePerson(c.gw, name, suffix, roles)

  beforeAll(async () => {
    c = await startConsole()
    orgA = (await c.gw.admin("POST", "/orgs", { name: teamA })).json.id
    orgB = (await c.gw.admin("POST", "/orgs", { name: `Team B ${suffix}` })).json.id
    keyId = (await c.gw.admin("POST", `/orgs/${orgA}/keys`, { name: "made by the owner" })).json.id
    ana = await person("Ana", [{ role: "admin", org_id: orgA }])
    vic = await person("Vic", [{ role: "viewer", org_id: orgA }])
  })
  afterAll(() => c?.close())

  const openAs = async (token: string, width?: number) => {
    const page = await c.open({ signIn: false, bypassCSP: true, ...(width === undefined ? {} : { width }) })
    await signIn(page, token)
    return page
  }
  const go = async (page: Page, path: string, heading: string | RegExp) => {
    await page.goto(`${c.gw.url}/console#/${path}`)
    await page.getByRole("heading", { level: 1, name: heading }).waitFor()
  }
  const who = (page: Page) => page.locator("header .who").textContent()
  const pages = (page: Page) => page.getByRole("navigation", { name: "Pages" }).getByRole("link").allTextContents()

  it("the admin token is shown as such, with every page and control of an owner", async () => {
    const page = await c.open()
    expect(await who(page)).toBe("Signed in as admin token: owner")
    expect(await pages(page)).toContain("Audit log")
    expect(await page.getByRole("button", { name: "Create organization" }).count()).toBe(1)
    expect(await page.getByRole("heading", { name: "Circuit breakers" }).count()).toBe(1)
    await page.context().close()
  })

  it("Vic, a viewer of A, reads its keys, tools and alerts with no control that changes them", async () => {
    const page = await openAs(vic.token)
    expect(await who(page)).toBe(`Signed in as Vic (${vic.email}): viewer of ${teamA}`)
    // only her organization, no creating one, nothing gateway-wide, no audit log
    await expect.poll(() => page.locator("main tbody tr").allTextContents()).toEqual([expect.stringContaining(teamA)])
    expect(await page.getByText(`Team B ${suffix}`).count()).toBe(0)
    expect(await page.getByRole("button", { name: "Create organization" }).count()).toBe(0)
    expect(await page.getByLabel("Name").count()).toBe(0)
    expect(await page.getByRole("heading", { name: "Circuit breakers" }).count()).toBe(0)
    expect(await page.getByRole("checkbox", { name: `Store prompt and completion text for ${teamA}` }).count()).toBe(0)
    expect(await page.getByRole("combobox", { name: `Compression for ${teamA}` }).count()).toBe(0)
    expect(await pages(page)).not.toContain("Audit log")

    await page.getByRole("link", { name: "API keys" }).first().click()
    await page.getByRole("heading", { level: 1, name: /API keys/ }).waitFor()
    await page.locator(`tr[data-key-id='${keyId}']`).waitFor()
    expect(await page.locator(`tr[data-key-id='${keyId}'] td`).first().textContent()).toBe("made by the owner")
    expect(await page.locator(".read-only").textContent()).toContain(`you are a viewer of ${teamA}`)
    for (const name of ["Create key", /Revoke/, /Edit tools/]) {
      expect(await page.getByRole("button", { name }).count(), String(name)).toBe(0)
    }
    expect(await page.getByLabel("Name").count()).toBe(0)
    // limits as text, not a form that opens
    expect(await page.locator("details.limits").count()).toBe(0)
    expect(await pages(page)).not.toContain("Audit log")

    await go(page, `orgs/${orgA}/tools`, /Shared tools/)
    const tool = page.locator("form[data-tool-id='svc_current_time']")
    await tool.waitFor()
    expect(await tool.getByRole("checkbox", { name: "Activated" }).isDisabled()).toBe(true)
    expect(await page.getByRole("button", { name: /^Save / }).count()).toBe(0)

    await go(page, `orgs/${orgA}/spend`, /Spend/)
    await page.locator("[data-alerts='settings']").waitFor()
    expect(await page.locator("[data-alerts='settings']").textContent()).toBe("Budget alerts are off.")
    expect(await page.getByRole("button", { name: "Save alerts" }).count()).toBe(0)

    // the audit page by its address: said plainly, nothing loaded
    await go(page, `orgs/${orgA}/audit`, /Audit log/)
    expect(await page.locator("main").textContent()).toContain("is for its admins and the gateway's owners")
    expect(await page.locator("main table").count()).toBe(0)

    // another organization's pages: not hers to see
    await go(page, `orgs/${orgB}/keys`, "No such organization")
    expect(await page.locator("main p").textContent()).toContain(
      `You have no role in an organization with the id ${orgB}.`
    )
    await page.context().close()
  })

  it("Ana, an admin of A, creates a key and finds it on A's audit page with her email", async () => {
    const page = await openAs(ana.token)
    expect(await who(page)).toBe(`Signed in as Ana (${ana.email}): admin of ${teamA}`)
    expect(await page.getByRole("button", { name: "Create organization" }).count()).toBe(0)
    expect(await page.getByRole("heading", { name: "Circuit breakers" }).count()).toBe(0)
    // her organization's settings are hers to change
    await page.getByRole("checkbox", { name: `Store prompt and completion text for ${teamA}` }).waitFor()
    expect(await pages(page)).toContain("Audit log")

    await go(page, `orgs/${orgA}/keys`, /API keys/)
    expect(await page.locator(".read-only").count()).toBe(0)
    await page.locator(`tr[data-key-id='${keyId}']`).getByRole("button", { name: /Revoke/ }).waitFor()
    await page.getByLabel("Name").fill("ana's key")
    await page.getByRole("button", { name: "Create key" }).click()
    await page.getByLabel("The new API key").waitFor()
    await page.getByRole("button", { name: "I have copied the key" }).click()
    const made = (await c.gw.admin("GET", `/orgs/${orgA}/keys`)).json.data.find((k: any) => k.name === "ana's key")
    expect(made).toBeDefined()

    await page.getByRole("link", { name: "Audit log" }).click()
    await page.getByRole("heading", { level: 1, name: `Audit log of ${teamA}` }).waitFor()
    expect(page.url()).toContain(`#/orgs/${orgA}/audit`)
    const row = page.locator(`tbody tr[data-action='key.create']`).filter({ hasText: ana.email })
    await row.waitFor()
    expect(await row.locator("[data-cell='actor']").textContent()).toBe(ana.email)
    expect(await row.locator("[data-cell='change']").textContent()).toBe("created 'ana's key'")
    expect(await row.locator("td").nth(3).textContent()).toContain(made.id)
    // newest first: her key is the latest change; the org's creation by the admin token the first
    const actions = () =>
      page.locator("tbody tr[data-audit-id]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-action")))
    expect((await actions())[0]).toBe("key.create")
    expect((await actions()).at(-1)).toBe("org.create")
    expect(await page.locator("tr[data-action='org.create'] [data-cell='actor']").textContent()).toBe("admin token")

    // its detail: the values before (none) and after, as JSON
    const detail = row.getByRole("button", { name: /Detail/ })
    await detail.click()
    expect(await row.getByRole("button", { name: /Hide/ }).getAttribute("aria-expanded")).toBe("true")
    const opened = page.locator("tr.audit-detail")
    expect(await opened.locator("[data-values='before']").textContent()).toBe("(none)")
    const after = JSON.parse((await opened.locator("[data-values='after']").textContent()) ?? "")
    expect(after).toMatchObject({ id: made.id, name: "ana's key", org_id: orgA, revoked_at: null })
    // never the key's secret, which the API's answer carried
    expect(after).not.toHaveProperty("key")

    // filtered by action, then by actor: the filters live in the URL
    await page.getByLabel("Action").selectOption("key.create")
    await page.getByRole("button", { name: "Apply filters" }).click()
    await expect.poll(() => actions()).toEqual(["key.create", "key.create"])
    expect(page.url()).toContain("action=key.create")
    await page.getByLabel("Actor").fill(ana.email)
    await page.getByRole("button", { name: "Apply filters" }).click()
    await expect.poll(() => actions()).toEqual(["key.create"])
    expect(await page.locator("[data-cell='actor']").allTextContents()).toEqual([ana.email])
    await page.getByLabel("Actor").fill("admin_token")
    await page.getByRole("button", { name: "Apply filters" }).click()
    await expect.poll(() => page.locator("[data-cell='actor']").allTextContents()).toEqual(["admin token"])
    await page.getByRole("button", { name: "Clear" }).click()
    await expect.poll(async () => (await actions()).length).toBeGreaterThanOrEqual(3)
    await page.context().close()
  })

  it("a role taken away under an open page: the API's 403 shows plainly", async () => {
    const ada = await person("Ada", [{ role: "admin", org_id: orgA }])
    const page = await openAs(ada.token)
    await go(page, `orgs/${orgA}/keys`, /API keys/)
    await page.getByLabel("Name").fill("too late")
    expect((await c.gw.admin("PUT", `/users/${ada.id}/roles`, { roles: [{ role: "viewer", org_id: orgA }] })).status)
      .toBe(200)
    await page.getByRole("button", { name: "Create key" }).click()
    await expect.poll(() => page.getByRole("alert").textContent())
      .toBe(`${ada.email} is not an admin of organization '${orgA}'; this needs the admin role.`)
    expect(await page.getByLabel("Name").inputValue()).toBe("too late")
    await page.context().close()
  })

  it("a personal token refused at sign-in, or revoked under the page, is refused in the API's words", async () => {
    const page = await c.open({ signIn: false })
    await page.getByLabel("Admin token").fill("pat-svc-not-a-token")
    await page.getByRole("button", { name: "Sign in" }).click()
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/^The personal access token is not valid/)
    expect(await inPage(page, "sessionStorage.length")).toBe(0)

    const eve = await person("Eve", [{ role: "viewer", org_id: orgA }])
    await signIn(page, eve.token)
    expect(await who(page)).toBe(`Signed in as Eve (${eve.email}): viewer of ${teamA}`)
    expect((await c.gw.admin("DELETE", `/users/${eve.id}/tokens/${eve.tokenId}`)).status).toBe(200)
    await page.getByRole("link", { name: "API keys" }).first().click()
    await page.getByLabel("Admin token").waitFor()
    await expect.poll(() => page.getByRole("status").textContent())
      .toBe("Signed out: the personal access token has been revoked.")
    expect(await inPage(page, "sessionStorage.length")).toBe(0)
    await page.context().close()
  })

  for (const width of [1280, 375]) {
    it(`the audit page, a row opened, has no WCAG A/AA violations and fits ${width} px`, async () => {
      const page = await openAs(ana.token, width)
      await go(page, `orgs/${orgA}/audit`, /Audit log/)
      await page.locator("tbody tr[data-audit-id]").first().waitFor()
      await page.locator("tbody tr[data-audit-id]").first().getByRole("button", { name: /Detail/ }).click()
      await page.locator("tr.audit-detail").waitFor()
      expect(await violations(page)).toEqual([])
      const overflow = await inPage<number>(page, "document.documentElement.scrollWidth - window.innerWidth")
      expect(overflow).toBeLessThanOrEqual(0)
      await page.context().close()
    })
  }
})
