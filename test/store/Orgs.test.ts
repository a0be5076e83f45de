/** Orgs on the real store: create, get, list, count, and the NotFound of an unknown id. */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { type Org, Orgs } from "../../src/orgs/Orgs.ts"
import { notFoundOf, StoreLive, unique } from "../utils/TestStore.ts"

const pause = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 5)))

const ORG_ID = /^org_[0-9A-Za-z]{20}$/
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

/**
 * Runs `effect` in a REPEATABLE READ transaction: it sees its own writes but none committed by tests
 * running at the same time against the shared database, so counts can be compared exactly. (SQLite's
 * in-memory store is this file's alone, and its transactions are serialisable anyway.)
 */
const isolated = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const setIsolation = sql.onDialectOrElse({
      pg: () => Effect.asVoid(sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`),
      orElse: () => Effect.void
    })
    return yield* sql.withTransaction(Effect.andThen(setIsolation, effect))
  })

layer(Orgs.layer.pipe(Layer.provideMerge(StoreLive)))("Orgs", (it) => {
  it.effect("create returns the stored org with a generated id and an ISO timestamp", () =>
    Effect.gen(function*() {
      const orgs = yield* Orgs
      const name = unique("Acme Inc.")
      const org = yield* orgs.create(name)
      assert.match(org.id, ORG_ID)
      assert.strictEqual(org.name, name)
      assert.match(org.created_at, ISO)
      assert.deepStrictEqual(yield* orgs.get(org.id), org)
    }))

  it.effect("names are stored verbatim, quotes and all", () =>
    Effect.gen(function*() {
      const orgs = yield* Orgs
      const name = `${unique("o'Brien")}'); DROP TABLE orgs; --`
      const org = yield* orgs.create(name)
      assert.strictEqual((yield* orgs.get(org.id)).name, name)
    }))

  it.effect("two orgs with the same name are two orgs", () =>
    Effect.gen(function*() {
      const orgs = yield* Orgs
      const name = unique("twin")
      const a = yield* orgs.create(name)
      const b = yield* orgs.create(name)
      assert.notStrictEqual(a.id, b.id)
    }))

  it.effect("list holds the created orgs in creation order", () =>
    Effect.gen(function*() {
      const orgs = yield* Orgs
      const created: Array<Org> = []
      for (const label of ["first", "second", "third"]) {
        created.push(yield* orgs.create(unique(label)))
        yield* pause // the embedded store's clock has millisecond resolution; equal times would order by the random id
      }
      const ids = new Set(created.map((org) => org.id))
      const listed = (yield* orgs.list).filter((org) => ids.has(org.id))
      assert.deepStrictEqual(listed, created)
    }))

  it.effect("count grows by the orgs created and agrees with list", () =>
    isolated(Effect.gen(function*() {
      const orgs = yield* Orgs
      const before = yield* orgs.count
      yield* orgs.create(unique("counted"))
      yield* orgs.create(unique("counted"))
      const after = yield* orgs.count
      assert.strictEqual(after, before + 2)
      assert.strictEqual((yield* orgs.list).length, after)
    })))

  it.effect("get of an unknown id fails with AdminError NotFound", () =>
    Effect.gen(function*() {
      const orgs = yield* Orgs
      const id = unique("org_missing")
      assert.deepStrictEqual(notFoundOf(yield* Effect.flip(orgs.get(id))), { entity: "organization", id })
    }))
})
