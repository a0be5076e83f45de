/**
 * The console's MCP servers page in Chromium, against a real MCP server on 127.0.0.1 that refuses
 * requests without its token: an admin adds the server with the token as a header through the form and
 * sees its tools (a bad one left out with the reason) and the header's name, never its value, anywhere
 * in the page or the browser's storage; refresh lists a tool the server added since; a server on a
 * closed port shows why it could not be asked; removal asks first, and cancelling keeps the server. A
 * viewer reads the list without the form or a button. The page passes axe-core's WCAG 2.1 A/AA checks
 * and fits 1280 px and 375 px screens.
 */
import { createServer } from "node:net"
import type { AddressInfo } from "node:net"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  badlyNamedTool,
  type FakeMcpServer,
  type FakeMcpTool,
  runLetters,
  searchTool,
  startFakeMcpServer
} from "../utils/FakeMcpServer.ts"
import { type ConsoleUnderTest, inPage, signIn, startConsole, violations } from "./ConsoleBrowser.ts"

const TOKEN = "Bearer x"
const search = searchTool()
const badName = badlyNamedTool
const fetchPage: FakeMcpTool = {
  name: "fetch",
  description: "Fetches one page of the docs.",
  inputSchema: { type: "object", properties: { path: { type: "string" } } },
  run: () => "a page"
}

/** A port nothing listens on: taken from the system, then let go. */
const closedPort = async (): Promise<number> => {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe("console: an organization's MCP servers, in Chromium", () => {
  let c: ConsoleUnderTest
  let docs: FakeMcpServer
  let orgId: string
  let viewerToken: string
  let deadUrl: string
  const suffix = runLetters()
  const name = `docs${suffix}`
  const dead = `dead${suffix}`
  const orgName = `MCP Org ${suffix}`

  beforeAll(async () => {
    docs = await startFakeMcpServer({
      tools: [search, badName],
      requireHeader: { name: "authorization", value: TOKEN }
    })
    deadUrl = `http://127.0.0.1:${await closedPort()}/mcp`
    c = await startConsole({ GATEWAY_SECRET_KEY: "a test key that is long enough to be one" })
    orgId = (await c.gw.admin("POST", "/orgs", { name: orgName })).json.id
    const user = await c.gw.admin("POST", "/users", { email: `val-${suffix}@example.com`, name: "Val" })
    expect(user.status, JSON.stringify(user.json)).toBe(201)
    const roles = await c.gw.admin("PUT", `/users/${user.json.id}/roles`, {
      roles: [{ role: "viewer", org_id: orgId }]
    })
    expect(roles.status).toBe(200)
    const token = await c.gw.admin("POST", `/users/${user.json.id}/tokens`, { name: "browser" })
    expect(token.status).toBe(201)
    viewerToken = token.json.token
  })
  afterAll(async () => {
    await c?.close()
    await docs?.close()
  })

  const go = async (page: Page) => {
    await page.goto(`${c.gw.url}/console#/orgs/${orgId}/mcp-servers`)
    await page.getByRole("heading", { level: 1, name: /MCP servers/ }).waitFor()
  }
  const card = (page: Page, server: string) => page.locator("article.mcp-server", { hasText: server })
  const listed = async () => (await c.gw.admin("GET", `/orgs/${orgId}/mcp-servers`)).json.data as Array<any>
  /** Everything the page holds as text: its markup, every input's value, and the browser's storage. */
  const everything = async (page: Page) =>
    [
      await page.content(),
      await inPage<string>(page, "[...document.querySelectorAll('input')].map((input) => input.value).join('\\n')"),
      await inPage<string>(page, "JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })")
    ].join("\n")

  it("is in the header after Shared tools, at #/orgs/{org_id}/mcp-servers", async () => {
    const page = await c.open()
    const nav = page.getByRole("navigation", { name: "Pages" })
    const labels = await nav.getByRole("link").allTextContents()
    expect(labels.indexOf("MCP servers")).toBe(labels.indexOf("Shared tools") + 1)
    await page.goto(`${c.gw.url}/console#/orgs/${orgId}/keys`)
    await page.getByRole("heading", { level: 1, name: /API keys/ }).waitFor()
    await nav.getByRole("link", { name: "MCP servers" }).click()
    await page.getByRole("heading", { level: 1, name: `MCP servers of ${orgName}` }).waitFor()
    expect(page.url()).toContain(`#/orgs/${orgId}/mcp-servers`)
    expect(await nav.getByRole("link", { name: "MCP servers" }).getAttribute("aria-current")).toBe("page")
    await expect.poll(() => page.getByText("This organization has no MCP servers yet.").count()).toBe(1)
    // its tools are activated on the shared tools page
    const link = page.locator("main").getByRole("link", { name: "Shared tools" })
    expect(await link.getAttribute("href")).toBe(`#/orgs/${orgId}/tools`)
    await page.context().close()
  })

  it("an admin adds a server with a header: its tools and the header's name are shown, never its value", async () => {
    const page = await c.open()
    await go(page)
    await page.getByLabel("Name", { exact: true }).fill(name)
    await page.getByLabel("URL").fill(docs.url)
    await page.getByLabel("Header 1 name").fill("Authorization")
    expect(await page.getByLabel("Header 1 value").getAttribute("type")).toBe("password")
    await page.getByLabel("Header 1 value").fill(TOKEN)
    await page.getByRole("button", { name: "Add server" }).click()
    await expect.poll(() => page.getByRole("status").textContent())
      .toBe(`Added MCP server '${name}': it offers 1 tool.`)

    const server = card(page, name)
    await server.waitFor()
    expect(await server.locator("[data-cell='url']").textContent()).toBe(docs.url)
    expect(await server.locator("[data-cell='headers'] code").allTextContents()).toEqual(["Authorization"])
    expect(await server.locator("[data-last-error]").count()).toBe(0)
    await server.getByText("Tools (1)").click()
    const tool = server.locator(`tr[data-tool-id='svc_mcp_${name}_search']`)
    await tool.waitFor()
    expect(await tool.locator("td").allTextContents()).toEqual([`svc_mcp_${name}_search`, "Searches the team's docs."])
    expect(await server.locator("[data-rejected] li").allTextContents()).toEqual([
      "read file: its name is not 1 to 64 letters, digits, '_', '-' or '.'"
    ])

    // the form is empty again, and the value is nowhere in the page or the browser's storage
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("")
    expect(await page.getByLabel("Header 1 value").inputValue()).toBe("")
    expect(await everything(page)).not.toContain(TOKEN)
    await page.reload()
    await card(page, name).waitFor()
    expect(await everything(page)).not.toContain(TOKEN)

    // the gateway keeps the header and sent it: the server answered its list
    const [stored] = await listed()
    expect(stored).toMatchObject({ name, url: docs.url, header_names: ["Authorization"], last_error: null })
    expect(docs.listCount()).toBeGreaterThan(0)
    await page.context().close()
  })

  it("Refresh asks the server again: a tool it added since is listed", async () => {
    const page = await c.open()
    await go(page)
    const server = card(page, name)
    await server.waitFor()
    const before = docs.listCount()
    docs.setTools([search, badName, fetchPage])
    await server.getByRole("button", { name: `Refresh ${name}` }).click()
    await expect.poll(() => page.getByRole("status").textContent()).toBe(`MCP server '${name}' now offers 2 tools.`)
    expect(docs.listCount()).toBeGreaterThan(before)
    await server.getByText("Tools (2)").click()
    await expect.poll(() =>
      server.locator("tr[data-tool-id]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-tool-id")))
    )
      .toEqual(expect.arrayContaining([`svc_mcp_${name}_search`, `svc_mcp_${name}_fetch`]))
    expect(await everything(page)).not.toContain(TOKEN)
    await page.context().close()
  })

  it("a server on a closed port shows why it could not be asked", async () => {
    const page = await c.open()
    await go(page)
    await page.getByLabel("Name", { exact: true }).fill(dead)
    await page.getByLabel("URL").fill(deadUrl)
    await page.getByRole("button", { name: "Add server" }).click()
    await expect.poll(() => page.getByRole("alert").textContent())
      .toMatch(new RegExp(`^Added MCP server '${dead}', but the gateway could not ask it for its tools: .+`))
    const server = card(page, dead)
    await server.waitFor()
    const error = (await listed()).find((s) => s.name === dead)?.last_error
    expect(error).toEqual(expect.any(String))
    expect(await server.locator("[data-last-error]").textContent()).toBe(`Last error: ${error}`)
    expect(await server.getByText("Tools (0)").count()).toBe(1)

    // still closed: a refresh says so again
    await server.getByRole("button", { name: `Refresh ${dead}` }).click()
    await expect.poll(() => page.getByRole("alert").textContent())
      .toMatch(new RegExp(`^The gateway could not ask MCP server '${dead}' for its tools: .+`))
    await server.locator("[data-last-error]").waitFor()
    await page.context().close()
  })

  it("Remove asks first: cancelling keeps the server, confirming removes it", async () => {
    const page = await c.open()
    await go(page)
    const server = card(page, dead)
    await server.waitFor()
    await server.getByRole("button", { name: `Remove ${dead}` }).click()
    const dialog = page.getByRole("dialog", { name: `Remove MCP server '${dead}'?` })
    await dialog.waitFor()
    await dialog.getByRole("button", { name: "Cancel" }).click()
    await expect.poll(() => dialog.isVisible()).toBe(false)
    expect((await listed()).map((s) => s.name)).toContain(dead)

    await server.getByRole("button", { name: `Remove ${dead}` }).click()
    await dialog.getByRole("button", { name: "Remove server" }).click()
    await expect.poll(() => page.getByRole("status").textContent()).toBe(`Removed MCP server '${dead}' and its tools.`)
    await expect.poll(() => card(page, dead).count()).toBe(0)
    expect((await listed()).map((s) => s.name)).toEqual([name])
    await card(page, name).waitFor()
    await page.context().close()
  })

  it("a viewer sees the servers without the form or a button", async () => {
    const page = await c.open({ signIn: false })
    await signIn(page, viewerToken)
    await go(page)
    const server = card(page, name)
    await server.waitFor()
    expect(await server.locator("[data-cell='headers'] code").allTextContents()).toEqual(["Authorization"])
    expect(await page.locator(".read-only").textContent()).toContain(`you are a viewer of ${orgName}`)
    expect(await page.locator("main form").count()).toBe(0)
    expect(await page.getByLabel("Name", { exact: true }).count()).toBe(0)
    expect(await page.locator("main button").count()).toBe(0)
    await server.getByText("Tools (2)").click()
    await server.locator(`tr[data-tool-id='svc_mcp_${name}_search']`).waitFor()
    expect(await everything(page)).not.toContain(TOKEN)
    await page.context().close()
  })

  for (const width of [1280, 375]) {
    it(`has no WCAG A/AA violations and fits ${width} px, with a server's tools open`, async () => {
      const page = await c.open({ bypassCSP: true, width })
      await go(page)
      const server = card(page, name)
      await server.waitFor()
      await server.getByText(/^Tools \(/).click()
      await server.locator("tr[data-tool-id]").first().waitFor()
      await page.getByRole("button", { name: "Add a header" }).click()
      await page.getByLabel("Header 2 name").waitFor()
      expect(await violations(page)).toEqual([])
      const overflow = await inPage<number>(page, "document.documentElement.scrollWidth - window.innerWidth")
      expect(overflow).toBeLessThanOrEqual(0)
      await page.context().close()
    })
  }
})
