/**
 * The remote MCP servers organizations registered, as stored: the URL, the headers the gateway sends
 * (sealed; only their names are ever shown), and what the gateway last learned from the server (its
 * vetted tools, those it left out and why, the last error). Every instance reads the same rows, so a
 * server's tools are offered at once after a restart, before the server has been asked again.
 */
import { Context, Effect, Layer, Option } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { newId } from "../Ids.ts"
import { AdminError, Conflict } from "../kernel/AdminError.ts"
import { hashSecret } from "../keys/ApiKeySecret.ts"
import { fromJson, toBool, toDate, toIso, toIsoOrNull } from "../store/Rows.ts"
import { now, nowPlus } from "../store/SqlParts.ts"
import type { Vetted, VettedTool } from "./McpToolNames.ts"

/** How long a person has at the authorization server between leaving the console and coming back. */
export const OAUTH_WINDOW_MS = 10 * 60_000

/** A server as the admin API shows it: never the headers' values. */
export interface McpServerInfo {
  readonly id: string
  readonly org_id: string
  readonly name: string
  readonly url: string
  readonly header_names: ReadonlyArray<string>
  /** Authorized with OAuth by an org admin, rather than by headers. */
  readonly oauth: boolean
  /** When an org admin last authorized it (OAuth); null: never, or its tokens were dropped. */
  readonly authorized_at: string | null
  readonly tools: ReadonlyArray<{ readonly id: string; readonly name: string; readonly description: string }>
  readonly rejected_tools: Vetted["rejected"]
  readonly last_error: string | null
  readonly refreshed_at: string | null
  readonly created_at: string
}

/** A server as the gateway uses it. */
export interface StoredMcpServer {
  readonly info: McpServerInfo
  readonly headersSealed: string | null
  /** Its OAuth record (`McpOAuth.ts`), sealed. */
  readonly oauthSealed: string | null
  readonly tools: ReadonlyArray<VettedTool>
}

interface Row {
  readonly id: string
  readonly org_id: string
  readonly name: string
  readonly url: string
  readonly headers_sealed: string | null
  readonly header_names: ReadonlyArray<string> | string
  readonly oauth: number | boolean
  readonly oauth_sealed: string | null
  readonly authorized_at: Date | string | null
  readonly tools: ReadonlyArray<VettedTool> | string
  readonly rejected: Vetted["rejected"] | string
  readonly last_error: string | null
  readonly refreshed_at: Date | string | null
  readonly created_at: Date | string
}

const COLUMNS = "id, org_id, name, url, headers_sealed, header_names, oauth, oauth_sealed, authorized_at, tools, " +
  "rejected, last_error, refreshed_at, created_at"

const stored = (row: Row): StoredMcpServer => {
  const tools = fromJson(row.tools)
  return {
    headersSealed: row.headers_sealed,
    oauthSealed: row.oauth_sealed,
    tools,
    info: {
      id: row.id,
      org_id: row.org_id,
      name: row.name,
      url: row.url,
      header_names: fromJson(row.header_names),
      oauth: toBool(row.oauth),
      authorized_at: toIsoOrNull(row.authorized_at),
      tools: tools.map((tool) => ({ id: tool.id, name: tool.remoteName, description: tool.description })),
      rejected_tools: fromJson(row.rejected),
      last_error: row.last_error,
      refreshed_at: toIsoOrNull(row.refreshed_at),
      created_at: toIso(row.created_at)
    }
  }
}

export class McpServers extends Context.Service<McpServers, {
  readonly create: (input: {
    readonly orgId: string
    readonly name: string
    readonly url: string
    readonly headerNames: ReadonlyArray<string>
    readonly headersSealed: string | null
    readonly oauth: boolean
  }) => Effect.Effect<StoredMcpServer, SqlError.SqlError | AdminError>
  readonly list: (orgId: string) => Effect.Effect<ReadonlyArray<StoredMcpServer>, SqlError.SqlError>
  /** Every org's servers: what an instance offers when it starts. */
  readonly all: Effect.Effect<ReadonlyArray<StoredMcpServer>, SqlError.SqlError>
  /** The org's server; another org's is not found. */
  readonly get: (orgId: string, serverId: string) => Effect.Effect<StoredMcpServer, SqlError.SqlError | AdminError>
  readonly remove: (orgId: string, serverId: string) => Effect.Effect<StoredMcpServer, SqlError.SqlError | AdminError>
  /** What the server answered when last asked: its vetted tools, or why it could not be asked. */
  readonly saveRefresh: (
    serverId: string,
    result: { readonly vetted: Vetted } | { readonly error: string }
  ) => Effect.Effect<void, SqlError.SqlError>
  /** Keeps a server's OAuth record; `authorized`: it holds tokens. */
  readonly saveOAuth: (serverId: string, sealed: string, authorized: boolean) => Effect.Effect<void, SqlError.SqlError>
  /** An authorization begun at the server's authorization server, bound to the browser that began it. */
  readonly beginOAuth: (pending: {
    readonly state: string
    readonly serverId: string
    readonly codeVerifier: string
    readonly browserSecret: string
  }) => Effect.Effect<void, SqlError.SqlError>
  /** The server and verifier of the authorization `state` began, once, by its browser, within the window. */
  readonly takeOAuth: (
    state: string,
    browserSecret: string
  ) => Effect.Effect<Option.Option<{ readonly serverId: string; readonly codeVerifier: string }>, SqlError.SqlError>
}>()("svc-gateway/McpServers") {
  static readonly layer = Layer.effect(
    McpServers,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const create = Effect.fn("McpServers.create")(function*(input: {
        readonly orgId: string
        readonly name: string
        readonly url: string
        readonly headerNames: ReadonlyArray<string>
        readonly headersSealed: string | null
        readonly oauth: boolean
      }) {
        const rows = yield* sql<
          Row
        >`INSERT INTO mcp_servers (id, org_id, name, url, headers_sealed, header_names, oauth)
        VALUES (${newId("mcp")}, ${input.orgId}, ${input.name}, ${input.url}, ${input.headersSealed}, ${
          JSON.stringify(input.headerNames)
        }, ${input.oauth ? 1 : 0}) ON CONFLICT (name) DO NOTHING RETURNING ${sql.literal(COLUMNS)}`
        if (rows.length === 0) {
          return yield* new AdminError({
            reason: new Conflict({
              message: `An MCP server named '${input.name}' is already registered on this gateway; choose another name.`
            })
          })
        }
        return stored(rows[0]!)
      })

      const list = (orgId: string) =>
        Effect.map(
          sql<Row>`SELECT ${sql.literal(COLUMNS)} FROM mcp_servers WHERE org_id = ${orgId} ORDER BY created_at, id`,
          (rows) => rows.map(stored)
        )

      const all = Effect.map(
        sql<Row>`SELECT ${sql.literal(COLUMNS)} FROM mcp_servers ORDER BY created_at, id`,
        (rows) => rows.map(stored)
      )

      const get = Effect.fn("McpServers.get")(function*(orgId: string, serverId: string) {
        const [row] = yield* sql<Row>`SELECT ${sql.literal(COLUMNS)} FROM mcp_servers
        WHERE id = ${serverId} AND org_id = ${orgId}`
        if (row === undefined) return yield* AdminError.notFound("MCP server", serverId)
        return stored(row)
      })

      const remove = Effect.fn("McpServers.remove")(function*(orgId: string, serverId: string) {
        const found = yield* get(orgId, serverId)
        yield* sql`DELETE FROM mcp_servers WHERE id = ${serverId} AND org_id = ${orgId}`
        return found
      })

      const saveRefresh = (serverId: string, result: { readonly vetted: Vetted } | { readonly error: string }) =>
        Effect.asVoid(
          "error" in result
            ? sql`UPDATE mcp_servers SET last_error = ${result.error}, refreshed_at = ${now(sql)}
              WHERE id = ${serverId}`
            : sql`UPDATE mcp_servers SET tools = ${JSON.stringify(result.vetted.tools)},
              rejected = ${JSON.stringify(result.vetted.rejected)}, last_error = NULL, refreshed_at = ${now(sql)}
              WHERE id = ${serverId}`
        )

      const saveOAuth = (serverId: string, sealed: string, authorized: boolean) =>
        Effect.asVoid(
          authorized
            ? sql`UPDATE mcp_servers SET oauth_sealed = ${sealed},
              authorized_at = COALESCE(authorized_at, ${now(sql)}) WHERE id = ${serverId}`
            : sql`UPDATE mcp_servers SET oauth_sealed = ${sealed}, authorized_at = NULL WHERE id = ${serverId}`
        )

      const beginOAuth = (pending: {
        readonly state: string
        readonly serverId: string
        readonly codeVerifier: string
        readonly browserSecret: string
      }) =>
        Effect.gen(function*() {
          yield* sql`DELETE FROM mcp_oauth_pending WHERE created_at < ${nowPlus(sql, -OAUTH_WINDOW_MS)}`
          yield* sql`INSERT INTO mcp_oauth_pending (state, server_id, code_verifier, browser_hash)
          VALUES (${pending.state}, ${pending.serverId}, ${pending.codeVerifier}, ${hashSecret(pending.browserSecret)})`
        })

      const takeOAuth = (state: string, browserSecret: string) =>
        Effect.gen(function*() {
          const [row] = yield* sql<{
            readonly server_id: string
            readonly code_verifier: string
            readonly browser_hash: string
            readonly created_at: Date | string
          }>`DELETE FROM mcp_oauth_pending WHERE state = ${state}
          RETURNING server_id, code_verifier, browser_hash, created_at`
          if (row === undefined || row.browser_hash !== hashSecret(browserSecret)) return Option.none()
          if (toDate(row.created_at).getTime() + OAUTH_WINDOW_MS < Date.now()) return Option.none()
          return Option.some({ serverId: row.server_id, codeVerifier: row.code_verifier })
        })

      return McpServers.of({
        create,
        list,
        all,
        get,
        remove,
        saveRefresh,
        saveOAuth,
        beginOAuth,
        takeOAuth
      })
    })
  )
}
