/** Organizations: the owners of API keys, tool settings and request logs. */
import { Context, Effect, Layer } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { newId } from "../Ids.ts"
import { AdminError } from "../kernel/AdminError.ts"
import { type AlertSettings, alertsOf } from "../kernel/AlertSettings.ts"
import { type CompressionLevel, isCompressionLevel } from "../kernel/CompressionLevel.ts"
import { applyLimits, type Limits, type LimitsChange, limitsOf, storedLimits } from "../kernel/Limits.ts"
import { ChangeFeed } from "../store/ChangeFeed.ts"
import { toBool, toIso } from "../store/Rows.ts"

export interface Org {
  readonly id: string
  readonly name: string
  readonly created_at: string
  /** Whether the request log keeps prompt and completion text for this org (opt-in, off by default). */
  readonly log_content: boolean
  /** The org's compression level; `null`: the gateway's (`GATEWAY_COMPRESSION`). */
  readonly compression: CompressionLevel | null
  /** Requests and tokens per minute, tokens and dollars per day and month for the whole org. */
  readonly limits: Limits
  /** Where budget alerts go, and at which shares of a dollar budget; `null`: no alerts. */
  readonly alerts: AlertSettings | null
}

/** An org edit: only the fields present change; `compression: null` goes back to the gateway's level. */
export interface OrgChanges {
  readonly logContent?: boolean
  readonly compression?: CompressionLevel | null
  readonly limits?: LimitsChange
  /** `null`: no alerts any more. */
  readonly alerts?: AlertSettings | null
}

interface OrgRow {
  readonly id: string
  readonly name: string
  readonly created_at: Date | string
  readonly log_content: boolean | number
  readonly compression: string | null
  readonly limits: string | null
  readonly alerts: string | null
}

const toOrg = (row: OrgRow): Org => ({
  id: row.id,
  name: row.name,
  created_at: toIso(row.created_at),
  log_content: toBool(row.log_content),
  compression: isCompressionLevel(row.compression) ? row.compression : null,
  limits: limitsOf(row.limits),
  alerts: alertsOf(row.alerts)
})

const COLUMNS = "id, name, created_at, log_content, compression, limits, alerts"

export class Orgs extends Context.Service<Orgs, {
  readonly create: (name: string) => Effect.Effect<Org, SqlError.SqlError>
  readonly list: Effect.Effect<ReadonlyArray<Org>, SqlError.SqlError>
  readonly get: (id: string) => Effect.Effect<Org, SqlError.SqlError | AdminError>
  readonly count: Effect.Effect<number, SqlError.SqlError>
  /** Changes the org's settings (storing request text, compression, limits, alerts); the org as it now is. */
  readonly update: (id: string, changes: OrgChanges) => Effect.Effect<Org, SqlError.SqlError | AdminError>
}>()("svc-gateway/Orgs") {
  static readonly layer = Layer.effect(
    Orgs,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const feed = yield* ChangeFeed

      const create = Effect.fn("Orgs.create")(function*(name: string) {
        const rows = yield* sql<OrgRow>`INSERT INTO orgs (id, name) VALUES (${newId("org")}, ${name})
        RETURNING ${sql.literal(COLUMNS)}`
        return toOrg(rows[0]!)
      })

      const list = sql<OrgRow>`SELECT ${sql.literal(COLUMNS)} FROM orgs ORDER BY created_at, id`.pipe(
        Effect.map((rows) => rows.map(toOrg)),
        Effect.withSpan("Orgs.list")
      )

      const get = Effect.fn("Orgs.get")(function*(id: string) {
        const rows = yield* sql<OrgRow>`SELECT ${sql.literal(COLUMNS)} FROM orgs WHERE id = ${id}`
        const row = rows[0]
        if (row === undefined) return yield* AdminError.notFound("organization", id)
        return toOrg(row)
      })

      const count = sql<{ readonly n: number }>`SELECT CAST(count(*) AS INTEGER) AS n FROM orgs`.pipe(
        Effect.map((rows) => rows[0]?.n ?? 0)
      )

      const update = Effect.fn("Orgs.update")(function*(id: string, changes: OrgChanges) {
        const limits = changes.limits === undefined
          ? undefined
          : storedLimits(applyLimits((yield* get(id)).limits, changes.limits))
        const rows = yield* sql<OrgRow>`UPDATE orgs SET
        log_content = ${changes.logContent === undefined ? sql`log_content` : sql`${changes.logContent}`},
        compression = ${changes.compression === undefined ? sql`compression` : sql`${changes.compression}`},
        limits = ${limits === undefined ? sql`limits` : sql`${limits}`},
        alerts = ${
          changes.alerts === undefined
            ? sql`alerts`
            : sql`${changes.alerts === null ? null : JSON.stringify(changes.alerts)}`
        }
        WHERE id = ${id} RETURNING ${sql.literal(COLUMNS)}`
        const row = rows[0]
        if (row === undefined) return yield* AdminError.notFound("organization", id)
        yield* feed.publish(`org:${id}`)
        return toOrg(row)
      })

      return Orgs.of({ create, list, get, count, update })
    })
  )
}
