import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { headerTags, MAX_TAGS, mergeTags } from "../../../src/core/Tags.ts"

const merged = (body: ReadonlyArray<string>, header?: string) => Effect.runSync(mergeTags(body, header))
const refusal = (body: ReadonlyArray<string>, header?: string) => {
  const error = Effect.runSync(Effect.flip(mergeTags(body, header)))
  assert.strictEqual(error.reason._tag, "InvalidField")
  if (error.reason._tag !== "InvalidField") throw new Error("unreachable")
  return error.reason
}

describe("headerTags", () => {
  it("splits on commas, trims, drops empties", () => {
    assert.deepStrictEqual(headerTags(" a , b,,c ,  "), ["a", "b", "c"])
    assert.deepStrictEqual(headerTags(""), [])
    assert.deepStrictEqual(headerTags(undefined), [])
  })
})

describe("mergeTags", () => {
  it("body alone, header alone", () => {
    assert.deepStrictEqual(merged(["team:search", "env=prod"]), ["team:search", "env=prod"])
    assert.deepStrictEqual(merged([], "a, b"), ["a", "b"])
  })

  it("the union, deduplicated, body order first, then the header's new tags", () => {
    assert.deepStrictEqual(merged(["b", "a", "b"], "c, a, d, c"), ["b", "a", "c", "d"])
  })

  it("accepts every allowed character and lengths 1 and 64", () => {
    assert.deepStrictEqual(merged(["aZ09-_.:/=@+", "x", "y".repeat(64)]), ["aZ09-_.:/=@+", "x", "y".repeat(64)])
    assert.deepStrictEqual(merged([], "developer:ana+ci@example.com"), ["developer:ana+ci@example.com"])
  })

  it("refuses a bad body tag, naming it and 'tags'", () => {
    for (const tag of ["", "has space", "ü", "a".repeat(65), "semi;colon", "quote\""]) {
      const reason = refusal(["ok", tag])
      assert.strictEqual(reason.param, "tags")
      assert.strictEqual(reason.code, "invalid_tags")
      assert.include(reason.message, JSON.stringify(tag.length > 80 ? `${tag.slice(0, 80)}...` : tag))
    }
  })

  it("refuses a bad header tag, naming it and 'x-svc-tags'", () => {
    const reason = refusal(["ok"], "fine, not fine")
    assert.strictEqual(reason.param, "x-svc-tags")
    assert.include(reason.message, "\"not fine\"")
  })

  it(`at most ${MAX_TAGS} tags after merging; duplicates do not count twice`, () => {
    const body = Array.from({ length: 20 }, (_, i) => `b${i}`)
    const header = Array.from({ length: 12 }, (_, i) => `h${i}`).join(",")
    assert.strictEqual(merged(body, `${header},b1,b2`).length, MAX_TAGS)
    const reason = refusal(body, `${header},h12`)
    assert.strictEqual(reason.param, "tags")
    assert.include(reason.message, "33")
  })
})
