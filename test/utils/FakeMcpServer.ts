/**
 * A real MCP server over Streamable HTTP for the gateway's shared-tools tests: the SDK's low-level `Server`
 * behind a `node:http` server on 127.0.0.1, at `http://127.0.0.1:<port>/mcp`. The test gives it tools as
 * raw JSON Schemas and plain functions; it records every `tools/call` with the headers it came with (how
 * the tests see what the gateway forwarded) and counts `tools/list` (how they see the gateway's cache).
 * `setTools` changes the list and tells every session, `stop`/`start` take the server down and back up
 * on the same port, and `requireHeader` makes it refuse requests without a credential.
 *
 * Sessions are stateful, as most real servers run: one `Server` and transport per session, by the id the
 * transport hands out in its answer to `initialize`.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { CallToolRequestSchema, isInitializeRequest, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import type { CallToolResult, IsomorphicHeaders, Tool } from "@modelcontextprotocol/sdk/types.js"
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface FakeMcpTool {
  readonly name: string
  readonly description: string
  /** A raw JSON Schema object, e.g. `{ type: "object", properties: { text: { type: "string" } } }`. */
  readonly inputSchema: Readonly<Record<string, unknown>>
  /** The result's text; throwing makes an `isError` result with the message. */
  readonly run: (args: Record<string, unknown>) => string | Promise<string>
}

export interface FakeMcpServer {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string
  /** Every tools/call received: tool name, arguments as sent, and the request's headers (lower-case names). */
  readonly calls: Array<{ readonly tool: string; readonly args: unknown; readonly headers: Record<string, string> }>
  /** How many tools/list requests were answered. */
  readonly listCount: () => number
  /**
   * Replaces the tool list and sends `notifications/tools/list_changed` to every open session over its
   * standalone GET SSE stream; a session whose stream is not open yet gets it as soon as it opens.
   */
  readonly setTools: (tools: ReadonlyArray<FakeMcpTool>) => void
  /**
   * Stops listening and destroys open sockets, keeping the port; `start` listens on it again. Sessions
   * end with it, as in a restarted server: a client's old session id then gets 404.
   */
  readonly stop: () => Promise<void>
  readonly start: () => Promise<void>
  readonly close: () => Promise<void>
  /** With `oauth`: the bearer tokens it was sent, in order. */
  readonly tokensSeen: ReadonlyArray<string>
  /** With `oauth`: refuses every token seen so far, as a server does when they expire. */
  readonly expireTokens: () => void
}

interface Session {
  readonly server: Server
  readonly transport: StreamableHTTPServerTransport
  /** The standalone GET SSE stream, once the transport has answered it. */
  stream: ServerResponse | undefined
  /** A list_changed this session has not been sent yet. */
  owed: boolean
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify(body))
}

const rpcError = (res: ServerResponse, status: number, code: number, message: string) =>
  json(res, status, { jsonrpc: "2.0", error: { code, message }, id: null })

/** The body parsed as JSON; `undefined` when it is not JSON. */
const readJson = async (req: IncomingMessage): Promise<unknown> => {
  const parts: Array<Buffer> = []
  for await (const part of req) parts.push(part as Buffer)
  try {
    return JSON.parse(Buffer.concat(parts).toString("utf8"))
  } catch {
    return undefined
  }
}

const plainHeaders = (headers: IsomorphicHeaders | undefined): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers ?? {}).flatMap(([name, value]) =>
      value === undefined ? [] : [[name.toLowerCase(), Array.isArray(value) ? value.join(", ") : value]]
    )
  )

const failure = (message: string): CallToolResult => ({ content: [{ type: "text", text: message }], isError: true })

export const startFakeMcpServer = async (options: {
  readonly tools: ReadonlyArray<FakeMcpTool>
  /** When set, every HTTP request without exactly this header value gets 401 (plain JSON body). */
  readonly requireHeader?: { readonly name: string; readonly value: string }
  /**
   * A protected resource (RFC 9728): its metadata names `issuer` as its authorization server, and a
   * request whose bearer token `accepts` refuses gets 401 with the metadata's URL in `WWW-Authenticate`.
   */
  readonly oauth?: { readonly issuer: string; readonly accepts: (token: string) => Promise<boolean> }
}): Promise<FakeMcpServer> => {
  let tools = options.tools
  let lists = 0
  const calls: FakeMcpServer["calls"] = []
  const sessions = new Map<string, Session>()

  // The transport drops a server notification when the session has no standalone stream (the SDK client
  // opens it only after `initialized`, without waiting for it), so a list_changed is owed until it can go.
  const flush = (session: Session) => {
    if (!session.owed || session.stream === undefined || session.stream.destroyed) return
    session.owed = false
    session.server.sendToolListChanged().catch(() => {
      session.owed = true
    })
  }

  // The transport registers the stream before it writes the answer's head, so a 200 head means a
  // notification sent now reaches the client.
  const watchStream = async (session: Session, res: ServerResponse) => {
    for (let i = 0; i < 200 && !res.headersSent && !res.destroyed; i++) await sleep(5)
    if (!res.headersSent || res.destroyed || res.statusCode !== 200) return
    session.stream = res
    res.once("close", () => {
      if (session.stream === res) session.stream = undefined
    })
    flush(session)
  }

  const openSession = async (): Promise<Session> => {
    const server = new Server({ name: "fake-mcp", version: "1.0.0" }, {
      capabilities: { tools: { listChanged: true } }
    })
    server.setRequestHandler(ListToolsRequestSchema, () => {
      lists++
      return {
        tools: tools.map((tool): Tool => ({
          name: tool.name,
          description: tool.description,
          // the test's schema as it is: the gateway must pass on what a server declares, not a rebuilt one
          inputSchema: tool.inputSchema as Tool["inputSchema"]
        }))
      }
    })
    server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
      const { name, arguments: args } = request.params
      calls.push({ tool: name, args, headers: plainHeaders(extra.requestInfo?.headers) })
      const tool = tools.find((t) => t.name === name)
      if (tool === undefined) return failure(`unknown tool: ${name}`)
      try {
        return { content: [{ type: "text", text: await tool.run(args ?? {}) }] }
      } catch (error) {
        return failure(error instanceof Error ? error.message : String(error))
      }
    })
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, session)
      }
    })
    // set before `connect`, which chains its own close handler after this one
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
    }
    const session: Session = { server, transport, stream: undefined, owed: false }
    await server.connect(transport)
    return session
  }

  let origin = () => ""
  const tokensSeen: Array<string> = []
  const expired = new Set<string>()
  const metadataPath = "/.well-known/oauth-protected-resource/mcp"

  /** False (and answered 401) when OAuth is on and the request's token is not one the server takes. */
  const authorized = async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (options.oauth === undefined) return true
    const token = /^Bearer (.+)$/.exec(req.headers["authorization"] ?? "")?.[1]
    if (token !== undefined && !tokensSeen.includes(token)) tokensSeen.push(token)
    if (token !== undefined && !expired.has(token) && await options.oauth.accepts(token)) return true
    res.writeHead(401, {
      "content-type": "application/json",
      "www-authenticate": `Bearer resource_metadata="${origin()}${metadataPath}"`
    }).end(JSON.stringify({ error: "invalid_token" }))
    return false
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname
    if (options.oauth !== undefined && path.startsWith("/.well-known/oauth-protected-resource")) {
      json(res, 200, {
        resource: `${origin()}/mcp`,
        authorization_servers: [options.oauth.issuer],
        bearer_methods_supported: ["header"],
        scopes_supported: ["mcp"]
      })
      return
    }
    if (!(await authorized(req, res))) return
    const required = options.requireHeader
    if (required !== undefined && req.headers[required.name.toLowerCase()] !== required.value) {
      json(res, 401, { error: "unauthorized" })
      return
    }
    if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== "/mcp") {
      json(res, 404, { error: "not found" })
      return
    }
    const sessionId = req.headers["mcp-session-id"]
    const session = typeof sessionId === "string" ? sessions.get(sessionId) : undefined
    if (req.method === "POST") {
      const body = await readJson(req)
      if (body === undefined) {
        rpcError(res, 400, -32700, "Parse error: the body is not JSON")
        return
      }
      if (session !== undefined) {
        await session.transport.handleRequest(req, res, body)
        return
      }
      if (sessionId === undefined && isInitializeRequest(body)) {
        await (await openSession()).transport.handleRequest(req, res, body)
        return
      }
    } else if (session !== undefined) {
      if (req.method === "GET") void watchStream(session, res)
      await session.transport.handleRequest(req, res)
      return
    }
    // as the spec has it: 404 for a session this server does not know (the client starts a new one),
    // 400 for a request that names none
    if (sessionId === undefined) rpcError(res, 400, -32000, "Bad Request: no session id")
    else rpcError(res, 404, -32001, "Session not found")
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) res.destroy()
      else rpcError(res, 500, -32603, `the fake MCP server failed: ${String(error)}`)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  origin = () => `http://127.0.0.1:${port}`

  const stop = async () => {
    await Promise.all([...sessions.values()].map((session) => session.server.close()))
    sessions.clear()
    if (!server.listening) return
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      // after `close`, so no connection slips in between; the GET streams would otherwise keep it open
      server.closeAllConnections()
    })
  }

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    listCount: () => lists,
    setTools: (next) => {
      tools = next
      for (const session of sessions.values()) {
        session.owed = true
        flush(session)
      }
    },
    stop,
    start: async () => {
      if (server.listening) return
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject)
        server.listen(port, "127.0.0.1", () => {
          server.off("error", reject)
          resolve()
        })
      })
    },
    close: stop,
    tokensSeen,
    expireTokens: () => tokensSeen.forEach((token) => expired.add(token))
  }
}

/** Lower-case letters unique to this run: MCP server names are the gateway's own, and the test database is shared between runs. */
export const runLetters = (n = 8): string =>
  Array.from({ length: n }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join("")

/** A search tool: answers `found: <query>`. */
export const searchTool = (description = "Searches the team's docs."): FakeMcpTool => ({
  name: "search",
  description,
  inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
  run: (args) => `found: ${String(args["query"])}`
})

/** A tool whose name no model API takes: the gateway leaves it out, saying why. */
export const badlyNamedTool: FakeMcpTool = {
  name: "read file",
  description: "A name no model API takes",
  inputSchema: { type: "object", properties: {} },
  run: () => ""
}
