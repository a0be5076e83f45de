/**
 * What the gateway keeps between the two halves of a mixed tool turn: the model asked for shared and
 * client tools at once, the gateway ran the shared ones and returned only the client's calls with a
 * `svc_pending_id`. When the client sends its results back with that id, the stored shared calls and
 * results are put back so the upstream sees a whole, valid conversation. Scoped to the org and key that
 * made it; usable until it expires (`GATEWAY_SVC_PENDING_TTL`), retries included.
 */
import { Context, Duration, Effect, Layer, Schedule, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { GatewayConfig } from "../Config.ts"
import { newId } from "../Ids.ts"
import type { Caller } from "../kernel/Caller.ts"
import { ChatMessage, ContentPart, ToolCall } from "../kernel/Canonical.ts"
import { InvalidSvcPendingId, RequestError } from "../kernel/RequestError.ts"
import { fromJson } from "../store/Rows.ts"
import { json, now, nowPlus } from "../store/SqlParts.ts"

export const PendingState = Schema.Struct({
  /** The ids of the client tool calls returned with the pending id: they find the assistant message again. */
  clientToolCallIds: Schema.Array(Schema.String),
  /** The shared-only rounds before this turn (assistant calls and tool results), in order. */
  priorTurns: Schema.Array(ChatMessage),
  sharedToolCalls: Schema.Array(ToolCall),
  sharedResults: Schema.Array(Schema.Struct({ tool_call_id: Schema.String, content: Schema.String })),
  /** The shared tools that were injected, so the continuation offers them again. */
  injectedToolIds: Schema.Array(Schema.String),
  /**
   * The model's turn as it answered: its content (`null` stays `null`, whatever the client's format made of
   * it) and every call's id in the model's order, so the restored turn is the one the model wrote. Absent
   * in records stored before it was kept.
   */
  turn: Schema.optionalKey(Schema.Struct({
    content: Schema.NullOr(Schema.Union([Schema.String, Schema.Array(ContentPart)])),
    callOrder: Schema.Array(Schema.String)
  }))
})
export type PendingState = typeof PendingState.Type

const decodeState = Schema.decodeUnknownEffect(PendingState)

export class PendingCalls extends Context.Service<PendingCalls, {
  readonly save: (caller: Caller, state: PendingState) => Effect.Effect<string, SqlError.SqlError>
  readonly load: (caller: Caller, id: string) => Effect.Effect<PendingState, RequestError | SqlError.SqlError>
  /** Deletes expired records, a small batch at a time (also done every minute). */
  readonly sweep: Effect.Effect<number, SqlError.SqlError>
}>()("svc-gateway/PendingCalls") {
  static readonly layer = Layer.effect(
    PendingCalls,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const ttlMs = Duration.toMillis((yield* GatewayConfig).pendingTtl)

      const save = Effect.fn("PendingCalls.save")(function*(caller: Caller, state: PendingState) {
        const id = newId("svcpend")
        // expiry on the database's clock, the one `load` and `sweep` compare against
        yield* sql`INSERT INTO svc_pending (id, org_id, key_id, state, expires_at)
        VALUES (${id}, ${caller.orgId}, ${caller.keyId}, ${json(sql, state)}, ${nowPlus(sql, ttlMs)})`
        return id
      })

      const invalid = (id: string) => new RequestError({ reason: new InvalidSvcPendingId({ id }) })

      const load = Effect.fn("PendingCalls.load")(function*(caller: Caller, id: string) {
        const rows = yield* sql<{ readonly state: unknown }>`SELECT state FROM svc_pending
        WHERE id = ${id} AND org_id = ${caller.orgId} AND key_id = ${caller.keyId} AND expires_at > ${now(sql)}`
        const row = rows[0]
        if (row === undefined) return yield* invalid(id)
        // a record this version cannot read is as good as unknown
        return yield* Effect.try(() => fromJson(row.state)).pipe(
          Effect.flatMap(decodeState),
          Effect.mapError(() => invalid(id))
        )
      })

      const sweep = sql<{ readonly id: string }>`DELETE FROM svc_pending WHERE id IN (
        SELECT id FROM svc_pending WHERE expires_at <= ${now(sql)} LIMIT 500) RETURNING id`.pipe(
        Effect.map((rows) => rows.length)
      )

      yield* sweep.pipe(Effect.ignore, Effect.repeat(Schedule.spaced("1 minute")), Effect.forkScoped)

      return PendingCalls.of({ save, load, sweep })
    })
  )
}
