/**
 * The MCP servers group of the admin API: an org's admins register remote MCP servers whose tools
 * become the org's shared tools, ask them again, and remove them; its viewers see them. Apart from
 * `AdminHandlers.ts` because it reaches the servers, which only the gateway does (the CLI on the local
 * store does not). Changes are audited; a server's headers never reach a record or an answer.
 */
import { Duration, Effect } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { AdminApi } from "../admin/AdminApi.ts"
import { CreateMcpServer } from "../admin/AdminPayloads.ts"
import { randomBase62 } from "../Ids.ts"
import { decodeInput } from "../kernel/DecodeInput.ts"
import { requireAdmin, requireRead } from "../kernel/Principal.ts"
import { type McpServerInfo, OAUTH_WINDOW_MS } from "../mcp/McpServers.ts"
import { McpSources } from "../mcp/McpSources.ts"
import { Orgs } from "../orgs/Orgs.ts"
import { apiError } from "./AdminHandlers.ts"
import { makeAudited } from "./Audited.ts"
import { readJsonBody } from "./JsonBody.ts"
import { MCP_OAUTH_CALLBACK, MCP_OAUTH_COOKIE } from "./McpOAuthRoute.ts"
import { publicOrigin } from "./PublicOrigin.ts"

export const McpServersHandlers = HttpApiBuilder.group(AdminApi, "mcpServers", (handlers) =>
  Effect.gen(function*() {
    const sources = yield* McpSources
    const orgs = yield* Orgs
    const audited = yield* makeAudited
    const change = <A>(action: string, orgId: string, serverId: string | ((server: A) => string)) => ({
      action,
      targetKind: "mcp_server",
      targetId: serverId,
      orgId
    })
    return handlers
      .handle("list", ({ params }) =>
        Effect.gen(function*() {
          yield* requireRead(params.org_id)
          yield* orgs.get(params.org_id)
          return { object: "list" as const, data: yield* sources.list(params.org_id) }
        }).pipe(Effect.mapError(apiError)))
      .handleRaw("create", ({ params }) =>
        Effect.gen(function*() {
          yield* requireAdmin(params.org_id)
          const input = yield* decodeInput(CreateMcpServer)(yield* readJsonBody)
          yield* orgs.get(params.org_id)
          const created = yield* audited(
            change("mcp_server.create", params.org_id, (server: McpServerInfo) => server.id),
            sources.register(params.org_id, {
              name: input.name,
              url: input.url,
              headers: input.headers ?? {},
              oauth: input.oauth ?? false
            })
          )
          // asked once stored: the answer shows the tools it offers, or why it could not be asked
          return yield* sources.refresh(params.org_id, created.id)
        }).pipe(Effect.mapError(apiError)))
      .handle("refresh", ({ params }) =>
        Effect.gen(function*() {
          yield* requireAdmin(params.org_id)
          return yield* sources.refresh(params.org_id, params.server_id)
        }).pipe(Effect.mapError(apiError)))
      .handle("authorize", ({ params }) =>
        Effect.gen(function*() {
          yield* requireAdmin(params.org_id)
          const request = yield* HttpServerRequest.HttpServerRequest
          const callback = `${publicOrigin(request)}${MCP_OAUTH_CALLBACK}`
          const browserSecret = randomBase62(32)
          const begun = yield* sources.authorize(params.org_id, params.server_id, callback, browserSecret)
          if (begun.authorization_url !== null) {
            // the authorization server's redirect back is a cross-site navigation: Lax lets it ride along
            yield* HttpEffect.appendPreResponseHandler((_request, response) =>
              Effect.succeed(HttpServerResponse.setCookieUnsafe(response, MCP_OAUTH_COOKIE, browserSecret, {
                path: MCP_OAUTH_CALLBACK,
                httpOnly: true,
                sameSite: "lax",
                secure: callback.startsWith("https:"),
                maxAge: Duration.millis(OAUTH_WINDOW_MS)
              }))
            )
          }
          yield* audited(
            change("mcp_server.authorize", params.org_id, params.server_id),
            Effect.succeed({ server_id: params.server_id, redirected: begun.authorization_url !== null })
          )
          return begun
        }).pipe(Effect.mapError(apiError)))
      .handle("remove", ({ params }) =>
        Effect.gen(function*() {
          yield* requireAdmin(params.org_id)
          return yield* audited(
            change("mcp_server.remove", params.org_id, params.server_id),
            sources.unregister(params.org_id, params.server_id)
          )
        }).pipe(Effect.mapError(apiError)))
  }))
