/**
 * The gateway's `/mcp` spoken as an MCP client speaks streamable HTTP, message by message, so a test
 * sees every status and header: JSON-RPC over POST, the answer read from JSON or from the event stream
 * it came in, the session in `Mcp-Session-Id`.
 */
import { expect } from "vitest"

export interface RpcAnswer {
  readonly status: number
  readonly headers: Headers
  readonly body: any
}

/** One JSON-RPC message to `<url>/mcp`. */
export const mcpRpc = async (
  url: string,
  key: string | undefined,
  message: unknown,
  session?: string
): Promise<RpcAnswer> => {
  const response = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
      ...(session === undefined ? {} : { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" })
    },
    body: JSON.stringify(message)
  })
  const text = await response.text()
  const json = response.headers.get("content-type")?.includes("text/event-stream")
    ? text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6))).at(-1)
    : text === ""
    ? null
    : JSON.parse(text)
  return { status: response.status, headers: response.headers, body: json }
}

/** The client's DELETE of a session, which ends it. */
export const mcpDelete = async (url: string, key: string | undefined, session: string): Promise<number> =>
  (await fetch(`${url}/mcp`, {
    method: "DELETE",
    headers: {
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25",
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` })
    }
  })).status

export interface McpSession {
  /** Its `Mcp-Session-Id`. */
  readonly id: string
  readonly list: () => Promise<ReadonlyArray<{ name: string; inputSchema: unknown; description: string }>>
  readonly call: (name: string, args: unknown) => Promise<any>
}

/** A session opened as Claude Code opens one (initialize at 2025-11-25, then initialized), checked. */
export const openMcpSession = async (url: string, key: string): Promise<McpSession> => {
  const init = await mcpRpc(url, key, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: { roots: {} },
      clientInfo: { name: "claude-code", version: "2.1.0" }
    }
  })
  expect(init.status, JSON.stringify(init.body)).toBe(200)
  expect(init.body.result.protocolVersion).toBe("2025-11-25")
  expect(init.body.result.capabilities.tools).toBeDefined()
  const session = init.headers.get("mcp-session-id")!
  expect(session).toBeTruthy()
  expect((await mcpRpc(url, key, { jsonrpc: "2.0", method: "notifications/initialized" }, session)).status).toBe(202)
  let id = 1
  return {
    id: session,
    list: async () => {
      const answer = await mcpRpc(url, key, { jsonrpc: "2.0", id: id++, method: "tools/list", params: {} }, session)
      expect(answer.status).toBe(200)
      return answer.body.result.tools
    },
    call: async (name, args) =>
      (await mcpRpc(
        url,
        key,
        { jsonrpc: "2.0", id: id++, method: "tools/call", params: { name, arguments: args } },
        session
      ))
        .body
  }
}
