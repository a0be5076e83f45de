/**
 * An MCP server that takes OAuth, authorized from the console in Chromium, against a real authorization
 * server on 127.0.0.1 (`oidc-provider`: dynamic registration, PKCE, resource indicators, refresh tokens)
 * and an MCP server that checks its tokens and publishes its protected resource metadata (RFC 9728).
 * An org admin adds the server, goes through the authorization server's pages and back; its tools come,
 * and the tool loop calls them with the token, which the gateway refreshes when it expires, without her.
 * Another org's server at the same URL has no tokens of the first's. A callback this browser did not
 * begin is refused with the reason.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeMcpServer, runLetters, searchTool, startFakeMcpServer } from "../utils/FakeMcpServer.ts"
import { fakeGatewayEnv, type FakeUpstream, startFakeUpstream, toolCall } from "../utils/FakeUpstream.ts"
import { type McpAuthServer, startMcpAuthServer } from "../utils/McpAuthServer.ts"
import { messagesOf, script, setOrgTool, sharedCompletionOf, toolMessages } from "../utils/SharedToolsHarness.ts"
import { postChat } from "../utils/TestGateway.ts"
import { type ConsoleUnderTest, startConsole } from "./ConsoleBrowser.ts"

const MODEL = "fake/some-model"
const question = [{ role: "user", content: "Look it up." }]

describe("console: authorizing the gateway at an MCP server with OAuth, in Chromium", () => {
  let c: ConsoleUnderTest
  let auth: McpAuthServer
  let docs: FakeMcpServer
  let upstream: FakeUpstream
  let orgA: string
  let keyA: string
  let orgB: string
  let keyB: string
  const suffix = runLetters()
  const name = `oauth${suffix}`
  const toolId = `svc_mcp_${name}_search`

  beforeAll(async () => {
    auth = await startMcpAuthServer()
    docs = await startFakeMcpServer({ tools: [searchTool()], oauth: { issuer: auth.issuer, accepts: auth.accepts } })
    auth.serve(docs.url)
    upstream = await startFakeUpstream()
    c = await startConsole(
      fakeGatewayEnv(upstream, { env: { GATEWAY_SECRET_KEY: "a test key that is long enough to be one" } })
    )
    ;({ key: keyA, orgId: orgA } = await c.gw.newKey())
    ;({ key: keyB, orgId: orgB } = await c.gw.newKey())
  })
  afterAll(async () => {
    await c?.close()
    await docs?.close()
    await auth?.close()
    await upstream?.close()
  })

  const card = (page: Page, server: string) => page.locator("article.mcp-server").filter({ hasText: server })

  const askTool = async (key: string, id: string, query: string) => {
    script(upstream, [{ toolCalls: [toolCall("call_1", id, { query })] }, { content: "Done." }])
    const body = await sharedCompletionOf(
      await postChat(c.gw.url, { model: MODEL, messages: question, svc_tool_ids: [id] }, { key })
    )
    return { runs: body.svc_tool_runs, result: toolMessages(messagesOf(upstream, 2))[0]?.content }
  }

  it("an admin adds the server, authorizes the gateway at its authorization server, and its tools come", async () => {
    const page = await c.open()
    await page.goto(`${c.gw.url}/console#/orgs/${orgA}/mcp-servers`)
    await page.getByLabel("Name", { exact: true }).fill(name)
    await page.getByLabel("URL", { exact: true }).fill(docs.url)
    await page.getByLabel(/Authorize with OAuth/).check()
    await page.getByRole("button", { name: "Add server" }).click()
    await expect.poll(() => card(page, name).locator("[data-cell=oauth]").textContent()).toBe("not authorized yet")

    await card(page, name).getByRole("button", { name: `Authorize ${name}` }).click()
    // the authorization server's own pages
    await page.locator("input[name=login]").fill(`admin-${suffix}`)
    await page.locator("input[name=password]").fill("any password")
    await page.getByRole("button", { name: "Sign-in" }).click()
    await page.getByRole("button", { name: "Continue" }).click()

    // back on the console's page, told what came of it
    await page.getByText(`The gateway is authorized at MCP server '${name}'`).waitFor()
    expect(new URL(page.url()).search).toBe("")
    await expect.poll(() => card(page, name).locator("[data-cell=oauth]").textContent()).toMatch(/^authorized /)
    await card(page, name).getByText(toolId).first().waitFor({ state: "attached" })
    expect(await auth.registered()).toBe(1)
    // nothing the gateway holds for it reaches an answer
    const listed = await c.gw.admin("GET", `/orgs/${orgA}/mcp-servers`)
    for (const token of docs.tokensSeen) expect(JSON.stringify(listed.json)).not.toContain(token)
  })

  it("calls the server's tool with the token, and refreshes it when it expires, without the admin", async () => {
    await setOrgTool(c.gw, orgA, toolId, { activated: true })
    const first = await askTool(keyA, toolId, "tokens")
    expect(first.runs).toEqual([{ id: toolId, outcome: "ok", round: 1 }])
    expect(first.result).toBe("found: tokens")
    const seen = docs.tokensSeen.length

    docs.expireTokens()
    const second = await askTool(keyA, toolId, "refreshed")
    expect(second.result).toBe("found: refreshed")
    expect(docs.tokensSeen.length).toBeGreaterThan(seen)
  })

  it("keeps tokens per organization: another org's server at the same URL has none", async () => {
    const other = await c.gw.admin("POST", `/orgs/${orgB}/mcp-servers`, {
      name: `b${name}`,
      url: docs.url,
      oauth: true
    })
    expect(other.status, JSON.stringify(other.json)).toBe(201)
    expect(other.json).toMatchObject({ oauth: true, authorized_at: null, tools: [] })
    expect(other.json.last_error).toContain("must authorize")
    expect((await c.gw.admin("GET", `/orgs/${orgA}/mcp-servers`)).json.data[0].authorized_at).not.toBeNull()
    const refused = await postChat(c.gw.url, { model: MODEL, messages: question, svc_tool_ids: [toolId] }, {
      key: keyB
    })
    expect(refused.status).toBe(400)
  })

  it("refuses a callback this browser did not begin, with the reason", async () => {
    const page = await c.open()
    await page.goto(`${c.gw.url}/mcp/oauth/callback?code=stolen&state=not-mine`)
    await page.getByText("This authorization was begun in another browser").waitFor()
  })
})
