/**
 * The remote MCP servers organizations registered, as stored: the URL, the headers the gateway sends
 * (sealed; only their names are ever shown), and what the gateway last learned from the server (its
 * vetted tools, those it left out and why, the last error). Every instance reads the same rows, so a
 * server's tools are offered at once after a restart, before the server has been asked again.
 */
import { Context, Effect, Layer } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { newId } from "../Ids.ts"
import { AdminError, Conflict } from "../kernel/AdminError.ts"
import { fromJson, toIso, toIsoOrNull } from "../store/Rows.ts"
import { now } from "../store/SqlParts.ts"
import type { Vetted, VettedTool } from "./McpToolNames.ts"

/** A server as the admin API shows it: never the headers' values. */
export interface McpServerInfo {
  readonly id: string
  readonly org_id: string
  readonly name: string
  readonly url: string
  readonly header_names: ReadonlyArray<string>
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
  readonly tools: ReadonlyArray<VettedTool>
}

interface Row {
  readonly id: string
  readonly org_id: string
  readonly name: string
  readonly url: string
  readonly headers_sealed: string | null
  readonly header_names: ReadonlyArray<string> | string
  readonly tools: ReadonlyArray<VettedTool> | string
  readonly rejected: Vetted["rejected"] | string
  readonly last_error: string | null
  readonly refreshed_at: Date | string | null
  readonly created_at: Date | string
}

const COLUMNS =
  "id, org_id, name, url, headers_sealed, header_names, tools, rejected, last_error, refreshed_at, created_at"

const stored = (row: Row): StoredMcpServer => {
  const tools = fromJson(row.tools)
  return {
    headersSealed: row.headers_sealed,
    tools,
    info: {
      id: row.id,
      org_id: row.org_id,
      name: row.name,
      url: row.url,
      header_names: fromJson(row.header_names),
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
      }) {
        const rows = yield* sql<Row>`INSERT INTO mcp_servers (id, org_id, name, url, headers_sealed, header_names)
        VALUES (${newId("mcp")}, ${input.orgId}, ${input.name}, ${input.url}, ${input.headersSealed}, ${
          JSON.stringify(input.headerNames)
        }) ON CONFLICT (name) DO NOTHING RETURNING ${sql.literal(COLUMNS)}`
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

      return McpServers.of({ create, list, all, get, remove, saveRefresh })
    })
  )
}
