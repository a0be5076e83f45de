/**
 * The gateway as an MCP server, spoken to as an MCP client does over streamable HTTP (JSON-RPC over
 * POST, answers as JSON or server-sent events, the session in `Mcp-Session-Id`): a key lists the shared
 * tools its org activated and its allow-list admits, with their schemas, and nothing of another org's;
 * a call runs the tool as the tool loop does (a failure, a timeout and an output over the limit are
 * results the model reads, a call over the key's rate limit too) and leaves a `svc_tool` row in the
 * request log; a tool the key may not use cannot be called; no key is a 401 with the challenge.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { metricValue } from "../observability/PromText.ts"
import { mcpDelete, mcpRpc, openMcpSession } from "../utils/McpWire.ts"
import { startGateway, type TestGateway } from "../utils/TestGateway.ts"
import { bigTool, failingTool, hangingTool, recordingTool, type ToolInvocation } from "../utils/TestSvcTools.ts"

describe("POST /mcp: the org's shared tools over MCP", () => {
  let gw: TestGateway
  const runs: Array<ToolInvocation> = []
  let keyA: string
  let orgA: string
  let keyB: string

  const rpc = (key: string | undefined, message: unknown, session?: string) => mcpRpc(gw.url, key, message, session)
  const open = (key: string) => openMcpSession(gw.url, key)

  beforeAll(async () => {
    gw = await startGateway({ GATEWAY_SVC_TOOL_TIMEOUT: "300 millis", GATEWAY_SVC_TOOL_MAX_OUTPUT_BYTES: "1000" }, {
      tools: [
        recordingTool("svc_echo", runs),
        failingTool("svc_fails", "the index is rebuilding"),
        hangingTool("svc_hangs"),
        bigTool("svc_big", 5_000),
        recordingTool("svc_hidden", runs)
      ]
    })
    const a = await gw.newKey()
    orgA = a.orgId
    for (const tool of ["svc_echo", "svc_fails", "svc_hangs", "svc_big"]) {
      expect((await gw.admin("PUT", `/orgs/${orgA}/svc-tools/${tool}`, { activated: true })).status).toBe(200)
    }
    keyA = a.key
    // B's org activated only the tool A's org did not
    const b = await gw.newKey()
    expect((await gw.admin("PUT", `/orgs/${b.orgId}/svc-tools/svc_hidden`, { activated: true })).status).toBe(200)
    keyB = b.key
  })
  afterAll(() => gw?.close())

  it("lists the tools the key's org activated, with their schemas, and nothing of another org's", async () => {
    const a = await open(keyA)
    const tools = await a.list()
    expect(tools.map((tool) => tool.name).sort()).toEqual(["svc_big", "svc_echo", "svc_fails", "svc_hangs"])
    expect(tools.find((tool) => tool.name === "svc_echo")!.inputSchema).toMatchObject({ type: "object" })
    expect((await (await open(keyB)).list()).map((tool) => tool.name)).toEqual(["svc_hidden"])
  })

  it("follows the key's allow-list", async () => {
    const restricted = await gw.admin("POST", `/orgs/${orgA}/keys`, {
      name: "echo only",
      allowed_svc_tool_ids: ["svc_echo"]
    })
    expect(restricted.status, JSON.stringify(restricted.json)).toBe(201)
    const session = await open(restricted.json.key)
    expect((await session.list()).map((tool) => tool.name)).toEqual(["svc_echo"])
    const refused = await session.call("svc_fails", {})
    expect(refused.error.code).toBe(-32602)
  })

  it("runs a call as the tool loop does, and logs it as a svc_tool row", async () => {
    const a = await open(keyA)
    const before = runs.length
    const answer = await a.call("svc_echo", { text: "hello over mcp" })
    expect(answer.result.isError).toBe(false)
    expect(answer.result.content[0].type).toBe("text")
    expect(answer.result.content[0].text).toContain("hello over mcp")
    expect(runs.length).toBe(before + 1)
    expect(runs.at(-1)!.orgId).toBe(orgA)

    await expect.poll(async () => {
      const page = await gw.admin("GET", `/orgs/${orgA}/requests?limit=50`)
      return page.json.data.filter((row: { kind: string }) => row.kind === "svc_tool").map((
        row: { svc_tools: ReadonlyArray<string>; status: number }
      ) => [row.svc_tools, row.status])
    }, { timeout: 5_000 }).toContainEqual([["svc_echo"], 200])
  })

  it("answers a tool's failure, a timeout and an oversized output as results the model reads", async () => {
    const a = await open(keyA)
    const failed = await a.call("svc_fails", {})
    expect(failed.result).toMatchObject({ isError: true })
    expect(failed.result.content[0].text).toContain("the index is rebuilding")
    const hung = await a.call("svc_hangs", {})
    expect(hung.result.isError).toBe(true)
    expect(hung.result.content[0].text).toContain("timed out")
    const big = await a.call("svc_big", {})
    expect(big.result.isError).toBe(true)
    expect(big.result.content[0].text).toContain("exceeded 1000 bytes")
  })

  it("refuses a tool another org activated, as if it did not exist", async () => {
    const answer = await (await open(keyA)).call("svc_hidden", { text: "hidden" })
    expect(answer.error.code).toBe(-32602)
    expect(runs.some((run) => run.orgId === orgA && (run.args as { text?: string }).text === "hidden")).toBe(false)
  })

  it("counts calls against the key's rate limit", async () => {
    const limited = await gw.admin("POST", `/orgs/${orgA}/keys`, { name: "one a minute" })
    expect((await gw.admin("PATCH", `/keys/${limited.json.id}`, { limits: { rpm: 1 } })).status).toBe(200)
    const session = await open(limited.json.key)
    expect((await session.call("svc_echo", { text: "first" })).result.isError).toBe(false)
    const second = await session.call("svc_echo", { text: "second" })
    expect(second.result.isError).toBe(true)
    expect(second.result.content[0].text).toMatch(/limit/i)
  })

  it("ends a session on the client's DELETE, which needs a key; the session then answers 404", async () => {
    const openSessions = () => metricValue(gw.metrics.render(), "svc_gateway_mcp_sessions")
    const session = await open(keyA)
    await session.list()
    const before = openSessions()
    expect(before).toBeGreaterThanOrEqual(1)
    expect(await mcpDelete(gw.url, undefined, session.id)).toBe(401)
    expect((await rpc(keyA, { jsonrpc: "2.0", id: 9, method: "tools/list", params: {} }, session.id)).status).toBe(200)
    expect(await mcpDelete(gw.url, keyA, session.id)).toBe(204)
    expect((await rpc(keyA, { jsonrpc: "2.0", id: 10, method: "tools/list", params: {} }, session.id)).status).toBe(404)
    expect(openSessions()).toBe(before - 1)
    expect(metricValue(gw.metrics.render(), "svc_gateway_mcp_sessions_expired_total")).toBe(0)
  })

  it("refuses a request without a valid key with 401 and a bearer challenge", async () => {
    const none = await rpc(undefined, { jsonrpc: "2.0", id: 0, method: "initialize", params: {} })
    expect(none.status).toBe(401)
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer /)
    expect((await rpc("sk-svc-wrong", { jsonrpc: "2.0", id: 0, method: "tools/list" })).status).toBe(401)
  })
})
