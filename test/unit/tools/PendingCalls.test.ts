/**
 * Pending shared-tool turns on the real store (the in-memory embedded store, or PostgreSQL with DATABASE_URL): a saved turn loads back whole, only
 * for the org and key that made it, as many times as the client retries, until it expires; `sweep`
 * deletes expired records and only those.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { json, nowPlus } from "../../../src/store/SqlParts.ts"
import { PendingCalls, type PendingState } from "../../../src/tools/PendingCalls.ts"
import { FreshStore, unique } from "../../utils/TestStore.ts"
import { callOf, testCaller } from "../../utils/ToolFixtures.ts"

const state: PendingState = {
  clientToolCallIds: ["call_client_1", "call_client_2"],
  priorTurns: [],
  sharedToolCalls: [
    callOf("call_shared_1", "svc_current_time", { timezone: "Europe/Paris" }),
    { ...callOf("call_shared_2", "svc_generate_uuid"), provider_field: { kept: true } }
  ],
  sharedResults: [
    { tool_call_id: "call_shared_1", content: "{\"datetime\":\"2026-01-15T13:00:00+01:00\"}" },
    { tool_call_id: "call_shared_2", content: "{\"error\":\"The tool timed out after 1s.\"}" }
  ],
  injectedToolIds: ["svc_current_time", "svc_generate_uuid"]
}

/** A caller of its own, so tests sharing the store never see each other's records. */
const ownCaller = () => testCaller({ orgId: unique("org"), keyId: unique("key") })

/** The `_tag` of the RequestError reason, and the id it names. */
const invalidIdOf = (error: { readonly _tag: string }) => {
  if (error._tag !== "RequestError" || !("reason" in error)) {
    return assert.fail(`expected RequestError, got ${error._tag}`)
  }
  const reason = error.reason as { readonly _tag: string; readonly id?: string }
  return { reason: reason._tag, id: reason.id }
}

const remainingIds = (ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly id: string }>`SELECT id FROM svc_pending WHERE id IN ${sql.in(ids)}`
    return rows.map((row) => row.id).sort()
  })

layer(PendingCalls.layer.pipe(Layer.provideMerge(FreshStore())))("PendingCalls (TTL 1 hour)", (it) => {
  it.effect("save returns a svcpend_ id; load gives the state back as it was saved", () =>
    Effect.gen(function*() {
      const pending = yield* PendingCalls
      const caller = ownCaller()
      const id = yield* pending.save(caller, state)
      assert.match(id, /^svcpend_/)
      assert.deepStrictEqual(yield* pending.load(caller, id), state)
    }))

  it.effect("loading twice works (a client may retry the continuation)", () =>
    Effect.gen(function*() {
      const pending = yield* PendingCalls
      const caller = ownCaller()
      const id = yield* pending.save(caller, state)
      assert.deepStrictEqual(yield* pending.load(caller, id), state)
      assert.deepStrictEqual(yield* pending.load(caller, id), state)
    }))

  it.effect("each save gets its own id", () =>
    Effect.gen(function*() {
      const pending = yield* PendingCalls
      const caller = ownCaller()
      const first = yield* pending.save(caller, state)
      const second = yield* pending.save(caller, { ...state, injectedToolIds: [] })
      assert.notStrictEqual(first, second)
      assert.deepStrictEqual((yield* pending.load(caller, second)).injectedToolIds, [])
    }))

  it.effect("another org's caller, or another key of the same org: RequestError InvalidSvcPendingId", () =>
    Effect.gen(function*() {
      const pending = yield* PendingCalls
      const caller = ownCaller()
      const id = yield* pending.save(caller, state)
      for (const stranger of [{ ...caller, orgId: unique("org") }, { ...caller, keyId: unique("key") }]) {
        const error = yield* Effect.flip(pending.load(stranger, id))
        assert.deepStrictEqual(invalidIdOf(error), { reason: "InvalidSvcPendingId", id })
      }
      // the owner still can
      assert.deepStrictEqual(yield* pending.load(caller, id), state)
    }))

  it.effect("an unknown id: RequestError InvalidSvcPendingId naming it", () =>
    Effect.gen(function*() {
      const pending = yield* PendingCalls
      const error = yield* Effect.flip(pending.load(ownCaller(), "svcpend_unknown"))
      assert.deepStrictEqual(invalidIdOf(error), { reason: "InvalidSvcPendingId", id: "svcpend_unknown" })
    }))

  it.effect("a stored record this version cannot read is InvalidSvcPendingId, not a defect", () =>
    Effect.gen(function*() {
      const pending = yield* PendingCalls
      const sql = yield* SqlClient.SqlClient
      const caller = ownCaller()
      const id = yield* pending.save(caller, state)
      yield* sql`UPDATE svc_pending SET state = ${json(sql, { unexpected: true })} WHERE id = ${id}`
      const error = yield* Effect.flip(pending.load(caller, id))
      assert.deepStrictEqual(invalidIdOf(error), { reason: "InvalidSvcPendingId", id })
      // SQLite keeps the state as text, which could be anything: text that is not JSON is just as unknown
      const text = yield* pending.save(caller, state)
      const notJson = sql.onDialectOrElse({ sqlite: () => "{not json", orElse: () => null })
      if (notJson !== null) {
        yield* sql`UPDATE svc_pending SET state = ${notJson} WHERE id = ${text}`
        const unreadable = yield* Effect.flip(pending.load(caller, text))
        assert.deepStrictEqual(invalidIdOf(unreadable), { reason: "InvalidSvcPendingId", id: text })
      }
    }))

  it.effect("sweep keeps records that have not expired", () =>
    Effect.gen(function*() {
      const pending = yield* PendingCalls
      const caller = ownCaller()
      const id = yield* pending.save(caller, state)
      yield* pending.sweep
      assert.deepStrictEqual(yield* remainingIds([id]), [id])
    }))
})

// Expiry is real time (the store's now()), so this block runs on the live clock: a `layer` block has no
// `it.live`, and `excludeTestServices` makes its `it.effect` the same thing.
layer(
  PendingCalls.layer.pipe(Layer.provideMerge(FreshStore({ GATEWAY_SVC_PENDING_TTL: "50 millis" }))),
  { excludeTestServices: true }
)(
  "PendingCalls (TTL 50 ms)",
  (it) => {
    it.effect("a record is usable until it expires, then InvalidSvcPendingId", () =>
      Effect.gen(function*() {
        const pending = yield* PendingCalls
        const caller = ownCaller()
        const id = yield* pending.save(caller, state)
        yield* Effect.sleep("120 millis")
        const error = yield* Effect.flip(pending.load(caller, id))
        assert.deepStrictEqual(invalidIdOf(error), { reason: "InvalidSvcPendingId", id })
      }))

    it.effect("sweep deletes expired records only, and counts them", () =>
      Effect.gen(function*() {
        const pending = yield* PendingCalls
        const sql = yield* SqlClient.SqlClient
        const caller = ownCaller()
        const expired = [yield* pending.save(caller, state), yield* pending.save(caller, state)]
        yield* Effect.sleep("120 millis")
        // a fresh record: moved an hour ahead so it cannot expire during the test
        const fresh = yield* pending.save(caller, state)
        yield* sql`UPDATE svc_pending SET expires_at = ${nowPlus(sql, 3_600_000)} WHERE id = ${fresh}`
        const deleted = yield* pending.sweep
        assert.isAtLeast(deleted, 2)
        assert.deepStrictEqual(yield* remainingIds([...expired, fresh]), [fresh])
        assert.deepStrictEqual(yield* pending.load(caller, fresh), state)
        assert.strictEqual(yield* pending.sweep, 0)
      }))
  }
)
