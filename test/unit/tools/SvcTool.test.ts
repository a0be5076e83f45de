/**
 * `defineTool`: the JSON Schema the model sees is derived from the parameter Schema (always a closed
 * object), and the model's arguments are decoded with that Schema before `run`, so bad arguments are a
 * `ToolError` naming the problem (never a defect) and `run` never sees them.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Duration, Effect, Exit, Schema } from "effect"
import { runTool, testContext } from "../../../src/tools/runTool.ts"
import { defineTool, type ToolContext, ToolError } from "../../../src/tools/SvcTool.ts"

/** A tool that records every run and answers with its decoded arguments. */
const recorded = <P extends Schema.Codec<unknown, unknown>>(parameters: P) => {
  const runs: Array<{ readonly args: unknown; readonly context: ToolContext }> = []
  const tool = defineTool({
    id: "svc_recorded",
    description: "records its runs",
    parameters,
    run: (args, context) =>
      Effect.sync(() => {
        runs.push({ args, context })
        return args
      })
  })
  return { tool, runs }
}

const Search = Schema.Struct({
  query: Schema.String.annotate({ description: "what to look for" }),
  limit: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 50 }))),
  mode: Schema.optionalKey(Schema.Literals(["fast", "deep"]))
})

/** The ToolError of a failed run; fails the test on success or on a defect. */
const toolErrorOf = <A>(effect: Effect.Effect<A, ToolError>) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(effect)
    if (Exit.isSuccess(exit)) return assert.fail("expected the run to fail")
    assert.isFalse(Cause.hasDies(exit.cause), "bad arguments must not be a defect")
    const error = Cause.findErrorOption(exit.cause)
    if (error._tag === "None") return assert.fail("expected a ToolError")
    assert.instanceOf(error.value, ToolError)
    return error.value
  })

describe("defineTool: the JSON Schema", () => {
  it("is an object with the properties, the required keys and additionalProperties false", () => {
    const { tool } = recorded(Search)
    assert.deepStrictEqual(tool.jsonSchema, {
      type: "object",
      properties: {
        query: { type: "string", description: "what to look for" },
        limit: { type: "integer", minimum: 1, maximum: 50 },
        mode: { type: "string", enum: ["fast", "deep"] }
      },
      required: ["query"],
      additionalProperties: false
    })
  })

  it("of an empty struct is {type: object, properties: {}, additionalProperties: false}", () => {
    const { tool } = recorded(Schema.Struct({}))
    assert.deepStrictEqual(tool.jsonSchema, { type: "object", properties: {}, additionalProperties: false })
  })

  it("keeps the definitions of referenced schemas under $defs", () => {
    class Point extends Schema.Class<Point>("Point")({ x: Schema.Finite, y: Schema.Finite }) {}
    const { tool } = recorded(Schema.Struct({ points: Schema.Array(Point) }))
    const defs = tool.jsonSchema["$defs"] as Record<string, unknown> | undefined
    assert.isDefined(defs)
    const properties = tool.jsonSchema["properties"] as Record<string, { readonly items?: { readonly $ref?: string } }>
    const ref = properties["points"]?.items?.$ref
    assert.isString(ref)
    assert.property(defs, ref!.replace("#/$defs/", ""))
    assert.strictEqual(tool.jsonSchema["additionalProperties"], false)
  })

  it("carries id, description and timeout (undefined when the tool sets none)", () => {
    const withTimeout = defineTool({
      id: "svc_timed",
      description: "d",
      parameters: Schema.Struct({}),
      timeout: "250 millis",
      run: () => Effect.void
    })
    assert.strictEqual(withTimeout.id, "svc_timed")
    assert.strictEqual(withTimeout.description, "d")
    assert.isTrue(Duration.equals(withTimeout.timeout!, Duration.millis(250)))
    assert.isUndefined(recorded(Schema.Struct({})).tool.timeout)
  })

  // The JSON Schema is derived from the schema's JSON encoding, where Schema.Number also admits the
  // strings "Infinity", "-Infinity" and "NaN"; `invoke` decodes the arguments with the plain schema,
  // which refuses them. A model that follows the advertised schema must not be refused.
  it.effect("advertises only what decoding accepts (Schema.Number)", () =>
    Effect.gen(function*() {
      const { tool } = recorded(Schema.Struct({ n: Schema.Number }))
      const property = (tool.jsonSchema["properties"] as Record<string, Record<string, unknown>>)["n"]!
      const branches = (property["anyOf"] as ReadonlyArray<Record<string, unknown>> | undefined) ?? [property]
      const advertisedStrings = branches.flatMap((branch) =>
        (branch["enum"] as ReadonlyArray<unknown> | undefined) ?? []
      )
      for (const value of advertisedStrings) {
        const exit = yield* Effect.exit(runTool(tool, { n: value }))
        assert.isTrue(Exit.isSuccess(exit), `the schema offers n = ${JSON.stringify(value)} but decoding refuses it`)
      }
    }))
})

describe("defineTool: decoding the arguments before run", () => {
  it.effect("run gets the decoded, typed arguments and the request's context", () =>
    Effect.gen(function*() {
      const { tool, runs } = recorded(Search)
      const context: ToolContext = {
        orgId: "org_9",
        keyId: "key_9",
        requestId: "req_9",
        cutOutput: () => Effect.succeed(undefined)
      }
      const answer = yield* runTool(tool, { query: "cats", limit: 3 }, context)
      assert.deepStrictEqual(answer, { query: "cats", limit: 3 })
      assert.deepStrictEqual(runs, [{ args: { query: "cats", limit: 3 }, context }])
    }))

  it.effect("runTool uses the test context by default and passes a string through as raw JSON", () =>
    Effect.gen(function*() {
      const { tool, runs } = recorded(Search)
      yield* runTool(tool, "{\"query\":\"raw\"}")
      assert.deepStrictEqual(runs, [{ args: { query: "raw" }, context: testContext }])
    }))

  it.effect("empty-string (and blank) arguments count as {}", () =>
    Effect.gen(function*() {
      const { tool, runs } = recorded(Schema.Struct({ note: Schema.optionalKey(Schema.String) }))
      yield* tool.invoke("", testContext)
      yield* tool.invoke("  \n", testContext)
      assert.deepStrictEqual(runs.map((run) => run.args), [{}, {}])
    }))

  it.effect("empty arguments for a tool with a required parameter: a ToolError for the missing key", () =>
    Effect.gen(function*() {
      const { tool, runs } = recorded(Search)
      const error = yield* toolErrorOf(tool.invoke("", testContext))
      assert.include(error.message, "Invalid arguments")
      assert.include(error.message, "Missing key")
      assert.include(error.message, "query")
      assert.strictEqual(runs.length, 0)
    }))

  const bad: ReadonlyArray<readonly [label: string, args: unknown, mentions: ReadonlyArray<string>]> = [
    ["a wrong type", { query: 42 }, ["Expected string", "query"]],
    ["a failed check", { query: "x", limit: 500 }, ["limit"]],
    ["a non-integer", { query: "x", limit: 1.5 }, ["integer", "limit"]],
    ["a value outside the literals", { query: "x", mode: "slow" }, ["mode"]],
    ["null", null, ["Invalid arguments"]],
    ["an array", [1, 2], ["Invalid arguments"]]
  ]
  for (const [label, args, mentions] of bad) {
    it.effect(`${label} is a ToolError naming the problem, and run is not called`, () =>
      Effect.gen(function*() {
        const { tool, runs } = recorded(Search)
        const error = yield* toolErrorOf(runTool(tool, args))
        assert.match(error.message, /^Invalid arguments: /)
        for (const text of mentions) assert.include(error.message, text)
        assert.strictEqual(runs.length, 0)
      }))
  }

  it.effect("arguments that are not JSON are a ToolError quoting them (at most 200 characters)", () =>
    Effect.gen(function*() {
      const { tool, runs } = recorded(Search)
      const short = yield* toolErrorOf(tool.invoke("{query: cats}", testContext))
      assert.strictEqual(short.message, "The arguments are not valid JSON: {query: cats}")
      const long = yield* toolErrorOf(tool.invoke(`{${"x".repeat(1000)}`, testContext))
      assert.strictEqual(long.message, `The arguments are not valid JSON: {${"x".repeat(199)}`)
      assert.strictEqual(runs.length, 0)
    }))

  it.effect("excess keys are dropped before run (decoding ignores them)", () =>
    Effect.gen(function*() {
      const { tool, runs } = recorded(Search)
      yield* runTool(tool, { query: "q", verbose: true })
      assert.deepStrictEqual(runs.map((run) => run.args), [{ query: "q" }])
    }))

  it.effect("a ToolError from run comes out as it is", () =>
    Effect.gen(function*() {
      const tool = defineTool({
        id: "svc_refuses",
        description: "d",
        parameters: Schema.Struct({}),
        run: () => Effect.fail(new ToolError({ message: "nope" }))
      })
      const error = yield* toolErrorOf(runTool(tool, {}))
      assert.strictEqual(error.message, "nope")
    }))
})
