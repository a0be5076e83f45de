/**
 * The stale-tolerant cache behind `Auth` and `Policy`, on the test clock: fresh within the TTL, loaded
 * again after it, the last value answered while loads fail (within the stale limit, retried at most
 * once per retry interval), a drop during a load, and the memory bound.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { makeStaleCache, type StaleCacheOptions } from "../../../src/kernel/StaleCache.ts"

/** A store the test can take down; counts its loads. */
const makeStore = () => {
  const values = new Map<string, number>()
  let down = false
  let loads = 0
  const load = (key: string) =>
    Effect.suspend(() => {
      loads++
      return down ? Effect.fail(`store down (${key})` as const) : Effect.succeed(values.get(key) ?? 0)
    })
  return {
    values,
    load,
    loads: () => loads,
    setDown: (value: boolean) => void (down = value)
  }
}

const OPTIONS: StaleCacheOptions = { ttl: "100 millis", staleMax: "1 second", retry: "200 millis" }

/** Loads through the cache as its users do: the fresh value, else a load. */
const get = (
  cache: Effect.Success<ReturnType<typeof makeStaleCache<string, number>>>,
  store: ReturnType<typeof makeStore>,
  key: string
) =>
  Effect.suspend(() => {
    const hit = cache.fresh(key)
    return hit !== undefined ? Effect.succeed(hit) : cache.load(key, store.load(key))
  })

describe("StaleCache", () => {
  it.effect("fresh within the TTL, loaded again once it passed", () =>
    Effect.gen(function*() {
      const store = makeStore()
      const cache = yield* makeStaleCache<string, number>(OPTIONS)
      store.values.set("a", 1)
      assert.strictEqual(yield* get(cache, store, "a"), 1)
      store.values.set("a", 2)
      yield* TestClock.adjust("99 millis")
      assert.strictEqual(yield* get(cache, store, "a"), 1, "still fresh")
      assert.strictEqual(store.loads(), 1)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* get(cache, store, "a"), 2, "due at the TTL")
      assert.strictEqual(store.loads(), 2)
    }))

  it.effect("while loads fail, the last value within the stale limit; asked again once per retry interval", () =>
    Effect.gen(function*() {
      const store = makeStore()
      const cache = yield* makeStaleCache<string, number>(OPTIONS)
      store.values.set("a", 7)
      yield* get(cache, store, "a")
      store.setDown(true)
      yield* TestClock.adjust("150 millis")
      const ages: Array<number> = []
      const stale = yield* cache.load("a", store.load("a"), (_, age) => Effect.sync(() => void ages.push(age)))
      assert.strictEqual(stale, 7)
      assert.deepStrictEqual(ages, [150], "onStale hears the value's age")
      assert.strictEqual(store.loads(), 2)
      yield* TestClock.adjust("199 millis")
      assert.strictEqual(yield* get(cache, store, "a"), 7)
      assert.strictEqual(store.loads(), 2, "not asked again within the retry interval")
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* get(cache, store, "a"), 7)
      assert.strictEqual(store.loads(), 3, "asked again after it")
      store.setDown(false)
      store.values.set("a", 8)
      yield* TestClock.adjust("200 millis")
      assert.strictEqual(yield* get(cache, store, "a"), 8, "the store back: its value again")
    }))

  it.effect("past the stale limit, or never seen, the load's failure", () =>
    Effect.gen(function*() {
      const store = makeStore()
      const cache = yield* makeStaleCache<string, number>(OPTIONS)
      yield* get(cache, store, "a")
      store.setDown(true)
      assert.strictEqual(yield* Effect.flip(get(cache, store, "b")), "store down (b)")
      yield* TestClock.adjust("1001 millis")
      assert.strictEqual(yield* Effect.flip(get(cache, store, "a")), "store down (a)")
    }))

  it.effect("a drop while a load is on its way keeps that load's answer out of the cache", () =>
    Effect.gen(function*() {
      const store = makeStore()
      const cache = yield* makeStaleCache<string, number>(OPTIONS)
      store.values.set("a", 1)
      // the load reads 1, then the value changes and the change drops the key before the load ends
      const racing = Effect.tap(store.load("a"), () =>
        Effect.sync(() => {
          store.values.set("a", 2)
          cache.delete("a")
        }))
      assert.strictEqual(yield* cache.load("a", racing), 1, "the load's caller gets what it read")
      assert.strictEqual(cache.fresh("a"), undefined, "but it is not cached")
      assert.strictEqual(yield* get(cache, store, "a"), 2)
      assert.strictEqual(cache.fresh("a"), 2)
    }))

  it.effect("a key dropped while its load fails is not answered from its old state", () =>
    Effect.gen(function*() {
      const store = makeStore()
      const cache = yield* makeStaleCache<string, number>(OPTIONS)
      store.values.set("a", 1)
      yield* get(cache, store, "a")
      yield* TestClock.adjust("150 millis")
      store.setDown(true)
      // revoked (say) while the store was being asked: the failure is the answer, not the revoked state
      const dropped = Effect.tap(Effect.flip(store.load("a")), () => Effect.sync(() => cache.delete("a")))
      const failing = Effect.flatMap(dropped, (error) => Effect.fail(error))
      assert.strictEqual(yield* Effect.flip(cache.load("a", failing)), "store down (a)")
      assert.strictEqual(cache.fresh("a"), undefined)
    }))

  it.effect("deleteWhere drops the entries whose value matches; maxEntries bounds the map", () =>
    Effect.gen(function*() {
      const store = makeStore()
      const cache = yield* makeStaleCache<string, number>({ ...OPTIONS, maxEntries: 3 })
      for (const [key, value] of [["a", 1], ["b", 2], ["c", 1]] as const) {
        store.values.set(key, value)
        yield* get(cache, store, key)
      }
      cache.deleteWhere((value) => value === 1)
      assert.deepStrictEqual(["a", "b", "c"].map((key) => cache.fresh(key)), [undefined, 2, undefined])
      for (const key of ["d", "e"]) yield* get(cache, store, key)
      assert.strictEqual(cache.fresh("b"), 2, "three entries: still within the bound")
      yield* get(cache, store, "f")
      assert.deepStrictEqual(["b", "d", "e", "f"].map((key) => cache.fresh(key)), [undefined, undefined, undefined, 0])
    }))
})
