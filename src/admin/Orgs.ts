/** Organizations: the owners of API keys, tool settings and request logs. */
import { Context, Effect, Layer } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { newId } from "../Ids.ts"
import { toIso } from "../store/Rows.ts"
import { AdminError } from "./AdminError.ts"

export interface Org {
  readonly id: string
  readonly name: string
  readonly created_at: string
}

interface OrgRow {
  readonly id: string
  readonly name: string
  readonly created_at: Date
}

const toOrg = (row: OrgRow): Org => ({ id: row.id, name: row.name, created_at: toIso(row.created_at) })

export class Orgs extends Context.Service<Orgs, {
  readonly create: (name: string) => Effect.Effect<Org, SqlError.SqlError>
  readonly list: Effect.Effect<ReadonlyArray<Org>, SqlError.SqlError>
  readonly get: (id: string) => Effect.Effect<Org, SqlError.SqlError | AdminError>
  readonly count: Effect.Effect<number, SqlError.SqlError>
}>()("svc-gateway/Orgs") {
  static readonly layer = Layer.effect(Orgs, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const create = Effect.fn("Orgs.create")(function*(name: string) {
      const rows = yield* sql<OrgRow>`INSERT INTO orgs (id, name) VALUES (${newId("org")}, ${name})
        RETURNING id, name, created_at`
      return toOrg(rows[0]!)
    })

    const list = sql<OrgRow>`SELECT id, name, created_at FROM orgs ORDER BY created_at, id`.pipe(
      Effect.map((rows) => rows.map(toOrg)),
      Effect.withSpan("Orgs.list")
    )

    const get = Effect.fn("Orgs.get")(function*(id: string) {
      const rows = yield* sql<OrgRow>`SELECT id, name, created_at FROM orgs WHERE id = ${id}`
      const row = rows[0]
      if (row === undefined) return yield* AdminError.notFound("organization", id)
      return toOrg(row)
    })

    const count = sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM orgs`.pipe(
      Effect.map((rows) => rows[0]?.n ?? 0)
    )

    return Orgs.of({ create, list, get, count })
  }))
}
