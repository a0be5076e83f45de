/**
 * The console in Chromium, signing in and managing keys: a key's secret is shown once (and copied),
 * a revoked key is refused by /v1/chat/completions, allowed tools can be edited, and the API's
 * refusals read as messages on the page.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postChat } from "../utils/TestGateway.ts"
import { type ConsoleUnderTest, createOrgInConsole, inPage, startConsole } from "./ConsoleBrowser.ts"

const SECRET = /^sk-svc-[0-9A-Za-z]{40}$/

describe("console: sign-in and API keys, in Chromium", () => {
  let c: ConsoleUnderTest
  beforeAll(async () => {
    c = await startConsole()
  })
  afterAll(() => c?.close())

  const echo = (key: string) =>
    postChat(c.gw.url, { model: "local/echo", messages: [{ role: "user", content: "hi" }] }, { key })

  it("a wrong admin token is refused with the API's message; the right one is kept in session storage only", async () => {
    const page = await c.open({ signIn: false })
    await page.getByLabel("Admin token").fill("not-the-token")
    await page.getByRole("button", { name: "Sign in" }).click()
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("The gateway did not accept this admin token.")
    expect(await inPage(page, "sessionStorage.length")).toBe(0)

    await page.getByLabel("Admin token").fill("test-admin-token")
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("heading", { level: 1, name: "Organizations" }).waitFor()
    expect(await inPage(page, "sessionStorage.getItem('svc-gateway.admin-token')")).toBe("test-admin-token")
    expect(await inPage(page, "localStorage.length")).toBe(0)
    expect(page.url()).not.toContain("test-admin-token")

    // a reload keeps the session; signing out forgets the token
    await page.reload()
    await page.getByRole("heading", { level: 1, name: "Organizations" }).waitFor()
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByLabel("Admin token").waitFor()
    expect(await inPage(page, "sessionStorage.length")).toBe(0)
    await page.context().close()
  })

  it("creates an organization and turns storing prompts on for it", async () => {
    const page = await c.open()
    const name = `Content Org ${Date.now()}`
    const orgId = await createOrgInConsole(page, name)
    expect(orgId).toMatch(/^org_[0-9A-Za-z]{20}$/)
    await expect.poll(() => page.getByRole("status").textContent()).toBe(`Created organization '${name}'.`)
    await page.getByRole("checkbox", { name: `Store prompt and completion text for ${name}` }).check()
    await expect.poll(() => page.getByRole("status").textContent())
      .toBe(`${name}: prompt and completion text are now stored in the request log.`)
    expect((await c.gw.admin("GET", `/orgs/${orgId}`)).json.log_content).toBe(true)
    await page.context().close()
  })

  it("sets an organization's compression level, and back to the gateway's default", async () => {
    const page = await c.open()
    const name = `Compression Org ${Date.now()}`
    const orgId = await createOrgInConsole(page, name)
    const select = page.getByRole("combobox", { name: `Compression for ${name}` })
    await select.selectOption("shadow")
    await expect.poll(() => page.getByRole("status").textContent()).toBe(`${name}: compression is now shadow.`)
    expect((await c.gw.admin("GET", `/orgs/${orgId}`)).json.compression).toBe("shadow")
    await select.selectOption("")
    await expect.poll(() => page.getByRole("status").textContent()).toBe(
      `${name}: compression is now the gateway's default.`
    )
    expect((await c.gw.admin("GET", `/orgs/${orgId}`)).json.compression).toBeNull()
    await page.context().close()
  })

  it("sets an organization's rate limits and budget, an empty box removing one; the circuit breakers are listed", async () => {
    const page = await c.open()
    const name = `Limits Org ${Date.now()}`
    const orgId = await createOrgInConsole(page, name)
    await expect.poll(() => page.getByText("no circuit has opened on this instance").count()).toBe(1)
    const row = page.locator("tr", { hasText: name })
    await row.getByText("no limits").click()
    await row.getByLabel("Requests per minute").fill("60")
    await row.getByLabel("Tokens per month").fill("5000000")
    await row.getByLabel("Dollars per day").fill("12.5")
    await row.getByRole("button", { name: "Save limits" }).click()
    await expect.poll(() => page.getByRole("status").textContent())
      .toBe(`${name}: limits are now 60 requests/min, 5000000 tokens/month, $12.5/day.`)
    expect((await c.gw.admin("GET", `/orgs/${orgId}`)).json.limits)
      .toEqual({
        rpm: 60,
        tpm: null,
        tokens_per_day: null,
        tokens_per_month: 5000000,
        usd_per_day: 12.5,
        usd_per_month: null
      })
    await row.getByText("60 requests/min, 5000000 tokens/month, $12.5/day").click()
    await row.getByLabel("Requests per minute").fill("")
    await row.getByRole("button", { name: "Save limits" }).click()
    await expect.poll(() => page.getByRole("status").textContent()).toBe(
      `${name}: limits are now 5000000 tokens/month, $12.5/day.`
    )
    expect((await c.gw.admin("GET", `/orgs/${orgId}`)).json.limits.rpm).toBeNull()
    await page.context().close()
  })

  it("creates a key and shows its secret once, with a copy button and a warning; the secret works", async () => {
    const page = await c.open()
    const name = `Keys Org ${Date.now()}`
    const orgId = await createOrgInConsole(page, name)
    await page.locator("tr", { hasText: name }).getByRole("link", { name: "API keys" }).click()
    await page.getByRole("heading", { level: 1, name: /API keys/ }).waitFor()
    expect(page.url()).toContain(`#/orgs/${orgId}/keys`)

    await page.getByLabel("Name").fill("laptop")
    await page.getByLabel("Description (optional)").fill("Ana's work machine")
    await page.getByRole("button", { name: "Create key" }).click()
    const secretBox = page.getByLabel("The new API key")
    await secretBox.waitFor()
    const secret = await secretBox.inputValue()
    expect(secret).toMatch(SECRET)
    await expect.poll(() => page.locator(".secret").textContent()).toContain("This is the only time this key is shown")

    await page.getByRole("button", { name: "Copy" }).click()
    await expect.poll(() => page.getByText("Copied to the clipboard.").count()).toBe(1)
    expect(await inPage(page, "navigator.clipboard.readText()")).toBe(secret)

    // the table shows the prefix only
    const row = page.locator("tr", { hasText: "laptop" })
    await expect.poll(() => row.textContent()).toContain(`${secret.slice(0, 12)}`)
    expect(await row.textContent()).not.toContain(secret)
    expect(await row.textContent()).toContain("Ana's work machine")
    // the table as a screen reader reads it: a caption naming the org, and the buttons' column named
    // though not shown
    expect(
      await inPage(
        page,
        `(() => {
          const table = document.querySelector("[role=region][aria-label='API keys'] table")
          return {
            caption: table.caption.textContent,
            headings: [...table.tHead.rows[0].cells].map((cell) => cell.scope + ":" + cell.textContent),
            unseen: [...table.tHead.querySelectorAll(".visually-hidden")].map((span) => span.textContent)
          }
        })()`
      )
    ).toEqual({
      caption: `API keys of ${name}`,
      headings: ["Name", "Key", "Status", "Created", "Last used", "Expires", "Shared tools", "Limits", "Actions"]
        .map((heading) => `col:${heading}`),
      unseen: ["Actions"]
    })

    await page.getByRole("button", { name: "I have copied the key" }).click()
    await expect.poll(() => page.getByLabel("The new API key").count()).toBe(0)
    expect(await page.content()).not.toContain(secret)
    await page.reload()
    await page.locator("tr", { hasText: "laptop" }).waitFor()
    expect(await page.content()).not.toContain(secret)
    const stored = await inPage<string>(
      page,
      "JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })"
    )
    expect(stored).not.toContain(secret)

    expect((await echo(secret)).status).toBe(200)
    await page.context().close()
  })

  it("revokes a key after a confirmation; /v1/chat/completions then answers 401 with it", async () => {
    const page = await c.open()
    const orgId = await createOrgInConsole(page, `Revoke Org ${Date.now()}`)
    await page.goto(`${c.gw.url}/console#/orgs/${orgId}/keys`)
    await page.getByLabel("Name").fill("doomed")
    await page.getByRole("button", { name: "Create key" }).click()
    const secret = await page.getByLabel("The new API key").inputValue()
    await page.getByRole("button", { name: "I have copied the key" }).click()
    expect((await echo(secret)).status).toBe(200)

    // cancelling changes nothing
    await page.getByRole("button", { name: "Revoke doomed" }).click()
    const dialog = page.getByRole("dialog", { name: "Revoke key 'doomed'?" })
    await dialog.waitFor()
    await dialog.getByRole("button", { name: "Cancel" }).click()
    await expect.poll(() => dialog.isVisible()).toBe(false)
    expect((await echo(secret)).status).toBe(200)

    await page.getByRole("button", { name: "Revoke doomed" }).click()
    await dialog.getByRole("button", { name: "Revoke key" }).click()
    await expect.poll(() => page.getByRole("status").textContent()).toContain("Revoked key 'doomed'")
    await expect.poll(() => page.locator("tr", { hasText: "doomed" }).textContent()).toContain("revoked")
    expect(await page.getByRole("button", { name: "Revoke doomed" }).count()).toBe(0)

    const refused = await echo(secret)
    expect(refused.status).toBe(401)
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("revoked_api_key")
    await page.context().close()
  })

  it("edits a key's allowed shared tools; the API keeps the choice", async () => {
    const page = await c.open()
    const orgId = await createOrgInConsole(page, `Tools Key Org ${Date.now()}`)
    await page.goto(`${c.gw.url}/console#/orgs/${orgId}/keys`)
    await page.getByLabel("Name").fill("limited")
    await page.getByRole("button", { name: "Create key" }).click()
    await page.getByRole("button", { name: "I have copied the key" }).click()
    const row = page.locator("tr", { hasText: "limited" })
    await expect.poll(() => row.textContent()).toContain("all activated")

    await page.getByRole("button", { name: "Edit tools of limited" }).click()
    const form = page.locator("form", { has: page.getByRole("heading", { name: "Shared tools of key 'limited'" }) })
    await form.getByLabel("Only these:").check()
    await form.getByRole("checkbox", { name: "svc_current_time" }).check()
    await form.getByRole("button", { name: "Save tools" }).click()
    await expect.poll(() => row.textContent()).toContain("svc_current_time")

    const keys = await c.gw.admin("GET", `/orgs/${orgId}/keys`)
    expect(keys.json.data[0].allowed_svc_tool_ids).toEqual(["svc_current_time"])
    await page.context().close()
  })

  it("the API's refusals show as readable messages and the form keeps what was typed", async () => {
    const page = await c.open()
    const orgId = await createOrgInConsole(page, `Errors Org ${Date.now()}`)
    await page.goto(`${c.gw.url}/console#/orgs/${orgId}/keys`)
    // a name of spaces passes the browser's `required` and is refused by the API
    await page.getByLabel("Name").fill("   ")
    await page.getByRole("button", { name: "Create key" }).click()
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/name/i)
    expect(await page.getByLabel("Name").inputValue()).toBe("   ")
    expect(await page.getByLabel("The new API key").count()).toBe(0)

    // an org that does not exist: a message, and a way back
    await page.goto(`${c.gw.url}/console#/orgs/org_missing/keys`)
    await page.getByRole("heading", { level: 1, name: "No such organization" }).waitFor()
    await page.getByRole("link", { name: "Go to Organizations" }).click()
    await page.getByRole("heading", { level: 1, name: "Organizations" }).waitFor()

    // the gateway's token is changed under the page: the next call signs out with the reason
    await inPage(page, "sessionStorage.setItem('svc-gateway.admin-token', 'stale')")
    await page.getByLabel("Name").fill("late")
    await page.getByRole("button", { name: "Create organization" }).click()
    await page.getByLabel("Admin token").waitFor()
    await expect.poll(() => page.getByRole("status").textContent()).toBe(
      "Signed out: the gateway no longer accepts this admin token."
    )
    await page.context().close()
  })
})
