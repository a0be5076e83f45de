/**
 * One live connection to an MCP server, over the official `@modelcontextprotocol/sdk` client: streamable
 * HTTP for a remote server, stdio for a local one the operator configured. `effect/ai`'s `McpClient`
 * falls short here: it speaks only protocol 2025-11-25 (a server on 2025-06-18 or 2025-03-26, most of
 * those deployed, is refused rather than negotiated), it drops `notifications/tools/list_changed`, and
 * it has no OAuth; the SDK negotiates every version, re-lists on a change, and does OAuth.
 *
 * The connection is plain promises; `McpSources.ts` runs it in Effect, with timeouts and reconnection.
 * The SDK is loaded with the first connection (and left out of the bundle, `bundleServer.ts`): its
 * modules and their schemas cost a gateway that reaches no MCP server about 20 MiB resident.
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js"
import type { McpTarget } from "../kernel/McpTarget.ts"
import type { RemoteTool } from "./McpToolNames.ts"

export type { McpTarget }

export interface CallOutcome {
  /** The result's text parts, joined; other parts (images, resources) named, not inlined. */
  readonly text: string
  readonly isError: boolean
}

export interface McpConnection {
  readonly listTools: () => Promise<ReadonlyArray<RemoteTool>>
  readonly callTool: (name: string, args: unknown, signal: AbortSignal) => Promise<CallOutcome>
  /** Whether the transport closed under it (the server went away): the next use connects anew. */
  readonly closed: () => boolean
  readonly close: () => Promise<void>
}

const CLIENT = { name: "svc-gateway", version: "0.1.0" }

/** A failure's message, bounded, for a tool error or a server's last error. */
export const errorText = (cause: unknown): string =>
  (cause instanceof Error ? cause.message : String(cause)).slice(0, 500)

/** A part of a tool result as text: text as it is, anything else by its kind. */
const partText = (part: { readonly type: string; readonly text?: unknown }): string =>
  part.type === "text" && typeof part.text === "string" ? part.text : `[${part.type} content omitted]`

/** Connects; `onToolsChanged` is called with the server's new list when it says its tools changed. */
export const connectMcp = async (
  target: McpTarget,
  onToolsChanged: (tools: ReadonlyArray<RemoteTool>) => void,
  timeoutMs: number,
  /** For a server authorized with OAuth: its tokens, refreshed as they expire. */
  authProvider?: OAuthClientProvider | undefined
): Promise<McpConnection> => {
  const [{ Client }, { StreamableHTTPClientTransport }, { StdioClientTransport }] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js")
  ])
  let closed = false
  const client = new Client(CLIENT, {
    listChanged: {
      tools: {
        onChanged: (error, tools) => {
          if (error === null && tools !== null) onToolsChanged(tools)
        }
      }
    }
  })
  client.onclose = () => {
    closed = true
  }
  // a transport's background errors (a GET stream the server dropped) are the caller's `closed()`
  client.onerror = () => {}
  const transport = target.kind === "http"
    ? new StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: { headers: { ...target.headers } },
      ...(authProvider === undefined ? {} : { authProvider })
    })
    : new StdioClientTransport({
      command: target.command,
      args: [...target.args],
      // a local server sees only what the operator gave it, not the gateway's own secrets
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", ...target.env },
      stderr: "ignore"
    })
  await client.connect(transport, { timeout: timeoutMs })
  return {
    listTools: async () => {
      const tools: Array<RemoteTool> = []
      let cursor: string | undefined
      // a server may page its list; a few pages is every honest server
      for (let page = 0; page < 20; page++) {
        const listed = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs })
        tools.push(...listed.tools)
        cursor = listed.nextCursor
        if (cursor === undefined) break
      }
      return tools
    },
    callTool: async (name, args, signal) => {
      const result = await client.callTool(
        { name, arguments: (args ?? {}) as Record<string, unknown> },
        undefined,
        { signal, timeout: 24 * 3_600_000 }
      )
      const content = Array.isArray(result.content) ? result.content : []
      return {
        text: content.map((part) => partText(part as { type: string; text?: unknown })).join("\n"),
        isError: result.isError === true
      }
    },
    closed: () => closed,
    close: async () => {
      closed = true
      await client.close().catch(() => undefined)
    }
  }
}
