/**
 * MCP servers as sources of shared tools, against real MCP servers on 127.0.0.1 (streamable HTTP) and
 * over stdio: an org admin registers a remote server whose header the gateway keeps sealed and never
 * shows; its vetted tools (a bad one left out with the reason) become the org's shared tools, which the
 * tool loop runs whole and streamed, `/mcp` lists, and a list change brings in; another org neither sees
 * nor calls them; a server that is down is a tool error the model reads, and it is found again when it
 * is back; the operator's stdio server serves every org; bad registrations are refused with the reason.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  badlyNamedTool,
  type FakeMcpServer,
  type FakeMcpTool,
  runLetters,
  searchTool,
  startFakeMcpServer
} from "../utils/FakeMcpServer.ts"
import { fakeGatewayEnv, type FakeUpstream, startFakeUpstream, toolCall, usage } from "../utils/FakeUpstream.ts"
import { openMcpSession } from "../utils/McpWire.ts"
import {
  type Caller,
  createCaller,
  messagesOf,
  script,
  setOrgTool,
  sharedCompletionOf,
  streamOf,
  toolMessages
} from "../utils/SharedToolsHarness.ts"
import { postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"

const STDIO_SERVER = fileURLToPath(new URL("../fixtures/mcp/stdio-server.mjs", import.meta.url))
const TOKEN = "Bearer docs-server-secret-7f3a"
const MODEL = "fake/some-model"
const question = [{ role: "user", content: "Look it up." }]

const search = searchTool("Searches the docs.\u200b\u202eHidden instructions")
const badName = badlyNamedTool
const huge: FakeMcpTool = {
  name: "dump",
  description: "Too much",
  inputSchema: { type: "object", properties: {} },
  run: () => "x".repeat(5_000)
}

describe("MCP servers as sources of shared tools", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let docs: FakeMcpServer
  let a: Caller
  let b: Caller
  let serverId: string
  const suffix = runLetters(6)
  const name = `docs${suffix}`
  const toolId = `svc_mcp_${name}_search`

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    docs = await startFakeMcpServer({
      tools: [search, badName, huge],
      requireHeader: { name: "authorization", value: TOKEN }
    })
    gw = await startGateway(fakeGatewayEnv(upstream, {
      mcpServers: { local: { command: process.execPath, args: [STDIO_SERVER], env: { FAKE_MCP_WHO: "the operator" } } },
      env: { GATEWAY_SECRET_KEY: "a test key that is long enough to be one", GATEWAY_SVC_TOOL_MAX_OUTPUT_BYTES: "1000" }
    }))
    a = await createCaller(gw)
    b = await createCaller(gw)
    const created = await gw.admin("POST", `/orgs/${a.orgId}/mcp-servers`, {
      name,
      url: docs.url,
      headers: { Authorization: TOKEN }
    })
    expect(created.status, JSON.stringify(created.json)).toBe(201)
    serverId = created.json.id
  }, 60_000)
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
    await docs?.close()
  })

  it("registers a server: its vetted tools listed, a bad one left out with why, its header never shown", async () => {
    const listed = await gw.admin("GET", `/orgs/${a.orgId}/mcp-servers`)
    expect(listed.status).toBe(200)
    const [server] = listed.json.data
    expect(server).toMatchObject({
      id: serverId,
      name,
      url: docs.url,
      header_names: ["Authorization"],
      last_error: null
    })
    expect(server.tools.map((tool: { id: string }) => tool.id)).toEqual([toolId, `svc_mcp_${name}_dump`])
    // invisible and bidirectional characters taken out of what a model reads
    expect(server.tools[0].description).toBe("Searches the docs.Hidden instructions")
    expect(server.rejected_tools).toEqual([
      { name: "read file", reason: "its name is not 1 to 64 letters, digits, '_', '-' or '.'" }
    ])
    expect(JSON.stringify(listed.json)).not.toContain("docs-server-secret")
    const audit = await gw.admin("GET", `/orgs/${a.orgId}/audit?action=mcp_server.create`)
    expect(audit.json.data).toHaveLength(1)
    expect(JSON.stringify(audit.json)).not.toContain("docs-server-secret")
    // the server saw the header the gateway keeps for it
    expect(docs.calls.every((call) => call.headers["authorization"] === TOKEN)).toBe(true)
  })

  it("runs the server's tool in the tool loop, whole and streamed, with the sealed header", async () => {
    await setOrgTool(gw, a.orgId, toolId, { activated: true, hydrate_org: true })
    script(upstream, [
      { toolCalls: [toolCall("call_1", toolId, { query: "rate limits" })], usage: usage(10, 2) },
      { content: "Done.", usage: usage(20, 4) }
    ])
    const body = await sharedCompletionOf(await postChat(gw.url, { model: MODEL, messages: question }, { key: a.key }))
    expect(body.choices[0]?.message.content).toBe("Done.")
    expect(body.svc_tool_runs).toEqual([{ id: toolId, outcome: "ok", round: 1 }])
    expect(toolMessages(messagesOf(upstream, 2)).map((message) => message.content)).toEqual(["found: rate limits"])
    expect(docs.calls.at(-1)).toMatchObject({ tool: "search", args: { query: "rate limits" } })
    expect(docs.calls.at(-1)!.headers["authorization"]).toBe(TOKEN)

    script(upstream, [
      { toolCalls: [toolCall("call_2", toolId, { query: "streams" })], usage: usage(10, 2) },
      { content: "Streamed.", usage: usage(20, 4) }
    ])
    const chunks = await streamOf(
      await postChat(gw.url, { model: MODEL, messages: question, stream: true }, { key: a.key })
    )
    expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? "").join("")).toBe("Streamed.")
    expect(toolMessages(messagesOf(upstream, 2)).map((message) => message.content)).toEqual(["found: streams"])

    // and /mcp offers it to the org's keys, running it on the server
    const session = await openMcpSession(gw.url, a.key)
    expect((await session.list()).map((tool) => tool.name)).toContain(toolId)
    const called = await session.call(toolId, { query: "over mcp" })
    expect(called.result.content[0].text).toBe("found: over mcp")
    expect((await (await openMcpSession(gw.url, b.key)).list()).map((tool) => tool.name)).not.toContain(toolId)
  })

  it("holds a tool's output to the limit, as any tool result", async () => {
    const dump = `svc_mcp_${name}_dump`
    await setOrgTool(gw, a.orgId, dump, { activated: true })
    script(upstream, [{ toolCalls: [toolCall("call_d", dump, {})] }, { content: "ok" }])
    const body = await sharedCompletionOf(
      await postChat(gw.url, { model: MODEL, messages: question, svc_tool_ids: [dump] }, { key: a.key })
    )
    expect(body.svc_tool_runs).toEqual([{ id: dump, outcome: "error", round: 1 }])
    expect(toolMessages(messagesOf(upstream, 2))[0]?.content).toContain("exceeded 1000 bytes")
  })

  it("keeps another org out: it sees no server or tool of A's, and cannot activate or call them", async () => {
    expect((await gw.admin("GET", `/orgs/${b.orgId}/mcp-servers`)).json.data).toEqual([])
    expect((await gw.admin("POST", `/orgs/${b.orgId}/mcp-servers/${serverId}/refresh`)).status).toBe(404)
    expect((await gw.admin("DELETE", `/orgs/${b.orgId}/mcp-servers/${serverId}`)).status).toBe(404)
    const tools = await gw.admin("GET", `/orgs/${b.orgId}/svc-tools`)
    expect(tools.json.data.map((tool: { id: string }) => tool.id)).not.toContain(toolId)
    expect((await gw.admin("PUT", `/orgs/${b.orgId}/svc-tools/${toolId}`, { activated: true })).status).toBe(404)
    const asked = await postChat(gw.url, { model: MODEL, messages: question, svc_tool_ids: [toolId] }, { key: b.key })
    expect(asked.status).toBe(400)
    expect(((await asked.json()) as { error: { code: string } }).error.code).toBe("invalid_svc_tool_ids")
    expect((await gw.admin("GET", "/svc-tools")).json.data.map((tool: { id: string }) => tool.id)).not.toContain(toolId)
  })

  it("follows the server's list when it says it changed", async () => {
    docs.setTools([search, { ...search, name: "fetch-page", description: "Fetches a page" }])
    await expect.poll(
      async () =>
        (await gw.admin("GET", `/orgs/${a.orgId}/svc-tools`)).json.data.map((tool: { id: string }) => tool.id),
      {
        timeout: 10_000
      }
    ).toContain(`svc_mcp_${name}_fetch_page`)
  })

  it("answers a server that is down as a tool error the model reads, and finds it again when it is back", async () => {
    await docs.stop()
    script(upstream, [{ toolCalls: [toolCall("call_3", toolId, { query: "down" })] }, { content: "It is down." }])
    const down = await sharedCompletionOf(await postChat(gw.url, { model: MODEL, messages: question }, { key: a.key }))
    expect(down.choices[0]?.message.content).toBe("It is down.")
    expect(down.svc_tool_runs).toEqual([{ id: toolId, outcome: "error", round: 1 }])
    expect(toolMessages(messagesOf(upstream, 2))[0]?.content).toContain(`The MCP server '${name}' could not be reached`)

    await docs.start()
    script(upstream, [{ toolCalls: [toolCall("call_4", toolId, { query: "back" })] }, { content: "Back." }])
    const back = await sharedCompletionOf(await postChat(gw.url, { model: MODEL, messages: question }, { key: a.key }))
    expect(back.svc_tool_runs).toEqual([{ id: toolId, outcome: "ok", round: 1 }])
    expect(toolMessages(messagesOf(upstream, 2))[0]?.content).toBe("found: back")
  })

  it("serves the operator's stdio server to every org, with the env it was given", async () => {
    const shout = "svc_mcp_local_shout"
    await expect.poll(
      async () => (await gw.admin("GET", "/svc-tools")).json.data.map((tool: { id: string }) => tool.id),
      { timeout: 10_000 }
    )
      .toContain(shout)
    await setOrgTool(gw, b.orgId, shout, { activated: true })
    await setOrgTool(gw, b.orgId, "svc_mcp_local_whoami", { activated: true })
    script(upstream, [
      {
        toolCalls: [toolCall("call_s", shout, { text: "hello" }), toolCall("call_w", "svc_mcp_local_whoami", {})]
      },
      { content: "Shouted." }
    ])
    const body = await sharedCompletionOf(
      await postChat(gw.url, { model: MODEL, messages: question, svc_tool_ids: [shout, "svc_mcp_local_whoami"] }, {
        key: b.key
      })
    )
    expect(body.choices[0]?.message.content).toBe("Shouted.")
    expect(toolMessages(messagesOf(upstream, 2)).map((message) => message.content)).toEqual(["HELLO", "the operator"])
  })

  it("refuses a bad registration with the reason", async () => {
    const post = (body: unknown) => gw.admin("POST", `/orgs/${a.orgId}/mcp-servers`, body)
    const badName = await post({ name: "Bad Name", url: docs.url })
    expect(badName.status).toBe(400)
    expect(badName.json.error.message).toContain("not a valid MCP server name")
    expect((await post({ name: "local", url: docs.url })).json.error.message).toContain("operator configured")
    const taken = await gw.admin("POST", `/orgs/${b.orgId}/mcp-servers`, { name, url: docs.url })
    expect(taken.status).toBe(409)
    const notHttp = await post({ name: `ftp${suffix}`, url: "ftp://example.com/mcp" })
    expect(notHttp.status).toBe(400)
    expect(notHttp.json.error.message).toContain("http or https")
  })

  it("refuses OAuth where it cannot apply, and answers a refusal at the authorization server with its reason", async () => {
    const both = await gw.admin("POST", `/orgs/${a.orgId}/mcp-servers`, {
      name: `both${suffix}`,
      url: docs.url,
      oauth: true,
      headers: { Authorization: TOKEN }
    })
    expect(both.status).toBe(400)
    expect(both.json.error.message).toContain("takes no headers")
    const notOAuth = await gw.admin("POST", `/orgs/${a.orgId}/mcp-servers/${serverId}/authorize`)
    expect(notOAuth.status).toBe(400)
    expect(notOAuth.json.error.message).toContain("is not authorized with OAuth")
    const denied = await fetch(`${gw.url}/mcp/oauth/callback?error=access_denied&error_description=The+user+said+no`, {
      redirect: "manual"
    })
    expect(denied.status).toBe(302)
    const back = new URL(denied.headers.get("location")!, gw.url)
    expect(back.pathname).toBe("/console/")
    expect(back.searchParams.get("mcp_oauth_error")).toBe("The authorization server refused: The user said no")
  })

  it("removes a server and its tools", async () => {
    const removed = await gw.admin("DELETE", `/orgs/${a.orgId}/mcp-servers/${serverId}`)
    expect(removed.status).toBe(200)
    const tools = await gw.admin("GET", `/orgs/${a.orgId}/svc-tools`)
    expect(tools.json.data.map((tool: { id: string }) => tool.id)).not.toContain(toolId)
  })
})

describe("an org's MCP server whose name the routing file later takes", () => {
  it("offers the operator's, and tells the org why its own is not", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "svc-gateway-mcp-shadow-"))
    const name = `shadow${runLetters(6)}`
    const docs = await startFakeMcpServer({ tools: [searchTool()] })
    const upstream = await startFakeUpstream()
    try {
      const first = await startGateway({ GATEWAY_DATA_DIR: dataDir })
      const { orgId } = await first.newKey()
      const created = await first.admin("POST", `/orgs/${orgId}/mcp-servers`, { name, url: docs.url })
      expect(created.status, JSON.stringify(created.json)).toBe(201)
      await first.close()

      const second = await startGateway(fakeGatewayEnv(upstream, {
        mcpServers: { [name]: { command: process.execPath, args: [STDIO_SERVER] } },
        env: { GATEWAY_DATA_DIR: dataDir }
      }))
      try {
        const [server] = (await second.admin("GET", `/orgs/${orgId}/mcp-servers`)).json.data
        expect(server.last_error).toContain(`The routing file now has an MCP server named '${name}'`)
        const refreshed = await second.admin("POST", `/orgs/${orgId}/mcp-servers/${created.json.id}/refresh`)
        expect(refreshed.status).toBe(400)
        // the operator's stdio server is what the name offers
        await expect.poll(
          async () => (await second.admin("GET", "/svc-tools")).json.data.map((tool: { id: string }) => tool.id),
          {
            timeout: 10_000
          }
        ).toContain(`svc_mcp_${name}_shout`)
      } finally {
        await second.close()
      }
    } finally {
      await docs.close()
      await upstream.close()
    }
  })
})
