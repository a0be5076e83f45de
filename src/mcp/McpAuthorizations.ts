/**
 * An org admin authorizing the gateway at an MCP server that takes OAuth (`McpOAuth.ts` does the
 * protocol): begun through the admin API, which tells the console where to send her, and finished at
 * the callback with the code her browser brings back. The authorization is bound to that browser (the
 * SHA-256 of a cookie's secret), taken once and within 10 minutes; the record it leaves (the registered
 * client, then the tokens) is kept by the server's handle, sealed and per server, so per org.
 */
import { Duration, Effect, Option, Schema } from "effect"
import type { SqlError } from "effect/sql"
import type { AdminError } from "../kernel/AdminError.ts"
import { RequestError } from "../kernel/RequestError.ts"
import { errorText } from "./McpConnection.ts"
import { beginAuthorization, finishAuthorization, type OAuthRecord } from "./McpOAuth.ts"
import type { McpServerInfo, McpServers, StoredMcpServer } from "./McpServers.ts"

/** An authorization could not be finished; the message says why, for the org admin. */
export class McpAuthorizationFailed extends Schema.TaggedError<McpAuthorizationFailed>()("McpAuthorizationFailed", {
  message: Schema.String
}) {}

/** What authorizing needs of a server the gateway holds. */
export interface OAuthHandle {
  readonly record: () => OAuthRecord | undefined
  /** Keeps a new record (sealed, and told to the other instances). */
  readonly save: (record: OAuthRecord) => Promise<void>
  /** Connects anew with the tokens just kept, and asks the server for its tools. */
  readonly renew: Effect.Effect<void>
}

export interface Authorizations {
  /**
   * Begins an org admin's authorization of an OAuth server: where to send her (null when the tokens
   * kept still work). `browserSecret` binds it to her browser (a cookie), so only she can finish it.
   */
  readonly authorize: (
    orgId: string,
    serverId: string,
    redirectUrl: string,
    browserSecret: string
  ) => Effect.Effect<{ readonly authorization_url: string | null }, SqlError.SqlError | AdminError | RequestError>
  /** Finishes one with the code the authorization server sent back; the server is asked for its tools. */
  readonly completeAuthorization: (
    state: string,
    code: string,
    browserSecret: string
  ) => Effect.Effect<McpServerInfo, SqlError.SqlError | AdminError | McpAuthorizationFailed>
}

export const makeAuthorizations = (deps: {
  readonly servers: McpServers["Service"]
  readonly timeoutMs: number
  /** Undefined when the gateway does not offer the server (the routing file has one of its name). */
  readonly handleOf: (server: StoredMcpServer) => OAuthHandle | undefined
}): Authorizations => {
  const { servers } = deps
  // discovery, registration and the token request are a few calls to servers that may hang
  const within = <A, E>(effect: Effect.Effect<A, E>, late: () => E) =>
    Effect.timeoutOrElse(effect, {
      duration: Duration.millis(deps.timeoutMs * 3),
      orElse: () => Effect.fail(late())
    })

  const authorize = Effect.fn("McpSources.authorize")(function*(
    orgId: string,
    serverId: string,
    redirectUrl: string,
    browserSecret: string
  ) {
    const server = yield* servers.get(orgId, serverId)
    const refused = (message: string) => RequestError.invalidField("server_id", message)
    if (!server.info.oauth) return yield* refused(`The MCP server '${server.info.name}' is not authorized with OAuth.`)
    const handle = deps.handleOf(server)
    if (handle === undefined) {
      return yield* refused(`The MCP server '${server.info.name}' is not offered; see its last error.`)
    }
    const kept = handle.record()
    // a client registered for another callback (the gateway moved) is registered again
    let record: OAuthRecord = kept?.redirectUrl === redirectUrl ? kept : { redirectUrl }
    const begun = yield* within(
      Effect.tryPromise({
        try: () =>
          beginAuthorization(server.info.url, () => record, async (next) => {
            record = next
            await handle.save(next)
          }),
        catch: (cause) => refused(`The MCP server '${server.info.name}' could not be authorized: ${errorText(cause)}`)
      }),
      () => refused(`The MCP server '${server.info.name}' or its authorization server did not answer in time.`)
    )
    if (begun === undefined) return { authorization_url: null }
    yield* servers.beginOAuth({ state: begun.state, serverId, codeVerifier: begun.codeVerifier, browserSecret })
    return { authorization_url: begun.url.href }
  })

  const completeAuthorization = Effect.fn("McpSources.completeAuthorization")(function*(
    state: string,
    code: string,
    browserSecret: string
  ) {
    const failed = (message: string) => new McpAuthorizationFailed({ message })
    const pending = yield* servers.takeOAuth(state, browserSecret)
    if (Option.isNone(pending)) {
      return yield* failed(
        "This authorization was begun in another browser or more than 10 minutes ago; authorize again."
      )
    }
    const found = (yield* servers.all).find((server) => server.info.id === pending.value.serverId)
    if (found === undefined) return yield* failed("The MCP server was removed.")
    const handle = deps.handleOf(found)
    if (handle === undefined) {
      return yield* failed(`The MCP server '${found.info.name}' is not offered; see its last error.`)
    }
    let record = handle.record() ?? { redirectUrl: "" }
    yield* within(
      Effect.tryPromise({
        try: () =>
          finishAuthorization(found.info.url, code, pending.value.codeVerifier, () => record, async (next) => {
            record = next
            await handle.save(next)
          }),
        catch: (cause) => failed(`The MCP server '${found.info.name}' could not be authorized: ${errorText(cause)}`)
      }),
      () => failed(`The authorization server of '${found.info.name}' did not answer in time.`)
    )
    yield* handle.renew
    return (yield* servers.get(found.info.org_id, found.info.id)).info
  })

  return { authorize, completeAuthorization }
}
