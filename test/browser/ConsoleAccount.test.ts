/**
 * The console's account page, in Chromium: a person (a viewer, who may change nothing else) reaches it
 * from her name in the header, makes a personal access token (shown once, working against the admin
 * API), sees it listed by its prefix and revokes it after a confirmation; an expiry in the past is
 * refused in the API's words with what was typed kept; revoking the token she is signed in with signs
 * the page out. The admin token has no account. No WCAG A/AA violations with a new token shown.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ConsoleUnderTest, makePerson, signIn, startConsole, violations } from "./ConsoleBrowser.ts"

describe("console: a person's own account and tokens, in Chromium", () => {
  let c: ConsoleUnderTest
  let orgA: string
  const suffix = Math.random().toString(36).slice(2, 8)
  const teamA = `Team A ${suffix}`

  beforeAll(async () => {
    c = await startConsole()
    orgA = (await c.gw.admin("POST", "/orgs", { name: teamA })).json.id
  })
  afterAll(() => c?.close())

  const meStatus = async (token: string) =>
    (await fetch(`${c.gw.url}/admin/v1/me`, { headers: { authorization: `Bearer ${token}` } })).status
  /** Signed in with her token, then to her account by the header's link. */
  const openAccount = async (token: string) => {
    const page = await c.open({ signIn: false, bypassCSP: true })
    await signIn(page, token)
    await page.locator("header .who").getByRole("link").click()
    await page.getByRole("heading", { level: 1, name: "Your account" }).waitFor()
    return page
  }
  const row = (page: Page, name: string) => page.locator("tr[data-token-id]").filter({ hasText: name })

  it("a viewer makes a token, shown once and working, then revokes it", async () => {
    const vic = await makePerson(c.gw, "Vic", suffix, [{ role: "viewer", org_id: orgA }])
    const page = await openAccount(vic.token)
    expect(page.url()).toContain("#/account")
    expect(await page.locator("main p").first().textContent()).toBe(`Vic (${vic.email}): viewer of ${teamA}.`)
    // the token she signed in with, marked as this session's
    expect(await row(page, "browser").textContent()).toContain("this session's token")

    await page.getByLabel("Name").fill("cli")
    await page.getByRole("button", { name: "Make token" }).click()
    const secret = await page.getByLabel("The new personal access token").inputValue()
    expect(secret).toMatch(/^pat-svc-[0-9A-Za-z]{40}$/)
    expect(await page.locator(".secret").textContent()).toContain("This is the only time this token is shown")
    expect(await violations(page)).toEqual([])
    expect(await meStatus(secret)).toBe(200)
    await page.getByRole("button", { name: "I have copied the token" }).click()
    await expect.poll(() => page.getByLabel("The new personal access token").count()).toBe(0)

    const made = row(page, "cli")
    await made.waitFor()
    expect(secret.startsWith((await made.locator("code").textContent())!.replace("…", ""))).toBe(true)
    expect(await made.locator(".badge").textContent()).toBe("active")
    expect(await made.textContent()).not.toContain(secret)

    await made.getByRole("button", { name: /Revoke/ }).click()
    await page.getByRole("dialog").getByRole("button", { name: "Revoke token" }).click()
    await expect.poll(() => made.locator(".badge").textContent()).toBe("revoked")
    expect(await meStatus(secret)).toBe(401)
    // the page's own token still works
    expect(await meStatus(vic.token)).toBe(200)
    await page.context().close()
  })

  it("an expiry in the past is refused in the API's words, keeping what was typed", async () => {
    const eva = await makePerson(c.gw, "Eva", suffix, [{ role: "viewer", org_id: orgA }])
    const page = await openAccount(eva.token)
    await page.getByLabel("Name").fill("old")
    await page.getByLabel("Expires after (optional)").fill("2001-02-03")
    await page.getByRole("button", { name: "Make token" }).click()
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("the time is in the past")
    expect(await page.getByLabel("Name").inputValue()).toBe("old")
    expect(await page.getByLabel("Expires after (optional)").inputValue()).toBe("2001-02-03")
    expect((await c.gw.admin("GET", `/users/${eva.id}/tokens`)).json.data.map((t: any) => t.name)).toEqual(["browser"])
    await page.context().close()
  })

  it("revoking the token she is signed in with signs the page out", async () => {
    const ida = await makePerson(c.gw, "Ida", suffix, [{ role: "viewer", org_id: orgA }])
    const page = await openAccount(ida.token)
    await row(page, "browser").getByRole("button", { name: /Revoke/ }).click()
    expect(await page.getByRole("dialog").textContent()).toContain("You are signed in with it here")
    await page.getByRole("dialog").getByRole("button", { name: "Revoke token" }).click()
    await page.getByLabel("Admin token").waitFor()
    await expect.poll(() => page.getByRole("status").textContent())
      .toBe("Signed out: the personal access token has been revoked.")
    expect(await meStatus(ida.token)).toBe(401)
    await page.context().close()
  })

  it("the admin token has no account of its own", async () => {
    const page = await c.open()
    await page.locator("header .who").getByRole("link", { name: "admin token" }).click()
    await page.getByRole("heading", { level: 1, name: "Your account" }).waitFor()
    expect(await page.locator("main").textContent()).toContain("You are signed in with the admin token")
    expect(await page.getByRole("button", { name: "Make token" }).count()).toBe(0)
    await page.context().close()
  })
})
