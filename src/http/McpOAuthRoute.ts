/**
 * `GET /mcp/oauth/callback`: where an MCP server's authorization server sends the org admin back after
 * she authorized the gateway (`POST /admin/v1/orgs/{org_id}/mcp-servers/{server_id}/authorize` began
 * it). The authorization is finished only for the browser that began it (its cookie) and once; the
 * tokens are kept sealed, the server asked for its tools, and the browser taken back to the console's
 * MCP servers page, with the reason when it failed.
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { McpSources } from "../mcp/McpSources.ts"
import { errorResponse } from "./ErrorResponse.ts"

export const MCP_OAUTH_CALLBACK = "/mcp/oauth/callback"
export const MCP_OAUTH_COOKIE = "svc_mcp_oauth"

const back = (orgId: string | undefined, outcome: Readonly<Record<string, string>>) =>
  HttpServerResponse.redirect(
    `/console/?${new URLSearchParams(outcome)}#/${orgId === undefined ? "orgs" : `orgs/${orgId}/mcp-servers`}`
  ).pipe(HttpServerResponse.expireCookieUnsafe(MCP_OAUTH_COOKIE, { path: MCP_OAUTH_CALLBACK, httpOnly: true }))

export const McpOAuthRoute = HttpRouter.add(
  "GET",
  MCP_OAUTH_CALLBACK,
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const sources = yield* McpSources
    const params = new URL(request.url, "http://gateway").searchParams
    const state = params.get("state") ?? ""
    const code = params.get("code")
    const secret = request.cookies[MCP_OAUTH_COOKIE] ?? ""
    if (code === null) {
      // refused at the authorization server: its own words
      const reason = params.get("error_description") ?? params.get("error") ?? "no code came back"
      return back(undefined, { mcp_oauth_error: `The authorization server refused: ${reason}` })
    }
    return yield* sources.completeAuthorization(state, code, secret).pipe(
      Effect.map((server) => back(server.org_id, { mcp_oauth: server.name })),
      Effect.catchTag(
        "McpAuthorizationFailed",
        (error) => Effect.succeed(back(undefined, { mcp_oauth_error: error.message }))
      )
    )
  }).pipe(Effect.catch((error) => Effect.succeed(errorResponse(error))))
)
