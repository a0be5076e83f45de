/**
 * The allocation-free checks agree with the schemas they stand in for: every input one accepts, the
 * other accepts, over well-formed choices and every way a field can be wrong, missing or of the wrong type.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { Choice, ChunkChoice } from "../../src/kernel/Canonical.ts"
import { isChoices, isChunkChoices } from "../../src/providers/openai/WireGuards.ts"

const bySchema = (decode: (u: unknown) => Result.Result<unknown, unknown>) => (u: unknown) =>
  Result.isSuccess(decode(u))

/** `base` with one key replaced (or removed, for `undefined`), at a dotted path. */
const withField = (base: unknown, path: string, value: unknown): unknown => {
  const [head, ...rest] = path.split(".")
  const copy: Record<string, unknown> = { ...(base as Record<string, unknown>) }
  if (rest.length === 0) {
    if (value === undefined) delete copy[head!]
    else copy[head!] = value
    return copy
  }
  if (Array.isArray(copy[head!])) {
    const [index, ...tail] = rest
    const items = [...(copy[head!] as Array<unknown>)]
    items[Number(index)] = tail.length === 0 ? value : withField(items[Number(index)], tail.join("."), value)
    copy[head!] = items
    return copy
  }
  copy[head!] = withField(copy[head!], rest.join("."), value)
  return copy
}

const wrongValues: ReadonlyArray<unknown> = [undefined, null, 0, 1.5, "", "x", "function", true, [], {}, [1]]

const agree = (
  name: string,
  guard: (u: unknown) => boolean,
  decode: (u: unknown) => Result.Result<unknown, unknown>,
  valid: ReadonlyArray<unknown>,
  paths: ReadonlyArray<string>
) =>
  describe(name, () => {
    const decodes = bySchema(decode)

    it("accepts every well-formed sample, as the schema does", () => {
      for (const sample of valid) {
        assert.isTrue(decodes([sample]), JSON.stringify(sample))
        assert.isTrue(guard([sample]), JSON.stringify(sample))
      }
      assert.isTrue(guard([]))
      assert.isTrue(guard(valid))
    })

    it("rejects what the schema rejects, field by field", () => {
      let rejected = 0
      for (const sample of valid) {
        for (const path of paths) {
          for (const value of wrongValues) {
            const input = [withField(sample, path, value)]
            const expected = decodes(input)
            assert.strictEqual(
              guard(input),
              expected,
              `${path} = ${JSON.stringify(value)} in ${JSON.stringify(sample)}`
            )
            if (!expected) rejected++
          }
        }
      }
      // the table must exercise rejections, not only agree on acceptance
      assert.isAbove(rejected, paths.length)
    })

    it("rejects what is not an array of objects", () => {
      for (const input of [null, undefined, {}, "x", 1, [null], [1], ["x"], [[]]]) {
        assert.isFalse(guard(input), JSON.stringify(input))
        assert.isFalse(decodes(input), JSON.stringify(input))
      }
    })
  })

const toolCall = { id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }

agree("isChoices", isChoices, Schema.decodeUnknownResult(Schema.Array(Choice)), [
  { index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" },
  {
    index: 1,
    message: { role: "assistant", content: null, tool_calls: [toolCall] },
    finish_reason: null,
    logprobs: null
  },
  { index: 0, message: { role: "assistant", content: "", refusal: null, annotations: [] }, finish_reason: "length" },
  { index: 0, message: { role: "assistant", content: "no", refusal: "I can't" }, finish_reason: "stop" }
], [
  "index",
  "finish_reason",
  "message",
  "message.role",
  "message.content",
  "message.refusal",
  "message.tool_calls",
  "message.tool_calls.0",
  "message.tool_calls.0.id",
  "message.tool_calls.0.type",
  "message.tool_calls.0.function",
  "message.tool_calls.0.function.name",
  "message.tool_calls.0.function.arguments"
])

agree("isChunkChoices", isChunkChoices, Schema.decodeUnknownResult(Schema.Array(ChunkChoice)), [
  { index: 0, delta: { role: "assistant", content: "" }, finish_reason: null },
  { index: 0, delta: { content: "Hello" } },
  { index: 0, delta: {}, finish_reason: "stop", logprobs: null },
  { index: 2, delta: { content: null, refusal: null, audio: { id: "a" } }, finish_reason: null },
  {
    index: 0,
    delta: { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "f", arguments: "" } }] },
    finish_reason: null
  },
  { index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: "{\"a\":" } }] } }
], [
  "index",
  "finish_reason",
  "delta",
  "delta.role",
  "delta.content",
  "delta.refusal",
  "delta.tool_calls",
  "delta.tool_calls.0",
  "delta.tool_calls.0.index",
  "delta.tool_calls.0.id",
  "delta.tool_calls.0.type",
  "delta.tool_calls.0.function",
  "delta.tool_calls.0.function.name",
  "delta.tool_calls.0.function.arguments"
])
