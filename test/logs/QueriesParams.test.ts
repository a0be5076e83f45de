/**
 * The request-log query strings: what parses into which filter, page and grouping, and which 400 (and
 * parameter name) each bad input gets. Also the cursor codec and the ISO 8601 reader.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { GROUP_BY } from "../../src/kernel/GroupBy.ts"
import type { RequestError } from "../../src/kernel/RequestError.ts"
import { decodeCursor, encodeCursor, parseInstant } from "../../src/logs/RequestFilter.ts"
import { parseAnalyticsParams, parseListParams, type QueryParams } from "../../src/logs/RequestQueryParams.ts"

const CURSOR = encodeCursor({ createdAt: "2026-03-04T00:00:00.000500Z", id: "req_1" })

/** The failing parameter and code of a RequestError InvalidField. */
const fieldOf = (error: RequestError) => {
  if (error.reason._tag !== "InvalidField") throw new Error(`expected InvalidField, got ${error.reason._tag}`)
  return { param: error.reason.param, code: error.reason.code ?? "invalid_value", message: error.reason.message }
}

const listFails = (params: QueryParams) => Effect.map(Effect.flip(parseListParams(params)), fieldOf)
const analyticsFails = (params: QueryParams) => Effect.map(Effect.flip(parseAnalyticsParams(params)), fieldOf)

describe("request log query parameters", () => {
  it.effect("no parameters: no filter, 50 rows", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* parseListParams({}), { filter: {}, page: { limit: 50 } })
    }))

  it.effect("every filter and the page", () =>
    Effect.gen(function*() {
      const parsed = yield* parseListParams({
        tag: ["a", "b"],
        tag_mode: "all",
        model: "openai/gpt-4o",
        key_id: "key_1",
        session_id: "0b3c9a52-5f5e-4d6c-9a1e-2f7f3e0c1d2a",
        status: "5xx",
        from: "2026-03-01",
        to: "2026-03-02T12:30:00+02:00",
        limit: "200",
        cursor: CURSOR
      })
      assert.deepStrictEqual(parsed, {
        filter: {
          tags: { values: ["a", "b"], mode: "all" },
          model: "openai/gpt-4o",
          keyId: "key_1",
          sessionId: "0b3c9a52-5f5e-4d6c-9a1e-2f7f3e0c1d2a",
          status: { _tag: "Class", hundreds: 5 },
          from: new Date("2026-03-01T00:00:00Z"),
          to: new Date("2026-03-02T10:30:00Z")
        },
        page: { limit: 200, cursor: { createdAt: "2026-03-04T00:00:00.000500Z", id: "req_1" } }
      })
    }))

  it.effect("one tag defaults to any-of; status forms", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual((yield* parseListParams({ tag: "x" })).filter, { tags: { values: ["x"], mode: "any" } })
      assert.deepStrictEqual((yield* parseListParams({ status: "404" })).filter.status, { _tag: "Exact", status: 404 })
      assert.deepStrictEqual((yield* parseListParams({ status: "4XX" })).filter.status, { _tag: "Class", hundreds: 4 })
      assert.deepStrictEqual((yield* parseListParams({ status: "error" })).filter.status, { _tag: "Error" })
    }))

  it.effect("analytics: group_by and the same filters", () =>
    Effect.gen(function*() {
      for (const groupBy of GROUP_BY) {
        assert.deepStrictEqual(yield* parseAnalyticsParams({ group_by: groupBy, key_id: "k", session_id: "s" }), {
          groupBy,
          filter: { keyId: "k", sessionId: "s" }
        })
      }
    }))

  const badList: ReadonlyArray<readonly [QueryParams, string, string?]> = [
    [{ limit: "0" }, "limit"],
    [{ limit: "201" }, "limit"],
    [{ limit: "ten" }, "limit"],
    [{ limit: "1.5" }, "limit"],
    [{ limit: ["5", "6"] }, "limit"],
    [{ cursor: "not a cursor" }, "cursor"],
    [{ cursor: Buffer.from(JSON.stringify(["yesterday", "x"])).toString("base64url") }, "cursor"],
    [{ cursor: Buffer.from("{}").toString("base64url") }, "cursor"],
    [{ status: "600" }, "status"],
    [{ status: "6xx" }, "status"],
    [{ status: "ok" }, "status"],
    [{ tag_mode: "some" }, "tag_mode"],
    [{ tag: "" }, "tag"],
    [{ tag: Array.from({ length: 51 }, (_, i) => `t${i}`) }, "tag"],
    [{ model: "" }, "model"],
    [{ key_id: ["a", "b"] }, "key_id"],
    [{ session_id: ["a", "b"] }, "session_id"],
    [{ session_id: "" }, "session_id"],
    [{ session_id: "s".repeat(513) }, "session_id"],
    [{ session: "a" }, "session", "unknown_parameter"],
    [{ from: "yesterday" }, "from"],
    [{ from: "2026-02-30" }, "from"],
    [{ from: "2026-03-01T10:00:00" }, "from"],
    [{ to: "2026-03-01T25:00:00Z" }, "to"],
    [{ from: "2026-03-02", to: "2026-03-01" }, "to"],
    [{ from: "2026-03-02", to: "2026-03-02" }, "to"],
    [{ tags: "a" }, "tags", "unknown_parameter"],
    [{ group_by: "tag" }, "group_by", "unknown_parameter"]
  ]
  for (const [params, param, code] of badList) {
    it.effect(`list: 400 on ${JSON.stringify(params).slice(0, 60)} names '${param}'`, () =>
      Effect.gen(function*() {
        const field = yield* listFails(params)
        assert.strictEqual(field.param, param)
        assert.strictEqual(field.code, code ?? "invalid_value")
        assert.include(field.message, `'${param}'`)
      }))
  }

  it.effect("analytics: group_by is required and checked; paging parameters are refused", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(
        { ...(yield* analyticsFails({})), message: "" },
        { param: "group_by", code: "missing_required_parameter", message: "" }
      )
      assert.strictEqual((yield* analyticsFails({ group_by: "week" })).param, "group_by")
      assert.strictEqual((yield* analyticsFails({ group_by: "tag", limit: "5" })).code, "unknown_parameter")
      assert.strictEqual((yield* analyticsFails({ group_by: "tag", status: "2" })).param, "status")
      assert.strictEqual((yield* analyticsFails({ group_by: "session", session_id: ["a", "b"] })).param, "session_id")
      assert.strictEqual((yield* analyticsFails({ group_by: "sessions" })).param, "group_by")
    }))
})

describe("cursor codec and instants", () => {
  it("a cursor survives the round trip and is base64url", () => {
    const cursor = { createdAt: "2026-03-04T00:00:00.123456Z", id: "req_\"odd\"/id ü" }
    const text = encodeCursor(cursor)
    assert.match(text, /^[A-Za-z0-9_-]+$/)
    assert.deepStrictEqual(decodeCursor(text), cursor)
    assert.isUndefined(decodeCursor(`${text}=`))
    assert.isUndefined(decodeCursor("x".repeat(3000)))
  })

  it("ISO 8601: dates are UTC midnight, date-times need a zone, fields are range-checked", () => {
    assert.deepStrictEqual(parseInstant("2026-03-01"), new Date("2026-03-01T00:00:00Z"))
    assert.deepStrictEqual(parseInstant("2026-03-01T10:20Z"), new Date("2026-03-01T10:20:00Z"))
    assert.deepStrictEqual(parseInstant("2026-03-01T10:20:30.5-01:00"), new Date("2026-03-01T11:20:30.500Z"))
    assert.deepStrictEqual(parseInstant("2024-02-29"), new Date("2024-02-29T00:00:00Z"))
    for (
      const bad of ["2025-02-29", "2026-13-01", "0000-01-01", "2026-03-01T10:20", "2026-03-01 10:20Z", "1700000000"]
    ) {
      assert.isUndefined(parseInstant(bad), bad)
    }
  })
})
