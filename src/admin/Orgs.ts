/** Organizations: the owners of API keys, tool settings and request logs. */
import { Context, Effect, Layer } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { newId } from "../Ids.ts"
import { toBool, toIso } from "../store/Rows.ts"
import { AdminError } from "./AdminError.ts"

export interface Org {
  readonly id: string
  readonly name: string
  readonly created_at: string
  /** Whether the request log keeps prompt and completion text for this org (opt-in, off by default). */
  readonly log_content: boolean
}

interface OrgRow {
  readonly id: string
  readonly name: string
  readonly created_at: Date | string
  readonly log_content: boolean | number
}

const toOrg = (row: OrgRow): Org => ({
  id: row.id,
  name: row.name,
  created_at: toIso(row.created_at),
  log_content: toBool(row.log_content)
})

export class Orgs extends Context.Service<Orgs, {
  readonly create: (name: string) => Effect.Effect<Org, SqlError.SqlError>
  readonly list: Effect.Effect<ReadonlyArray<Org>, SqlError.SqlError>
  readonly get: (id: string) => Effect.Effect<Org, SqlError.SqlError | AdminError>
  readonly count: Effect.Effect<number, SqlError.SqlError>
  /** Turns storing prompt/completion text in the request log on or off; the org as it now is. */
  readonly setLogContent: (id: string, enabled: boolean) => Effect.Effect<Org, SqlError.SqlError | AdminError>
}>()("svc-gateway/Orgs") {
  static readonly layer = Layer.effect(Orgs, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const create = Effect.fn("Orgs.create")(function*(name: string) {
      const rows = yield* sql<OrgRow>`INSERT INTO orgs (id, name) VALUES (${newId("org")}, ${name})
        RETURNING id, name, created_at, log_content`
      return toOrg(rows[0]!)
    })

    const list = sql<OrgRow>`SELECT id, name, created_at, log_content FROM orgs ORDER BY created_at, id`.pipe(
      Effect.map((rows) => rows.map(toOrg)),
      Effect.withSpan("Orgs.list")
    )

    const get = Effect.fn("Orgs.get")(function*(id: string) {
      const rows = yield* sql<OrgRow>`SELECT id, name, created_at, log_content FROM orgs WHERE id = ${id}`
      const row = rows[0]
      if (row === undefined) return yield* AdminError.notFound("organization", id)
      return toOrg(row)
    })

    const count = sql<{ readonly n: number }>`SELECT CAST(count(*) AS INTEGER) AS n FROM orgs`.pipe(
      Effect.map((rows) => rows[0]?.n ?? 0)
    )

    const setLogContent = Effect.fn("Orgs.setLogContent")(function*(id: string, enabled: boolean) {
      const rows = yield* sql<OrgRow>`UPDATE orgs SET log_content = ${enabled} WHERE id = ${id}
        RETURNING id, name, created_at, log_content`
      const row = rows[0]
      if (row === undefined) return yield* AdminError.notFound("organization", id)
      return toOrg(row)
    })

    return Orgs.of({ create, list, get, count, setLogContent })
  }))
}
