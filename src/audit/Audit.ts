/**
 * The audit log: every change made through the admin API, the CLI or the console, with when, who (the
 * user and the personal token used, the admin token, or the CLI on the local store), what (the action
 * and its target, the organization), the values before and after (secrets left out), and the request's
 * id and address. `Audited.ts` writes each record in the change's own transaction, so a change without
 * its record cannot happen. Rows older than the request log's retention (`GATEWAY_LOG_RETENTION`) are
 * deleted on its schedule.
 */
import { Context, Effect, Layer } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { newTimeOrderedId } from "../Ids.ts"
import type { Principal } from "../kernel/Principal.ts"
import { loadSettings } from "../logs/RequestLog.ts"
import { purgeExpired, purgeOnSchedule } from "../logs/RequestLogRetention.ts"
import { toIso } from "../store/Rows.ts"

export interface AuditEntry {
  readonly principal: Principal
  /** `org.create`, `key.revoke`, `user.roles`, ... */
  readonly action: string
  readonly targetKind: string
  readonly targetId: string | null
  readonly orgId: string | null
  readonly before: unknown
  readonly after: unknown
  readonly requestId: string | null
  readonly address: string | null
}

export type ActorKind = "user" | "admin_token" | "cli"

export interface AuditRecord {
  readonly id: string
  readonly created_at: string
  readonly actor: {
    readonly kind: ActorKind
    readonly user_id: string | null
    readonly email: string | null
    readonly token_id: string | null
  }
  readonly action: string
  readonly target: { readonly kind: string; readonly id: string | null }
  readonly org_id: string | null
  readonly before: unknown
  readonly after: unknown
  readonly request_id: string | null
  readonly address: string | null
}

export interface AuditFilter {
  /** Only this organization's records. */
  readonly orgId?: string | undefined
  /** A user's id or email, or `admin_token` / `cli`. */
  readonly actor?: string | undefined
  readonly action?: string | undefined
  readonly from?: Date | undefined
  readonly to?: Date | undefined
  readonly limit: number
}

/** Field names whose values are never recorded: secrets and their hashes. */
const SECRET_FIELDS = new Set(["key", "token", "key_hash", "token_hash", "secret", "password"])

/** `value` with every secret field taken out, at any depth. */
export const withoutSecrets = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutSecrets)
  if (value === null || typeof value !== "object") return value
  const out: Record<string, unknown> = {}
  for (const [name, field] of Object.entries(value)) {
    if (!SECRET_FIELDS.has(name)) out[name] = withoutSecrets(field)
  }
  return out
}

const asJson = (value: unknown) => value === undefined || value === null ? null : JSON.stringify(withoutSecrets(value))

interface AuditRow {
  readonly id: string
  readonly created_at: Date | string
  readonly actor_kind: string
  readonly actor_user_id: string | null
  readonly actor_email: string | null
  readonly actor_token_id: string | null
  readonly action: string
  readonly target_kind: string
  readonly target_id: string | null
  readonly org_id: string | null
  readonly before: string | null
  readonly after: string | null
  readonly request_id: string | null
  readonly address: string | null
}

const toRecord = (row: AuditRow): AuditRecord => ({
  id: row.id,
  created_at: toIso(row.created_at),
  actor: {
    kind: row.actor_kind as ActorKind,
    user_id: row.actor_user_id,
    email: row.actor_email,
    token_id: row.actor_token_id
  },
  action: row.action,
  target: { kind: row.target_kind, id: row.target_id },
  org_id: row.org_id,
  before: row.before === null ? null : JSON.parse(row.before),
  after: row.after === null ? null : JSON.parse(row.after),
  request_id: row.request_id,
  address: row.address
})

export class Audit extends Context.Service<Audit, {
  /** Writes one record, in the current transaction when there is one. */
  readonly record: (entry: AuditEntry) => Effect.Effect<void, SqlError.SqlError>
  /** Records matching `filter`, newest first. */
  readonly list: (filter: AuditFilter) => Effect.Effect<ReadonlyArray<AuditRecord>, SqlError.SqlError>
}>()("svc-gateway/Audit") {
  /** Records and reads them; no retention (the CLI, briefly on the store, leaves that to the server). */
  static readonly layerRecords = Layer.effect(
    Audit,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const record = (entry: AuditEntry) => {
        const user = entry.principal._tag === "User" ? entry.principal : undefined
        const kind: ActorKind = entry.principal._tag === "User"
          ? "user"
          : entry.principal._tag === "AdminToken" && entry.principal.via === "cli"
          ? "cli"
          : "admin_token"
        return sql`INSERT INTO audit_log (id, actor_kind, actor_user_id, actor_email, actor_token_id, action,
          target_kind, target_id, org_id, before, after, request_id, address)
        VALUES (${newTimeOrderedId("aud")}, ${kind}, ${user?.userId ?? null}, ${user?.email ?? null}, ${
          user?.tokenId ?? null
        }, ${entry.action}, ${entry.targetKind}, ${entry.targetId}, ${entry.orgId}, ${asJson(entry.before)}, ${
          asJson(entry.after)
        }, ${entry.requestId}, ${entry.address})`.pipe(Effect.asVoid)
      }

      const list = (filter: AuditFilter) => {
        const conditions = [sql`1 = 1`]
        if (filter.orgId !== undefined) conditions.push(sql`org_id = ${filter.orgId}`)
        if (filter.action !== undefined) conditions.push(sql`action = ${filter.action}`)
        if (filter.actor !== undefined) {
          conditions.push(
            filter.actor === "admin_token" || filter.actor === "cli"
              ? sql`actor_kind = ${filter.actor}`
              : sql`(actor_user_id = ${filter.actor} OR actor_email = ${filter.actor.toLowerCase()})`
          )
        }
        if (filter.from !== undefined) conditions.push(sql`created_at >= ${filter.from}`)
        if (filter.to !== undefined) conditions.push(sql`created_at < ${filter.to}`)
        return Effect.map(
          sql<AuditRow>`SELECT * FROM audit_log WHERE ${sql.and(conditions)}
          ORDER BY created_at DESC, id DESC LIMIT ${filter.limit}`,
          (rows) => rows.map(toRecord)
        )
      }

      return Audit.of({ record, list })
    })
  )

  /** The records, and their retention: kept as long as the request log's rows, on its schedule. */
  static readonly layer = Layer.effectDiscard(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const settings = yield* loadSettings
    const deleteBefore = (cutoff: Date, limit: number) =>
      Effect.map(
        sql<{ readonly id: string }>`DELETE FROM audit_log WHERE id IN (
        SELECT id FROM audit_log WHERE created_at < ${cutoff} LIMIT ${limit}) RETURNING id`,
        (rows) => rows.length
      )
    yield* Effect.forkScoped(purgeOnSchedule(settings, purgeExpired(settings, { deleteBefore }, () => {})))
  })).pipe(Layer.provideMerge(Audit.layerRecords))
}
