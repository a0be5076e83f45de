/**
 * The console's People page, in Chromium. The owner adds a person (a refused email keeps what was typed),
 * gives her a role, disables her (her personal token is refused from then on) and enables her again. Ana,
 * an admin of team A and a viewer of C, sees everyone with only their roles on A, gives and takes A's
 * roles, and is offered neither B nor C nor the owner role nor adding or disabling people; what she does
 * not see stays as it was. Vic, a viewer, has no People link and is told the page is not for her.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ConsoleUnderTest, makePerson, type Person, signIn, startConsole, violations } from "./ConsoleBrowser.ts"

describe("console: people and their roles, in Chromium", () => {
  let c: ConsoleUnderTest
  let orgA: string
  let orgB: string
  let orgC: string
  let ana: Person
  let vic: Person
  const suffix = Math.random().toString(36).slice(2, 8)
  const teamA = `Team A ${suffix}`
  const teamB = `Team B ${suffix}`
  const teamC = `Team C ${suffix}`

  const person = (name: string, roles: ReadonlyArray<{ role: string; org_id: string }>) =>
    makePerson(c.gw, name, suffix, roles)
  const rolesOf = async (userId: string) => (await c.gw.admin("GET", `/users/${userId}`)).json.roles
  const meStatus = async (token: string) =>
    (await fetch(`${c.gw.url}/admin/v1/me`, { headers: { authorization: `Bearer ${token}` } })).status

  beforeAll(async () => {
    c = await startConsole()
    orgA = (await c.gw.admin("POST", "/orgs", { name: teamA })).json.id
    orgB = (await c.gw.admin("POST", "/orgs", { name: teamB })).json.id
    orgC = (await c.gw.admin("POST", "/orgs", { name: teamC })).json.id
    ana = await person("Ana", [{ role: "admin", org_id: orgA }, { role: "viewer", org_id: orgC }])
    vic = await person("Vic", [{ role: "viewer", org_id: orgA }])
  })
  afterAll(() => c?.close())

  const openPeople = async (token?: string) => {
    const page = await c.open({ signIn: token === undefined, bypassCSP: true })
    if (token !== undefined) await signIn(page, token)
    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "People" }).click()
    await page.getByRole("heading", { level: 1, name: "People" }).waitFor()
    return page
  }
  const row = (page: Page, userId: string) => page.locator(`tr[data-user-id='${userId}']`)
  const editRoles = async (page: Page, userId: string) => {
    await row(page, userId).getByRole("button", { name: /Edit roles/ }).click()
    await page.getByRole("heading", { level: 2, name: /^Roles of / }).waitFor()
    return page.locator(`form[data-roles-of='${userId}']`)
  }

  it("the owner adds a person, gives her a role, disables and enables her", async () => {
    const page = await openPeople()
    await row(page, ana.id).waitFor()
    expect(await row(page, ana.id).locator("[data-cell='roles']").textContent())
      .toBe(`admin of ${teamA}; viewer of ${teamC}`)

    // a refusal in the API's words, with what was typed kept
    await page.getByLabel("Email").fill(ana.email)
    await page.getByLabel("Name").fill("Ana again")
    await page.getByRole("button", { name: "Add person" }).click()
    await expect.poll(() => page.getByRole("alert").textContent()).toContain(ana.email)
    expect(await page.getByLabel("Email").inputValue()).toBe(ana.email)
    expect(await page.getByLabel("Name").inputValue()).toBe("Ana again")

    const email = `pia-${suffix}@example.com`
    await page.getByLabel("Email").fill(email)
    await page.getByLabel("Name").fill("Pia")
    await page.getByRole("button", { name: "Add person" }).click()
    await expect.poll(() => page.getByRole("status").textContent()).toBe(`Added Pia (${email}). Give them roles below.`)
    const pia = (await c.gw.admin("GET", "/users")).json.data.find((user: any) => user.email === email)
    expect(pia).toMatchObject({ name: "Pia", roles: [], disabled_at: null })
    expect(await row(page, pia.id).locator("[data-cell='roles']").textContent()).toBe("no role yet")

    // the form opened for her: every organization, and the owner role
    const form = page.locator(`form[data-roles-of='${pia.id}']`)
    await form.waitFor()
    expect(await form.getByRole("checkbox", { name: /Owner of the gateway/ }).isChecked()).toBe(false)
    await form.getByLabel(teamA).selectOption("viewer")
    await form.getByLabel(teamB).selectOption("admin")
    await form.getByRole("button", { name: "Save roles" }).click()
    await expect.poll(() => row(page, pia.id).locator("[data-cell='roles']").textContent())
      .toBe(`admin of ${teamB}; viewer of ${teamA}`)
    expect(await rolesOf(pia.id)).toEqual(expect.arrayContaining([
      { role: "viewer", org_id: orgA },
      { role: "admin", org_id: orgB }
    ]))
    expect(await page.locator("form[data-roles-of]").count()).toBe(0)

    // disabled after a confirmation: her token is refused; enabled again, it works
    const token = await c.gw.admin("POST", `/users/${pia.id}/tokens`, { name: "cli" })
    expect(await meStatus(token.json.token)).toBe(200)
    await row(page, pia.id).getByRole("button", { name: /Disable/ }).click()
    await page.getByRole("dialog").getByRole("button", { name: "Disable" }).click()
    await expect.poll(() => row(page, pia.id).locator(".badge").textContent()).toBe("disabled")
    expect((await c.gw.admin("GET", `/users/${pia.id}`)).json.disabled_at).not.toBeNull()
    expect(await meStatus(token.json.token)).toBe(401)
    await row(page, pia.id).getByRole("button", { name: /Enable/ }).click()
    await expect.poll(() => row(page, pia.id).locator(".badge").textContent()).toBe("active")
    expect(await meStatus(token.json.token)).toBe(200)
    // her roles outlived it
    expect(await rolesOf(pia.id)).toHaveLength(2)

    expect(await violations(page)).toEqual([])
    await page.context().close()
  })

  it("Ana, an admin of A, gives and takes A's roles only; the rest stays", async () => {
    const ben = await person("Ben", [{ role: "viewer", org_id: orgB }])
    const page = await openPeople(ana.token)
    expect(await page.getByRole("button", { name: "Add person" }).count()).toBe(0)
    // Ben's role on B is not hers to see; C, where she is a viewer, not hers to give
    await row(page, ben.id).waitFor()
    expect(await row(page, ben.id).locator("[data-cell='roles']").textContent()).toBe("no role yet")
    expect(await row(page, ben.id).getByRole("button", { name: /Disable/ }).count()).toBe(0)

    const form = await editRoles(page, ben.id)
    expect(await form.getByRole("checkbox", { name: /Owner/ }).count()).toBe(0)
    expect(await form.getByLabel(teamB).count()).toBe(0)
    expect(await form.getByLabel(teamC).count()).toBe(0)
    expect(await form.locator("select").count()).toBe(1)
    await form.getByLabel(teamA).selectOption("admin")
    await form.getByRole("button", { name: "Save roles" }).click()
    await expect.poll(() => row(page, ben.id).locator("[data-cell='roles']").textContent()).toBe(`admin of ${teamA}`)
    expect(await rolesOf(ben.id)).toEqual(expect.arrayContaining([
      { role: "admin", org_id: orgA },
      { role: "viewer", org_id: orgB }
    ]))

    // taken away again: B's role still there
    const again = await editRoles(page, ben.id)
    expect(await again.getByLabel(teamA).inputValue()).toBe("admin")
    await again.getByLabel(teamA).selectOption("")
    await again.getByRole("button", { name: "Save roles" }).click()
    await expect.poll(() => row(page, ben.id).locator("[data-cell='roles']").textContent()).toBe("no role yet")
    expect(await rolesOf(ben.id)).toEqual([{ role: "viewer", org_id: orgB }])
    await page.context().close()
  })

  it("Vic, a viewer, has no People link and is told the page is not hers", async () => {
    const page = await c.open({ signIn: false, bypassCSP: true })
    await signIn(page, vic.token)
    const links = await page.getByRole("navigation", { name: "Pages" }).getByRole("link").allTextContents()
    expect(links).toContain("API keys")
    expect(links).not.toContain("People")
    await page.goto(`${c.gw.url}/console#/people`)
    await page.getByRole("heading", { level: 1, name: "People" }).waitFor()
    expect(await page.locator("main").textContent()).toContain("This page is for the gateway's owners")
    expect(await page.locator("main table").count()).toBe(0)
    await page.context().close()
  })
})
