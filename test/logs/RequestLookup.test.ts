/**
 * A request found by its id on the real store (embedded SQLite, or PostgreSQL with DATABASE_URL). On
 * PostgreSQL the key is (created_at, id) (migration 0021): an id the gateway minted is looked up in the
 * second around the time it spells, any other id through the index kept for ids of other shapes. Both
 * must find their row, through an index, and a replayed row must still be skipped.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { newId, newTimeOrderedId } from "../../src/Ids.ts"
import { requestIdCondition } from "../../src/logs/RequestLogSql.ts"
import { RequestLogStore } from "../../src/logs/RequestLogStore.ts"
import { RequestQueries } from "../../src/logs/RequestQueries.ts"
import { makeRecord } from "../utils/RequestLogHarness.ts"
import { notFoundOf, StoreLive, unique, usingPostgres } from "../utils/TestStore.ts"

const ORG = unique("org_lookup")
const Live = Layer.mergeAll(RequestQueries.layer, RequestLogStore.layer).pipe(Layer.provideMerge(StoreLive))

/** A row of ORG with this id, created at `createdAt` (ms). */
const row = (id: string, createdAt: number) => makeRecord({ id, orgId: ORG, createdAt: new Date(createdAt) })

/**
 * The plan the engine picks for a lookup of `id`: on PostgreSQL with sequential scans priced out, so
 * it names the index that serves the condition (a scan would mean none can). The org is left out: with
 * it, the org index (org_id, created_at) is the cheapest way to a test org's few rows whenever the
 * table's statistics say so, whichever the id, and the plan would say nothing of the id's condition.
 */
const planOf = (id: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const condition = requestIdCondition(sql, id)
    return yield* sql.onDialectOrElse({
      sqlite: () =>
        sql<{ readonly detail: string }>`EXPLAIN QUERY PLAN SELECT id FROM request_log
          WHERE ${condition}`.pipe(Effect.map((rows) => rows.map((r) => r.detail).join("\n"))),
      orElse: () =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`SET LOCAL enable_seqscan = off`
          const lines = yield* sql<{ readonly "QUERY PLAN": string }>`EXPLAIN SELECT id FROM request_log
            WHERE ${condition}`
          return lines.map((line) => line["QUERY PLAN"]).join("\n")
        }))
    })
  })

layer(Live)("RequestQueries.get by id", (it) => {
  it.effect("finds a row by the id the gateway minted, and by an id of another shape", () =>
    Effect.gen(function*() {
      const store = yield* RequestLogStore
      const queries = yield* RequestQueries
      const now = Date.now()
      // the row is created just after its id is minted, as the edge does
      const minted = newTimeOrderedId("req", now)
      const legacy = newId("req") // as request ids were before they were time-ordered
      const madeUp = unique("req") // a test's or a client's own
      yield* store.insert([row(minted, now + 3), row(legacy, now - 86_400_000), row(madeUp, now)])
      for (const id of [minted, legacy, madeUp]) assert.strictEqual((yield* queries.get(ORG, id)).id, id)
      assert.strictEqual((yield* queries.get(ORG, minted)).created_at, new Date(now + 3).toISOString())
    }))

  it.effect("reads only the second around a minted id's time: a row created far from it is not found", () =>
    Effect.gen(function*() {
      const store = yield* RequestLogStore
      const queries = yield* RequestQueries
      const now = Date.now()
      const early = newTimeOrderedId("req", now)
      const late = newTimeOrderedId("req", now)
      yield* store.insert([row(early, now + 999), row(late, now + 60_000)])
      assert.strictEqual((yield* queries.get(ORG, early)).id, early)
      assert.deepStrictEqual(notFoundOf(yield* Effect.flip(queries.get(ORG, late))), { entity: "request", id: late })
    }))

  it.effect("a row sent again is skipped, whichever shape its id has", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const store = yield* RequestLogStore
      const now = Date.now()
      const rows = [row(newTimeOrderedId("req", now), now), row(newId("req"), now), row(unique("req"), now)]
      yield* store.insert(rows)
      yield* store.insert([...rows, row(newTimeOrderedId("req", now), now)])
      const ids = rows.map((r) => r.id)
      const stored = yield* sql<{ readonly n: number }>`SELECT count(*) AS n FROM request_log
        WHERE org_id = ${ORG} AND id IN ${sql.in(ids)}`
      assert.strictEqual(Number(stored[0]?.n), 3)
    }))

  it.effect("each lookup goes through an index: on PostgreSQL the key, or the legacy ids' own", () =>
    Effect.gen(function*() {
      const [minted, legacy, madeUp] = [newTimeOrderedId("req"), newId("req"), unique("req")]
      if (usingPostgres) {
        // an index scan, or a bitmap over the same index when the statistics expect several rows
        const through = (index: string) => new RegExp(`(Index (Only )?Scan using|Bitmap Index Scan on) ${index} `)
        const cases = [
          [minted, "request_log_pkey"],
          [legacy, "request_log_legacy_id"],
          [madeUp, "request_log_legacy_id"]
        ] as const
        for (const [id, index] of cases) assert.match(yield* planOf(id), through(index))
      } else {
        for (const id of [minted, legacy, madeUp]) {
          const plan = yield* planOf(id)
          assert.match(plan, /SEARCH request_log USING/, plan)
          assert.notMatch(plan, /SCAN request_log/, plan)
        }
      }
    }))
})
