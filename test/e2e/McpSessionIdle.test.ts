/**
 * Sessions of the gateway's `/mcp` end after `GATEWAY_MCP_SESSION_IDLE` without a request (most
 * clients never send the DELETE that would end them): the client's next request with the session gets
 * the 404 that tells it to initialize again, and a new session works. `0 seconds` keeps every session.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { metricValue } from "../observability/PromText.ts"
import { mcpRpc, openMcpSession } from "../utils/McpWire.ts"
import { startGateway, type TestGateway } from "../utils/TestGateway.ts"
import { recordingTool, type ToolInvocation } from "../utils/TestSvcTools.ts"

/** A gateway at `idle` whose key's org has `svc_echo` active; its runs land in `runs`. */
const gatewayAt = async (idle: string, runs: Array<ToolInvocation>) => {
  const gw = await startGateway({ GATEWAY_MCP_SESSION_IDLE: idle }, { tools: [recordingTool("svc_echo", runs)] })
  const made = await gw.newKey()
  expect((await gw.admin("PUT", `/orgs/${made.orgId}/svc-tools/svc_echo`, { activated: true })).status).toBe(200)
  return { gw, key: made.key }
}

describe("GATEWAY_MCP_SESSION_IDLE", () => {
  let gw: TestGateway
  let key: string
  const runs: Array<ToolInvocation> = []
  const expired = () => metricValue(gw.metrics.render(), "svc_gateway_mcp_sessions_expired_total")

  beforeAll(async () => {
    ;({ gw, key } = await gatewayAt("1 second", runs))
  })
  afterAll(() => gw?.close())

  const open = () => metricValue(gw.metrics.render(), "svc_gateway_mcp_sessions")

  it("ends an idle session; its next request gets 404, and a new session works", async () => {
    const idle = await openMcpSession(gw.url, key)
    expect((await idle.list()).map((tool) => tool.name)).toEqual(["svc_echo"])
    expect(open()).toBe(1)
    // reading the metrics is no request of the session's: it stays idle while this waits
    await expect.poll(expired, { timeout: 10_000 }).toBe(1)
    expect(open()).toBe(0)

    const stale = await mcpRpc(gw.url, key, { jsonrpc: "2.0", id: 5, method: "tools/list", params: {} }, idle.id)
    expect(stale.status).toBe(404)
    const fresh = await openMcpSession(gw.url, key)
    expect(fresh.id).not.toBe(idle.id)
    expect((await fresh.call("svc_echo", { text: "again" })).result.isError).toBe(false)
    expect(runs.at(-1)!.args).toEqual({ text: "again" })
  })

  it("ends a session its client initialized and never used", async () => {
    await expect.poll(open, { timeout: 10_000 }).toBe(0)
    const before = expired()
    const init = await mcpRpc(gw.url, key, {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "gone", version: "1" } }
    })
    expect(init.status).toBe(200)
    const session = init.headers.get("mcp-session-id")!
    expect(open()).toBe(1)
    await expect.poll(expired, { timeout: 10_000 }).toBe(before + 1)
    expect(open()).toBe(0)
    expect((await mcpRpc(gw.url, key, { jsonrpc: "2.0", method: "notifications/initialized" }, session)).status).toBe(
      404
    )
  })
})

describe("GATEWAY_MCP_SESSION_IDLE=0 seconds", () => {
  let gw: TestGateway
  let key: string

  beforeAll(async () => {
    ;({ gw, key } = await gatewayAt("0 seconds", []))
  })
  afterAll(() => gw?.close())

  // were 0 an idle time, every session would be idle the moment it was answered, and end at once
  it("keeps every session", async () => {
    const session = await openMcpSession(gw.url, key)
    expect((await session.list()).map((tool) => tool.name)).toEqual(["svc_echo"])
    expect((await session.call("svc_echo", { text: "kept" })).result.isError).toBe(false)
    expect((await session.list()).map((tool) => tool.name)).toEqual(["svc_echo"])
    const render = gw.metrics.render()
    expect([
      metricValue(render, "svc_gateway_mcp_sessions"),
      metricValue(render, "svc_gateway_mcp_sessions_expired_total")
    ])
      .toEqual([1, 0])
  })
})
