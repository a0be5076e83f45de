/**
 * svc_expand_output run alone: the caller's cut text by id, a page at a time with a note of what is
 * left, an unknown id and a bad offset as tool errors the model can act on.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { runTool, testContext } from "../../src/tools/runTool.ts"
import type { ToolContext } from "../../src/tools/SvcTool.ts"
import { ExpandOutput, MAX_PAGE_CHARS } from "./index.ts"

const LINES = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`)
const cuts: Record<string, string> = {
  cut_lines: LINES.join("\n"),
  cut_short: "a\nb",
  cut_wide: "x".repeat(MAX_PAGE_CHARS + 10)
}
const context: ToolContext = { ...testContext, cutOutput: (id) => Effect.succeed(cuts[id]) }
const expand = (args: unknown) => runTool(ExpandOutput, args, context)

describe("svc_expand_output", () => {
  it.effect("a short cut comes back whole, as it was", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* expand({ id: "cut_short" }), "a\nb")
    }))

  it.effect("a long cut a page at a time, each page saying where the next starts", () =>
    Effect.gen(function*() {
      const first = String(yield* expand({ id: "cut_lines" }))
      assert.strictEqual(
        first,
        `${LINES.slice(0, 400).join("\n")}\n[svc: lines 1-400 of 1000; call again with offset 400 for the rest]`
      )
      const last = String(yield* expand({ id: "cut_lines", offset: 900, max_lines: 2000 }))
      assert.strictEqual(last, `${LINES.slice(900).join("\n")}\n[svc: lines 901-1000 of 1000]`)
    }))

  it.effect("a line wider than a page is cut at the page's end, and said so", () =>
    Effect.gen(function*() {
      const wide = String(yield* expand({ id: "cut_wide" }))
      assert.isTrue(wide.startsWith("x".repeat(MAX_PAGE_CHARS)))
      assert.include(wide, `[svc: lines 1-1 of 1; line 1 was cut at ${MAX_PAGE_CHARS} characters]`)
    }))

  it.effect("an unknown or expired id and an offset past the end are tool errors", () =>
    Effect.gen(function*() {
      const unknown = yield* Effect.flip(expand({ id: "cut_nope" }))
      assert.include(unknown.message, "No cut output with id 'cut_nope'")
      const past = yield* Effect.flip(expand({ id: "cut_short", offset: 5 }))
      assert.strictEqual(past.message, "offset 5 is past the last line (the text has 2 lines)")
      const negative = yield* Effect.flip(expand({ id: "cut_short", offset: -1 }))
      assert.include(negative.message, "Invalid arguments")
    }))
})
