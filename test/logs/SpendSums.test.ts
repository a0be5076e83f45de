/**
 * A property over the real store (embedded, and PostgreSQL in CI): however many rows, of whatever costs
 * up to the column's limit, on whatever days and keys, the analytics' and the spend export's dollar
 * sums equal the sum of the rows' costs exactly (integer micro-dollars summed in SQL, never floats),
 * and rows of unknown cost add nothing but are counted as unpriced.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { RequestLogStore } from "../../src/logs/RequestLogStore.ts"
import { RequestQueries } from "../../src/logs/RequestQueries.ts"
import { makeRecord } from "../utils/RequestLogHarness.ts"
import { StoreLive, unique } from "../utils/TestStore.ts"

const Micro = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2_000_000_000 }))

const Row = Schema.Struct({
  /** null: a model without a price. */
  cost: Schema.NullOr(Schema.Struct({ input: Micro, cachedInput: Micro, cacheWrite: Micro, output: Micro })),
  day: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 4 })),
  key: Schema.Literals(["key_a", "key_b", "key_c"])
})

const Live = Layer.mergeAll(RequestQueries.layer, RequestLogStore.layer).pipe(Layer.provideMerge(StoreLive))

const micro = (usd: number) => Math.round(usd * 1_000_000)

layer(Live)("spend sums", (it) => {
  it.effect.prop(
    "the analytics and the export add up to the rows' costs, to the micro-dollar",
    { rows: Schema.Array(Row).check(Schema.isMaxLength(30)) },
    ({ rows }) =>
      Effect.gen(function*() {
        const org = unique("org_sums")
        const records = rows.map((row) =>
          makeRecord({
            orgId: org,
            keyId: row.key,
            createdAt: new Date(Date.UTC(2026, 9, 1 + row.day, 12)),
            cost: row.cost === null
              ? null
              : { ...row.cost, total: row.cost.input + row.cost.cachedInput + row.cost.cacheWrite + row.cost.output }
          })
        )
        yield* (yield* RequestLogStore).insert(records)
        const queries = yield* RequestQueries
        const costOf = (picked: ReadonlyArray<typeof rows[number]>) =>
          picked.reduce(
            (sum, row) =>
              sum +
              (row.cost === null ? 0 : row.cost.input + row.cost.cachedInput + row.cost.cacheWrite + row.cost.output),
            0
          )

        const [total] = (yield* queries.analytics(org, "none", {})).data
        assert.strictEqual(micro(total?.cost_usd ?? 0), costOf(rows))
        assert.strictEqual(total?.unpriced_requests ?? 0, rows.filter((row) => row.cost === null).length)

        for (const group of (yield* queries.analytics(org, "key", {})).data) {
          assert.strictEqual(micro(group.cost_usd), costOf(rows.filter((row) => row.key === group.group)))
        }
        const exported = (yield* queries.spend(org, "key", {})).data
        assert.strictEqual(exported.reduce((sum, row) => sum + micro(row.cost_usd), 0), costOf(rows))
        for (const row of exported) {
          const day = Number(row.day.slice(-2)) - 1
          assert.strictEqual(
            micro(row.cost_usd),
            costOf(rows.filter((r) => r.key === row.group && r.day === day)),
            `${row.day} ${row.group}`
          )
        }
      }),
    { timeout: 120_000, arbitrary: { runs: 25 } }
  )
})
