/**
 * An OAuth authorization server for an MCP server, on 127.0.0.1: `oidc-provider` (a certified
 * implementation) with dynamic client registration (RFC 7591), PKCE, resource indicators (RFC 8707: its
 * tokens are for the MCP server named as `resource`) and refresh tokens. Its development sign-in page
 * takes any login. `accepts` is what the MCP server asks of a bearer token: one this server issued,
 * unexpired, for that resource.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import Provider from "oidc-provider"

export interface McpAuthServer {
  readonly issuer: string
  /** Makes the provider, for the MCP server at `resource` (its URL). */
  readonly serve: (resource: string) => void
  readonly accepts: (token: string) => Promise<boolean>
  /** The clients that registered themselves. */
  readonly registered: () => Promise<number>
  readonly close: () => Promise<void>
}

export const startMcpAuthServer = async (): Promise<McpAuthServer> => {
  let handler: ((request: IncomingMessage, response: ServerResponse) => void) | undefined
  let provider: Provider | undefined
  let registrations = 0
  const server = createServer((request, response) => {
    if (request.method === "POST" && request.url === "/reg") registrations++
    if (handler === undefined) response.writeHead(503).end("not serving yet")
    else handler(request, response)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const serve = (resource: string) => {
    provider = new Provider(issuer, {
      features: {
        registration: { enabled: true },
        devInteractions: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => resource,
          useGrantedResource: () => true,
          getResourceServerInfo: (_context, indicator) => {
            if (indicator !== resource) throw new Error(`unknown resource ${indicator}`)
            return { scope: "mcp", accessTokenFormat: "opaque", audience: resource }
          }
        }
      },
      scopes: ["openid", "offline_access", "mcp"],
      pkce: { required: () => true },
      issueRefreshToken: (_context, client) => client.grantTypeAllowed("refresh_token"),
      ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 3600, RefreshToken: 3600 },
      cookies: { keys: ["svc-gateway-test-mcp-auth"] },
      findAccount: (_context, id) => ({ accountId: id, claims: () => ({ sub: id }) })
    })
    handler = provider.callback()
  }

  return {
    issuer,
    serve,
    accepts: async (token) => {
      const found = await provider?.AccessToken.find(token)
      return found !== undefined && !found.isExpired
    },
    registered: () => Promise.resolve(registrations),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
