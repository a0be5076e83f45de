/**
 * API keys of organizations: create (the secret is returned once), list, revoke, and the lookup by
 * hash that authentication uses. Last-used times are recorded in memory and written in one batched
 * statement every few seconds, never per request.
 */
import { Context, Duration, Effect, Layer, Semaphore } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { newId } from "../Ids.ts"
import { AdminError } from "../kernel/AdminError.ts"
import { alertsOf } from "../kernel/AlertSettings.ts"
import { type CompressionLevel, isCompressionLevel } from "../kernel/CompressionLevel.ts"
import { applyLimits, type Limits, type LimitsChange, limitsOf, NO_LIMITS, storedLimits } from "../kernel/Limits.ts"
import { Orgs } from "../orgs/Orgs.ts"
import { ChangeFeed } from "../store/ChangeFeed.ts"
import { fromJson, toBool, toDateOrNull, toIso, toIsoOrNull, toStoredTime } from "../store/Rows.ts"
import { json, now } from "../store/SqlParts.ts"
import { generateSecret } from "./ApiKeySecret.ts"

/** A key as listings show it: never the secret. */
export interface ApiKeyInfo {
  readonly id: string
  readonly org_id: string
  readonly name: string
  /** What the key is for; null: none given. */
  readonly description: string | null
  readonly prefix: string
  readonly created_at: string
  readonly expires_at: string | null
  readonly revoked_at: string | null
  readonly last_used_at: string | null
  /** `null`: every shared tool activated for the org is allowed. */
  readonly allowed_svc_tool_ids: ReadonlyArray<string> | null
  /** The key's own rate limits and budgets (the org's apply too). */
  readonly limits: Limits
}

/** The create response: the only place the secret ever appears. */
export interface CreatedApiKey extends ApiKeyInfo {
  readonly key: string
}

/** What authentication needs to know about a key. */
export interface KeyRecord {
  readonly id: string
  readonly orgId: string
  readonly name: string
  readonly expiresAt: Date | null
  readonly revokedAt: Date | null
  readonly allowedSvcToolIds: ReadonlyArray<string> | null
  /** The org's opt-in to storing prompt and completion text in the request log. */
  readonly logContent: boolean
  /** The org's compression level; `null`: the gateway's. */
  readonly compression: CompressionLevel | null
  readonly limits: { readonly key: Limits; readonly org: Limits }
  /** The org's alert thresholds; null: no alerts. */
  readonly alertThresholds: ReadonlyArray<number> | null
}

export interface NewKey {
  readonly name: string
  readonly description?: string | null
  readonly expiresAt: Date | null
  /** Absent or `null`: every shared tool activated for the org is allowed. */
  readonly allowedSvcToolIds?: ReadonlyArray<string> | null
  readonly limits?: LimitsChange
}

/** A key edit: only the fields present change. */
export interface KeyChanges {
  readonly name?: string
  readonly description?: string | null
  readonly expiresAt?: Date | null
  readonly allowedSvcToolIds?: ReadonlyArray<string> | null
  readonly limits?: LimitsChange
}

interface KeyRow {
  readonly id: string
  readonly org_id: string
  readonly name: string
  readonly description: string | null
  readonly prefix: string
  readonly created_at: Date | string
  readonly expires_at: Date | string | null
  readonly revoked_at: Date | string | null
  readonly last_used_at: Date | string | null
  /** JSON: parsed (PostgreSQL) or text (SQLite). */
  readonly allowed_svc_tool_ids: ReadonlyArray<string> | string | null
  readonly limits: string | null
}

const COLUMNS =
  "id, org_id, name, description, prefix, created_at, expires_at, revoked_at, last_used_at, allowed_svc_tool_ids, limits"

const toInfo = (row: KeyRow): ApiKeyInfo => ({
  id: row.id,
  org_id: row.org_id,
  name: row.name,
  description: row.description,
  prefix: row.prefix,
  created_at: toIso(row.created_at),
  expires_at: toIsoOrNull(row.expires_at),
  revoked_at: toIsoOrNull(row.revoked_at),
  last_used_at: toIsoOrNull(row.last_used_at),
  allowed_svc_tool_ids: row.allowed_svc_tool_ids === null ? null : fromJson(row.allowed_svc_tool_ids),
  limits: limitsOf(row.limits)
})

export class ApiKeys extends Context.Service<ApiKeys, {
  readonly create: (orgId: string, input: NewKey) => Effect.Effect<CreatedApiKey, SqlError.SqlError | AdminError>
  readonly list: (orgId: string) => Effect.Effect<ReadonlyArray<ApiKeyInfo>, SqlError.SqlError | AdminError>
  readonly get: (keyId: string) => Effect.Effect<ApiKeyInfo, SqlError.SqlError | AdminError>
  readonly update: (keyId: string, changes: KeyChanges) => Effect.Effect<ApiKeyInfo, SqlError.SqlError | AdminError>
  /** Marks the key revoked; revoking twice keeps the first time. */
  readonly revoke: (keyId: string) => Effect.Effect<ApiKeyInfo, SqlError.SqlError | AdminError>
  readonly findByHash: (hash: string) => Effect.Effect<KeyRecord | undefined, SqlError.SqlError>
  /** Records a use in memory; the batch writer stores it shortly after. */
  readonly markUsed: (keyId: string) => void
  /** Writes the pending last-used times now (also done on a schedule and at shutdown). */
  readonly flushLastUsed: Effect.Effect<void, SqlError.SqlError>
}>()("svc-gateway/ApiKeys") {
  /** Writes the pending last-used times every `flushEvery` (a test that flushes by itself sets it long). */
  static readonly layerWith = (options: { readonly flushEvery: Duration.Input }) =>
    Layer.effect(
      ApiKeys,
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const orgs = yield* Orgs
        const feed = yield* ChangeFeed
        let pendingUse = new Map<string, number>()

        const selectKey = (keyId: string) =>
          sql<KeyRow>`SELECT ${sql.literal(COLUMNS)} FROM api_keys WHERE id = ${keyId}`.pipe(
            Effect.flatMap((rows) =>
              rows[0] === undefined ? Effect.fail(AdminError.notFound("API key", keyId)) : Effect.succeed(rows[0])
            )
          )

        const create = Effect.fn("ApiKeys.create")(function*(orgId: string, input: NewKey) {
          yield* orgs.get(orgId)
          const secret = generateSecret()
          const rows = yield* sql<KeyRow>`INSERT INTO api_keys
        (id, org_id, name, description, key_hash, prefix, expires_at, allowed_svc_tool_ids, limits)
        VALUES (${newId("key")}, ${orgId}, ${input.name}, ${
            input.description ?? null
          }, ${secret.hash}, ${secret.prefix},
          ${input.expiresAt},
          ${json(sql, input.allowedSvcToolIds ?? null)}, ${storedLimits(applyLimits(NO_LIMITS, input.limits ?? null))})
        RETURNING ${sql.literal(COLUMNS)}`
          return { ...toInfo(rows[0]!), key: secret.key }
        })

        const list = Effect.fn("ApiKeys.list")(function*(orgId: string) {
          yield* orgs.get(orgId)
          const rows = yield* sql<KeyRow>`SELECT ${sql.literal(COLUMNS)} FROM api_keys
        WHERE org_id = ${orgId} ORDER BY created_at, id`
          return rows.map(toInfo)
        })

        const get = Effect.fn("ApiKeys.get")(function*(keyId: string) {
          return toInfo(yield* selectKey(keyId))
        })

        const update = Effect.fn("ApiKeys.update")(function*(keyId: string, changes: KeyChanges) {
          const current = yield* selectKey(keyId)
          const limits = changes.limits === undefined
            ? undefined
            : storedLimits(applyLimits(limitsOf(current.limits), changes.limits))
          yield* sql`UPDATE api_keys SET
        limits = ${limits === undefined ? sql`limits` : sql`${limits}`},
        name = ${changes.name === undefined ? sql`name` : sql`${changes.name}`},
        description = ${changes.description === undefined ? sql`description` : sql`${changes.description}`},
        expires_at = ${changes.expiresAt === undefined ? sql`expires_at` : sql`${changes.expiresAt}`},
        allowed_svc_tool_ids = ${
            changes.allowedSvcToolIds === undefined
              ? sql`allowed_svc_tool_ids`
              : json(sql, changes.allowedSvcToolIds)
          }
        WHERE id = ${keyId}`
          yield* feed.publish(`key:${keyId}`)
          return toInfo(yield* selectKey(keyId))
        })

        const revoke = Effect.fn("ApiKeys.revoke")(function*(keyId: string) {
          yield* sql`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ${now(sql)}) WHERE id = ${keyId}`
          yield* feed.publish(`key:${keyId}`)
          return toInfo(yield* selectKey(keyId))
        })

        const findByHash = Effect.fn("ApiKeys.findByHash")(function*(hash: string) {
          // the org's log and compression settings ride along, so they are cached with the key
          const rows = yield* sql<
            Omit<KeyRow, "prefix" | "created_at" | "last_used_at"> & {
              readonly log_content: boolean | number
              readonly compression: string | null
              readonly org_limits: string | null
              readonly org_alerts: string | null
            }
          >`
        SELECT k.id, k.org_id, k.name, k.expires_at, k.revoked_at, k.allowed_svc_tool_ids, k.limits, o.log_content, o.compression,
          o.limits AS org_limits, o.alerts AS org_alerts
        FROM api_keys k JOIN orgs o ON o.id = k.org_id WHERE k.key_hash = ${hash}`
          const row = rows[0]
          if (row === undefined) return undefined
          return {
            id: row.id,
            orgId: row.org_id,
            name: row.name,
            expiresAt: toDateOrNull(row.expires_at),
            revokedAt: toDateOrNull(row.revoked_at),
            allowedSvcToolIds: row.allowed_svc_tool_ids === null ? null : fromJson(row.allowed_svc_tool_ids),
            logContent: toBool(row.log_content),
            // a value this version does not know is as good as none: the gateway's default applies
            compression: isCompressionLevel(row.compression) ? row.compression : null,
            limits: { key: limitsOf(row.limits), org: limitsOf(row.org_limits) },
            alertThresholds: alertsOf(row.org_alerts)?.thresholds ?? null
          }
        })

        const markUsed = (keyId: string) => {
          pendingUse.set(keyId, Date.now())
        }

        // one flush at a time: an explicit flush waits for the scheduled one already writing
        const oneAtATime = yield* Semaphore.make(1)

        const flushLastUsed = Effect.gen(function*() {
          if (pendingUse.size === 0) return
          const batch = pendingUse
          pendingUse = new Map()
          const ids = [...batch.keys()]
          const times = ids.map((id) => toStoredTime(new Date(batch.get(id)!)))
          // one statement for the whole batch: arrays unnested on PostgreSQL, a JSON list of pairs on SQLite
          const statement = sql.onDialectOrElse({
            sqlite: () =>
              sql`UPDATE api_keys AS k SET last_used_at = u.value ->> 1
            FROM json_each(${JSON.stringify(ids.map((id, i) => [id, times[i]]))}) AS u
            WHERE k.id = u.value ->> 0 AND (k.last_used_at IS NULL OR k.last_used_at < u.value ->> 1)`,
            orElse: () =>
              sql`UPDATE api_keys AS k SET last_used_at = u.used_at::timestamptz
            FROM unnest(${ids}::text[], ${times}::text[]) AS u(id, used_at)
            WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.used_at::timestamptz)`
          })
          yield* statement.pipe(
            // keep the times for the next round rather than lose them, also when interrupted at shutdown
            // (the finalizer's flush then writes them)
            Effect.onError(() =>
              Effect.sync(() => {
                for (const [id, at] of batch) if (!pendingUse.has(id)) pendingUse.set(id, at)
              })
            )
          )
        }).pipe(oneAtATime.withPermit, Effect.withSpan("ApiKeys.flushLastUsed"))

        yield* Effect.addFinalizer(() => flushLastUsed.pipe(Effect.ignore))
        // the first flush a period after start, not at it: a fiber forked here starts when the scheduler
        // next runs its tasks, which can be after the first use was marked and a read began
        yield* Effect.sleep(options.flushEvery).pipe(
          Effect.andThen(flushLastUsed.pipe(Effect.ignore)),
          Effect.forever,
          Effect.forkScoped
        )

        return ApiKeys.of({ create, list, get, update, revoke, findByHash, markUsed, flushLastUsed })
      })
    )

  static readonly layer = ApiKeys.layerWith({ flushEvery: "5 seconds" })
}
