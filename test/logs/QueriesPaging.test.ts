/**
 * Cursor pagination on the real store: walking every page visits every row exactly once, in order,
 * with no duplicates across pages, including where a page ends inside a run of equal `created_at`s or
 * between rows that differ only in the microsecond.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { type Cursor, decodeCursor, type RequestFilter } from "../../src/logs/RequestFilter.ts"
import { RequestQueries } from "../../src/logs/RequestQueries.ts"
import { StoreLive, unique } from "../utils/TestStore.ts"
import { expectedOrder, insertRows, pagingSeed } from "./QueriesSeed.ts"

const ORG = unique("org_paging")
const ROWS = pagingSeed(53)
const ALL = expectedOrder(ORG, ROWS)

const Live = Layer.effectDiscard(insertRows(ORG, ROWS)).pipe(
  Layer.provideMerge(RequestQueries.layer),
  Layer.provideMerge(StoreLive)
)

/** Every page of ORG matching `filter`, `limit` rows at a time; at most 200 pages. */
const walk = (limit: number, filter: RequestFilter = {}) =>
  Effect.gen(function*() {
    const queries = yield* RequestQueries
    const pages: Array<ReadonlyArray<string>> = []
    let cursor: Cursor | undefined
    for (let i = 0; i < 200; i++) {
      const page = yield* queries.list(ORG, filter, cursor === undefined ? { limit } : { limit, cursor })
      pages.push(page.data.map((entry) => entry.id))
      if (page.next_cursor === null) return pages
      assert.isTrue(/^[A-Za-z0-9_-]+$/.test(page.next_cursor), "the cursor is base64url")
      cursor = decodeCursor(page.next_cursor)
      assert.isDefined(cursor)
    }
    throw new Error("more than 200 pages")
  })

const assertWalk = (pages: ReadonlyArray<ReadonlyArray<string>>, expected: ReadonlyArray<string>, limit: number) => {
  const flat = pages.flat()
  assert.deepStrictEqual(flat, expected)
  assert.strictEqual(new Set(flat).size, flat.length, "no row twice")
  pages.slice(0, -1).forEach((page) => assert.strictEqual(page.length, limit, "only the last page is short"))
  assert.strictEqual(pages.length, Math.max(1, Math.ceil(expected.length / limit)))
}

layer(Live)("RequestQueries pagination", (it) => {
  it.effect("the seed really has ties and microsecond-apart rows", () =>
    Effect.sync(() => {
      const times = ROWS.map((r) => r.createdAt)
      assert.isBelow(new Set(times).size, times.length)
      assert.isTrue(times.some((t) => /\.\d{6}Z$/.test(t)))
      assert.strictEqual(ALL.length, 53)
    }))

  for (const limit of [1, 2, 3, 4, 5, 7, 10, 52, 53, 200]) {
    it.effect(`limit ${limit}: every row once, newest first`, () =>
      Effect.gen(function*() {
        assertWalk(yield* walk(limit), ALL, limit)
      }))
  }

  it.effect("a filtered walk pages through the matching rows only", () =>
    Effect.gen(function*() {
      const third = expectedOrder(ORG, ROWS.filter((r) => r.tags.includes("third")))
      assertWalk(yield* walk(4, { tags: { values: ["third"], mode: "any" } }), third, 4)
      const odd = expectedOrder(ORG, ROWS.filter((r) => r.keyId === "key_odd"))
      assertWalk(yield* walk(6, { keyId: "key_odd" }), odd, 6)
    }))

  it.effect("the default page holds 50 and says where to go on", () =>
    Effect.gen(function*() {
      const queries = yield* RequestQueries
      const first = yield* queries.list(ORG, {}, { limit: 50 })
      assert.strictEqual(first.data.length, 50)
      assert.isNotNull(first.next_cursor)
      const cursor = decodeCursor(first.next_cursor!)!
      assert.strictEqual(cursor.id, ALL[49])
      const rest = yield* queries.list(ORG, {}, { limit: 50, cursor })
      assert.deepStrictEqual(rest.data.map((entry) => entry.id), ALL.slice(50))
      assert.isNull(rest.next_cursor)
    }))

  it.effect("a cursor past the oldest row gives an empty last page", () =>
    Effect.gen(function*() {
      const page = yield* (yield* RequestQueries).list(ORG, {}, {
        limit: 10,
        cursor: { createdAt: "2000-01-01T00:00:00.000000Z", id: "x" }
      })
      assert.deepStrictEqual(page, { object: "list", data: [], next_cursor: null })
    }))
})
