/**
 * What aggressive compression cut, on the real store (the in-memory embedded store, or PostgreSQL with
 * DATABASE_URL): readable at once (before it is written), after it is written, only by the org and key
 * it was cut for, written once however often it is remembered, until it expires; `sweep` deletes the
 * expired and only those.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { cutId } from "../../../src/compression/Aggressive.ts"
import { CutOutputs } from "../../../src/tools/CutOutputs.ts"
import { FreshStore, unique } from "../../utils/TestStore.ts"

const owner = () => ({ orgId: unique("org"), keyId: unique("key") })
const cutOf = (text: string) => ({ id: cutId(text), text })

const storedRows = (owner: { readonly orgId: string }) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<
      { readonly n: number }
    >`SELECT CAST(count(*) AS INTEGER) AS n FROM svc_cut_outputs WHERE org_id = ${owner.orgId}`
    return rows[0]?.n ?? 0
  })

// the tests flush by themselves: a scheduled flush between a remember and a count would write early
const FlushedByTheTest = CutOutputs.layerWith({ flushEvery: "1 hour" })

layer(FlushedByTheTest.pipe(Layer.provideMerge(FreshStore())))("CutOutputs", (it) => {
  it.effect("a cut is read back by its owner, before and after it is written; nobody else reads it", () =>
    Effect.gen(function*() {
      const cuts = yield* CutOutputs
      const mine = owner()
      const cut = cutOf("line 1\nline 2\nline 3")
      cuts.remember(mine, [cut])
      assert.strictEqual(yield* cuts.get(mine, cut.id), cut.text)
      assert.strictEqual(yield* storedRows(mine), 0)
      yield* cuts.flush
      assert.strictEqual(yield* storedRows(mine), 1)
      assert.strictEqual(yield* cuts.get(mine, cut.id), cut.text)
      assert.isUndefined(yield* cuts.get({ ...mine, keyId: unique("other-key") }, cut.id))
      assert.isUndefined(yield* cuts.get(owner(), cut.id))
      assert.isUndefined(yield* cuts.get(mine, "cut_unknown"))
    }))

  it.effect("nothing is written before the first period, even a cut remembered as the layer starts", () =>
    Effect.gen(function*() {
      // a CutOutputs of its own, built here, so the cut is remembered before anything it forked has run
      const cuts = Context.get(yield* Layer.build(FlushedByTheTest), CutOutputs)
      const mine = owner()
      cuts.remember(mine, [cutOf("remembered at start")])
      // what the layer forked at start runs now
      yield* Effect.yieldNow
      assert.strictEqual(yield* storedRows(mine), 0)
      yield* cuts.flush
      assert.strictEqual(yield* storedRows(mine), 1)
    }).pipe(Effect.scoped))

  it.effect("remembered again on the next turn, it is not written again", () =>
    Effect.gen(function*() {
      const cuts = yield* CutOutputs
      const mine = owner()
      const cut = cutOf("the same output, every turn")
      cuts.remember(mine, [cut])
      yield* cuts.flush
      // the row goes; remembering the cut again writes nothing, since it was written moments ago
      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM svc_cut_outputs WHERE org_id = ${mine.orgId}`
      cuts.remember(mine, [cut, cut])
      yield* cuts.flush
      assert.strictEqual(yield* storedRows(mine), 0)
    }))
})

// Expiry is the store's clock: this block runs on the live clock
layer(CutOutputs.layer.pipe(Layer.provideMerge(FreshStore({ GATEWAY_SVC_PENDING_TTL: "50 millis" }))), {
  excludeTestServices: true
})(
  "CutOutputs (TTL 50 ms)",
  (it) => {
    it.effect("an expired cut is unknown, and sweep deletes the expired only", () =>
      Effect.gen(function*() {
        const cuts = yield* CutOutputs
        const mine = owner()
        const old = cutOf("old output")
        cuts.remember(mine, [old])
        yield* cuts.flush
        yield* Effect.sleep("120 millis")
        assert.isUndefined(yield* cuts.get(mine, old.id))
        const fresh = cutOf("fresh output")
        cuts.remember(mine, [fresh])
        yield* cuts.flush
        assert.isAtLeast(yield* cuts.sweep, 1)
        assert.strictEqual(yield* storedRows(mine), 1)
        assert.strictEqual(yield* cuts.get(mine, fresh.id), fresh.text)
      }))
  }
)
