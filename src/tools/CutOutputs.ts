/**
 * What `aggressive` compression cut from a caller's tool results, kept for `svc_expand_output`: by the
 * id its marker names, scoped to the org and key whose request it was cut from, for the pending-turn
 * time (`GATEWAY_SVC_PENDING_TTL`). Cuts are remembered in memory and written in one batch a second,
 * never on the request's path; a cut already written recently is not written again (a coding agent
 * sends the same tool results every turn), and a read finds a cut still waiting to be written.
 */
import { Context, Duration, Effect, Layer, Schedule, Semaphore } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import type { Cut } from "../compression/Aggressive.ts"
import { GatewayConfig } from "../Config.ts"
import { now, nowPlus } from "../store/SqlParts.ts"

/** Whose cut it is. */
export interface CutOwner {
  readonly orgId: string
  readonly keyId: string
}

interface Waiting extends CutOwner {
  readonly id: string
  readonly text: string
}

const keyOf = (owner: CutOwner, id: string) => `${owner.orgId}\u0000${owner.keyId}\u0000${id}`

/** Cuts written recently, by key: not written again before half their lifetime has passed. */
const RECENT = 10_000

export class CutOutputs extends Context.Service<CutOutputs, {
  /** Keeps the cuts for `owner` (written shortly after). */
  readonly remember: (owner: CutOwner, cuts: ReadonlyArray<Cut>) => void
  /** The text of one of `owner`'s cuts; undefined when unknown, expired or another caller's. */
  readonly get: (owner: CutOwner, id: string) => Effect.Effect<string | undefined, SqlError.SqlError>
  /** Writes the waiting cuts now (also done every second and at shutdown). */
  readonly flush: Effect.Effect<void, SqlError.SqlError>
  /** Deletes expired cuts, a batch at a time (also done every minute); how many. */
  readonly sweep: Effect.Effect<number, SqlError.SqlError>
}>()("svc-gateway/CutOutputs") {
  /** Writes the waiting cuts every `flushEvery` (a test that flushes by itself sets it long). */
  static readonly layerWith = (options: { readonly flushEvery: Duration.Input }) =>
    Layer.effect(
      CutOutputs,
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const ttlMs = Duration.toMillis((yield* GatewayConfig).pendingTtl)
        let waiting = new Map<string, Waiting>()
        // the batch being written: still read from memory until its rows are there
        let flushing = new Map<string, Waiting>()
        const written = new Map<string, number>()
        // one flush at a time: an explicit flush waits for the scheduled one already writing
        const oneAtATime = yield* Semaphore.make(1)

        const remember = (owner: CutOwner, cuts: ReadonlyArray<Cut>) => {
          const nowMs = Date.now()
          for (const cut of cuts) {
            const key = keyOf(owner, cut.id)
            const at = written.get(key)
            if (at !== undefined && nowMs - at < ttlMs / 2) continue
            waiting.set(key, { orgId: owner.orgId, keyId: owner.keyId, id: cut.id, text: cut.text })
          }
        }

        const flush = Effect.gen(function*() {
          if (waiting.size === 0) return
          const batch = waiting
          waiting = new Map()
          flushing = batch
          yield* sql.withTransaction(
            Effect.forEach(batch.values(), (cut) =>
              sql`INSERT INTO svc_cut_outputs (org_id, key_id, id, text, expires_at)
          VALUES (${cut.orgId}, ${cut.keyId}, ${cut.id}, ${cut.text}, ${nowPlus(sql, ttlMs)})
          ON CONFLICT (org_id, key_id, id) DO UPDATE SET expires_at = EXCLUDED.expires_at`, { discard: true })
          ).pipe(
            Effect.tapError(() =>
              Effect.sync(() => {
                // kept for the next round rather than lost
                for (const [key, cut] of batch) if (!waiting.has(key)) waiting.set(key, cut)
              })
            ),
            Effect.ensuring(Effect.sync(() => {
              flushing = new Map()
            }))
          )
          const nowMs = Date.now()
          for (const key of batch.keys()) {
            written.delete(key)
            written.set(key, nowMs)
          }
          while (written.size > RECENT) written.delete(written.keys().next().value!)
        }).pipe(oneAtATime.withPermit, Effect.withSpan("CutOutputs.flush"))

        const get = Effect.fn("CutOutputs.get")(function*(owner: CutOwner, id: string) {
          const held = waiting.get(keyOf(owner, id)) ?? flushing.get(keyOf(owner, id))
          if (held !== undefined) return held.text
          const rows = yield* sql<{ readonly text: string }>`SELECT text FROM svc_cut_outputs
        WHERE org_id = ${owner.orgId} AND key_id = ${owner.keyId} AND id = ${id} AND expires_at > ${now(sql)}`
          return rows[0]?.text
        })

        const sweep = sql<{ readonly id: string }>`DELETE FROM svc_cut_outputs WHERE (org_id, key_id, id) IN (
        SELECT org_id, key_id, id FROM svc_cut_outputs WHERE expires_at <= ${now(sql)} LIMIT 500) RETURNING id`.pipe(
          Effect.map((rows) => rows.length)
        )

        yield* Effect.addFinalizer(() => flush.pipe(Effect.ignore))
        // the first flush a period after start, not at it: a fiber forked here starts when the scheduler
        // next runs its tasks, which can be after the first cut was remembered and a read began
        yield* Effect.sleep(options.flushEvery).pipe(
          Effect.andThen(flush.pipe(Effect.ignore)),
          Effect.forever,
          Effect.forkScoped
        )
        yield* sweep.pipe(Effect.ignore, Effect.repeat(Schedule.spaced("1 minute")), Effect.forkScoped)

        return CutOutputs.of({ remember, get, flush, sweep })
      })
    )

  static readonly layer = CutOutputs.layerWith({ flushEvery: "1 second" })
}
