/**
 * API keys on the real store: the secret's format and that only its SHA-256 is kept, listing without
 * secrets, revocation, the lookup by hash, NotFound cases, and the batched last-used writes.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Fiber, Latch, Layer } from "effect"
import { SqlClient, Statement } from "effect/sql"
import { TestClock } from "effect/testing"
import { createHash } from "node:crypto"
import { ApiKeys } from "../../src/keys/ApiKeys.ts"
import { Orgs } from "../../src/orgs/Orgs.ts"
import { toDateOrNull } from "../../src/store/Rows.ts"
import { notFoundOf, StoreLive, unique } from "../utils/TestStore.ts"

const SECRET = /^sk-svc-[0-9A-Za-z]{40}$/
/** Waits until the clock has moved on by a millisecond (the coarsest resolution the stores keep times at). */
const pause = Effect.promise(() => {
  const start = Date.now()
  return new Promise<void>((resolve) => {
    const check = () => Date.now() > start ? resolve() : setImmediate(check)
    check()
  })
})
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

/** A new org of the test's own, and the key service. */
const setup = Effect.gen(function*() {
  const org = yield* (yield* Orgs).create(unique("keys-org"))
  return { org, keys: yield* ApiKeys }
})

const rowOf = (keyId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<Record<string, unknown>>`SELECT * FROM api_keys WHERE id = ${keyId}`
    assert.strictEqual(rows.length, 1)
    return rows[0]!
  })

const lastUsedOf = (keyIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly id: string; readonly last_used_at: Date | string | null }>`
      SELECT id, last_used_at FROM api_keys WHERE id IN ${sql.in(keyIds)}`
    return new Map(rows.map((row) => [row.id, toDateOrNull(row.last_used_at)]))
  })

/** Runs `effect` and returns the SQL text of every statement it executed. */
const statementsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    const record: Statement.Transformer = (statement) =>
      Effect.sync(() => {
        seen.push(statement.compile()[0])
        return statement
      })
    yield* effect.pipe(Effect.provideService(Statement.CurrentTransformer, record))
    return seen
  })

// the tests flush by themselves: a scheduled flush between a use and a read would write early
const FlushedByTheTest = ApiKeys.layerWith({ flushEvery: "1 hour" })

layer(FlushedByTheTest.pipe(Layer.provideMerge(Orgs.layer), Layer.provideMerge(StoreLive)))("ApiKeys", (it) => {
  it.effect("create returns the secret once; the store keeps only its SHA-256 and a 13-character prefix", () =>
    Effect.gen(function*() {
      const { keys, org } = yield* setup
      const created = yield* keys.create(org.id, { name: "ci", expiresAt: null })
      assert.match(created.key, SECRET)
      assert.strictEqual(created.prefix, created.key.slice(0, 13))
      assert.strictEqual(created.org_id, org.id)
      assert.strictEqual(created.name, "ci")
      assert.deepStrictEqual([created.expires_at, created.revoked_at, created.last_used_at], [null, null, null])

      const row = yield* rowOf(created.id)
      assert.strictEqual(row.key_hash, sha256(created.key))
      assert.strictEqual(row.prefix, created.key.slice(0, 13))
      const secretPart = created.key.slice("sk-svc-".length)
      for (const [column, value] of Object.entries(row)) {
        const text = value instanceof Date ? value.toISOString() : JSON.stringify(value) ?? ""
        assert.notInclude(text, secretPart, `column ${column} holds the secret`)
      }
    }))

  it.effect("every key gets its own secret and id", () =>
    Effect.gen(function*() {
      const { keys, org } = yield* setup
      const a = yield* keys.create(org.id, { name: "a", expiresAt: null })
      const b = yield* keys.create(org.id, { name: "a", expiresAt: null })
      assert.notStrictEqual(a.id, b.id)
      assert.notStrictEqual(a.key, b.key)
    }))

  it.effect("create keeps the expiry", () =>
    Effect.gen(function*() {
      const { keys, org } = yield* setup
      const expiresAt = new Date("2031-05-06T07:08:09.000Z")
      const created = yield* keys.create(org.id, { name: "expiring", expiresAt })
      assert.strictEqual(created.expires_at, expiresAt.toISOString())
      assert.strictEqual((yield* keys.get(created.id)).expires_at, expiresAt.toISOString())
    }))

  it.effect("a key's description: none by default, kept when given, changed or cleared by update", () =>
    Effect.gen(function*() {
      const { keys, org } = yield* setup
      const plain = yield* keys.create(org.id, { name: "plain", expiresAt: null })
      assert.isNull(plain.description)
      assert.isNull((yield* rowOf(plain.id))["description"])

      const described = yield* keys.create(org.id, { name: "ci", expiresAt: null, description: "CI runners — nightly" })
      assert.strictEqual(described.description, "CI runners — nightly")
      assert.strictEqual((yield* keys.get(described.id)).description, "CI runners — nightly")

      const renamed = yield* keys.update(described.id, { name: "ci-2" })
      assert.strictEqual(renamed.description, "CI runners — nightly")
      assert.strictEqual((yield* keys.update(described.id, { description: "builds" })).description, "builds")
      assert.isNull((yield* keys.update(described.id, { description: null })).description)
      assert.deepStrictEqual((yield* keys.list(org.id)).map((key) => key.description), [null, null])
    }))

  it.effect("list and get show the keys without their secret", () =>
    Effect.gen(function*() {
      const { keys, org } = yield* setup
      const first = yield* keys.create(org.id, { name: "first", expiresAt: null })
      yield* pause // the embedded store's clock has millisecond resolution; equal times would order by the random id
      const second = yield* keys.create(org.id, { name: "second", expiresAt: null })
      const listed = yield* keys.list(org.id)
      assert.deepStrictEqual(listed.map((key) => key.id), [first.id, second.id])
      for (const key of listed) assert.notProperty(key, "key")
      const { key: _secret, ...info } = first
      assert.deepStrictEqual(listed[0], info)
      const got = yield* keys.get(first.id)
      assert.notProperty(got, "key")
      assert.deepStrictEqual(got, info)
      assert.notInclude(JSON.stringify(listed), first.key.slice(7))
    }))

  it.effect("revoke sets revoked_at; revoking again keeps the first time", () =>
    Effect.gen(function*() {
      const { keys, org } = yield* setup
      const created = yield* keys.create(org.id, { name: "doomed", expiresAt: null })
      const revoked = yield* keys.revoke(created.id)
      assert.isNotNull(revoked.revoked_at)
      yield* pause
      const again = yield* keys.revoke(created.id)
      assert.strictEqual(again.revoked_at, revoked.revoked_at)
      assert.strictEqual((yield* keys.get(created.id)).revoked_at, revoked.revoked_at)
    }))

  it.effect("findByHash finds a key by the SHA-256 of its secret, revoked or not", () =>
    Effect.gen(function*() {
      const { keys, org } = yield* setup
      const expiresAt = new Date("2032-01-02T03:04:05.000Z")
      const created = yield* keys.create(org.id, { name: "lookup", expiresAt })
      const found = yield* keys.findByHash(sha256(created.key))
      assert.isDefined(found)
      assert.deepStrictEqual(
        [found.id, found.orgId, found.name, found.expiresAt?.toISOString(), found.revokedAt],
        [created.id, org.id, "lookup", expiresAt.toISOString(), null]
      )
      yield* keys.revoke(created.id)
      const revoked = yield* keys.findByHash(sha256(created.key))
      assert.instanceOf(revoked?.revokedAt, Date)
      assert.isUndefined(yield* keys.findByHash(created.key))
      assert.isUndefined(yield* keys.findByHash(sha256(unique("sk-svc-unknown"))))
    }))

  it.effect("an unknown key id is NotFound for get and revoke", () =>
    Effect.gen(function*() {
      const keys = yield* ApiKeys
      const id = unique("key_missing")
      assert.deepStrictEqual(notFoundOf(yield* Effect.flip(keys.get(id))), { entity: "API key", id })
      assert.deepStrictEqual(notFoundOf(yield* Effect.flip(keys.revoke(id))), { entity: "API key", id })
    }))

  it.effect("a key for an unknown org is NotFound, and nothing is stored", () =>
    Effect.gen(function*() {
      const keys = yield* ApiKeys
      const sql = yield* SqlClient.SqlClient
      const orgId = unique("org_missing")
      const error = yield* Effect.flip(keys.create(orgId, { name: "orphan", expiresAt: null }))
      assert.deepStrictEqual(notFoundOf(error), { entity: "organization", id: orgId })
      assert.deepStrictEqual(notFoundOf(yield* Effect.flip(keys.list(orgId))), { entity: "organization", id: orgId })
      const rows = yield* sql`SELECT id FROM api_keys WHERE org_id = ${orgId}`
      assert.strictEqual(rows.length, 0)
    }))

  it.effect("markUsed + flushLastUsed set last_used_at of several keys in one statement", () =>
    Effect.gen(function*() {
      const { keys, org } = yield* setup
      const [a, b, c] = [
        yield* keys.create(org.id, { name: "a", expiresAt: null }),
        yield* keys.create(org.id, { name: "b", expiresAt: null }),
        yield* keys.create(org.id, { name: "c", expiresAt: null })
      ]
      const ids = [a.id, b.id, c.id]
      const before = Date.now()
      keys.markUsed(a.id)
      keys.markUsed(b.id)
      keys.markUsed(a.id)
      assert.deepStrictEqual([...(yield* lastUsedOf(ids)).values()], [null, null, null], "written before the flush")

      const statements = yield* statementsOf(keys.flushLastUsed)
      assert.strictEqual(statements.length, 1, statements.join("\n"))
      assert.match(statements[0]!, /^\s*UPDATE api_keys/)

      const after = yield* lastUsedOf(ids)
      for (const id of [a.id, b.id]) {
        const at = after.get(id)
        assert.instanceOf(at, Date, `last_used_at of ${id}`)
        assert.isAtLeast(at.getTime(), before - 1)
        assert.isAtMost(at.getTime(), Date.now() + 1)
      }
      assert.isNull(after.get(c.id) ?? null)
      assert.strictEqual((yield* keys.get(a.id)).last_used_at, after.get(a.id)?.toISOString())
    }))

  it.effect("the scheduled flush writes a period after start, and an explicit flush waits for it", () =>
    Effect.gen(function*() {
      const { keys, org } = yield* setup
      const key = yield* keys.create(org.id, { name: "scheduled", expiresAt: null })
      // the scheduled write is held at the store until the test lets it go
      const entered = yield* Latch.make()
      const release = yield* Latch.make()
      const holdWrites: Statement.Transformer = (statement) =>
        statement.compile()[0].trimStart().startsWith("UPDATE api_keys")
          ? Effect.andThen(entered.open, release.await).pipe(Effect.as(statement))
          : Effect.succeed(statement)
      // an ApiKeys of its own on the test clock, built here, so the use is marked as it starts
      const scheduled = Context.get(
        yield* Layer.build(ApiKeys.layerWith({ flushEvery: "5 seconds" })).pipe(
          Effect.provideService(Statement.CurrentTransformer, holdWrites)
        ),
        ApiKeys
      )
      scheduled.markUsed(key.id)
      // what the layer forked at start runs now, and writes nothing before the period
      yield* Effect.yieldNow
      assert.isFalse(Latch.isOpen(entered), "a write began before the period")
      yield* TestClock.adjust("5 seconds")
      yield* entered.await
      // the scheduled flush holds the use; an explicit flush finds nothing left, yet returns only after it
      const explicit = yield* Effect.forkChild(scheduled.flushLastUsed)
      yield* Effect.yieldNow
      assert.isUndefined(explicit.pollUnsafe(), "the explicit flush returned while the write was in flight")
      yield* release.open
      yield* Fiber.join(explicit)
      assert.instanceOf((yield* lastUsedOf([key.id])).get(key.id), Date)
    }).pipe(Effect.scoped))

  it.effect("flushLastUsed with nothing pending runs no statement; a later use moves last_used_at forward", () =>
    Effect.gen(function*() {
      const { keys, org } = yield* setup
      const key = yield* keys.create(org.id, { name: "k", expiresAt: null })
      yield* keys.flushLastUsed
      assert.deepStrictEqual(yield* statementsOf(keys.flushLastUsed), [])
      keys.markUsed(key.id)
      yield* keys.flushLastUsed
      const first = (yield* lastUsedOf([key.id])).get(key.id)
      yield* pause
      keys.markUsed(key.id)
      yield* keys.flushLastUsed
      const second = (yield* lastUsedOf([key.id])).get(key.id)
      assert.instanceOf(first, Date)
      assert.instanceOf(second, Date)
      assert.isAbove(second.getTime(), first.getTime())
    }))
})
