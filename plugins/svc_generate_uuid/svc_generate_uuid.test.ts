/**
 * svc_generate_uuid run alone, as the gateway runs it: RFC 4122 version 4 UUIDs (version nibble 4,
 * variant 8-b), distinct over many calls, and what its empty parameter schema does with arguments.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { runTool } from "../../src/tools/runTool.ts"
import { GenerateUuid } from "./index.ts"

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const Answer = Schema.Struct({ uuid: Schema.String })

const uuid = (args: unknown = {}) =>
  Effect.flatMap(runTool(GenerateUuid, args), (answer) => Schema.decodeUnknownEffect(Answer)(answer))

describe("svc_generate_uuid", () => {
  it.effect("answers { uuid } with a lower-case RFC 4122 version 4 UUID and nothing else", () =>
    Effect.gen(function*() {
      const answer = yield* runTool(GenerateUuid, {})
      assert.deepStrictEqual(Object.keys(answer as object), ["uuid"])
      const { uuid: value } = yield* uuid()
      assert.match(value, V4)
      assert.strictEqual(value[14], "4")
      assert.include(["8", "9", "a", "b"], value[19])
    }))

  it.effect("1000 calls give 1000 distinct v4 UUIDs", () =>
    Effect.gen(function*() {
      const answers = yield* Effect.forEach(Array.from({ length: 1000 }), () => uuid())
      const values = answers.map((answer) => answer.uuid)
      for (const value of values) assert.match(value, V4)
      assert.strictEqual(new Set(values).size, 1000)
    }))

  it.effect("empty arguments (\"\") are the same as {}", () =>
    Effect.gen(function*() {
      assert.match((yield* uuid("")).uuid, V4)
      assert.match((yield* uuid("  ")).uuid, V4)
    }))

  // Schema.Struct({}) decodes with excess keys ignored (Effect's default), so a model that invents an
  // argument still gets its UUID; the advertised JSON Schema is closed all the same.
  it.effect("extra arguments are ignored, as Schema.Struct({}) decodes them", () =>
    Effect.gen(function*() {
      assert.match((yield* uuid({ version: 7, count: 3 })).uuid, V4)
    }))

  // Schema.Struct({}) is the TypeScript type `{}`, every value but null and undefined, so arrays, numbers,
  // strings and booleans decode too (a struct with fields, such as svc_current_time's, refuses them).
  // Harmless here: the tool reads no argument. Only invalid JSON and `null` are refused.
  it.effect("any JSON value but null is accepted as arguments, as Schema.Struct({}) decodes it", () =>
    Effect.gen(function*() {
      for (const args of ["[]", "42", "\"x\"", "true", "{}"]) assert.match((yield* uuid(args)).uuid, V4, args)
    }))

  it.effect("arguments that are not JSON, or null, are ToolErrors", () =>
    Effect.gen(function*() {
      const notJson = yield* Effect.flip(runTool(GenerateUuid, "{count:"))
      assert.strictEqual(notJson._tag, "ToolError")
      assert.include(notJson.message, "not valid JSON")
      const nullArgs = yield* Effect.flip(runTool(GenerateUuid, "null"))
      assert.strictEqual(nullArgs._tag, "ToolError")
      assert.include(nullArgs.message, "Invalid arguments")
    }))

  it("offers an empty, closed object schema", () => {
    assert.strictEqual(GenerateUuid.id, "svc_generate_uuid")
    assert.deepStrictEqual(GenerateUuid.jsonSchema, { type: "object", properties: {}, additionalProperties: false })
  })
})
