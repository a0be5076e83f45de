/**
 * `runToolCalls`: the calls of one turn run in parallel and come back in the calls' order; nothing a
 * tool does fails the request: a tool that was not injected, a ToolError, a timeout (the tool's own or
 * the default), output over the cap and a plugin defect all become results the model reads.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Schema } from "effect"
import { TestClock } from "effect/testing"
import type { ToolCall } from "../../../src/kernel/Canonical.ts"
import { defineTool, type SvcTool } from "../../../src/tools/SvcTool.ts"
import { runToolCalls, type ToolRunLimits } from "../../../src/tools/ToolRunner.ts"
import { callOf, echoTool, failingTool, sleepyTool, toolRunning } from "../../utils/ToolFixtures.ts"

const context = { orgId: "org_1", keyId: "key_1", requestId: "req_1", cutOutput: () => Effect.succeed(undefined) }
const limits: ToolRunLimits = { defaultTimeout: Duration.seconds(10), maxOutputBytes: 1024 }

const injected = (...tools: ReadonlyArray<SvcTool>): ReadonlyMap<string, SvcTool> =>
  new Map(tools.map((tool) => [tool.id, tool]))

const run = (
  calls: ReadonlyArray<ToolCall>,
  tools: ReadonlyMap<string, SvcTool>,
  custom: Partial<ToolRunLimits> = {}
) => runToolCalls(calls, { injected: tools, context, limits: { ...limits, ...custom } })

/** The `error` text of an error content. */
const errorText = (content: string): string => {
  const parsed: unknown = JSON.parse(content)
  assert.isObject(parsed)
  const error = (parsed as { readonly error?: unknown }).error
  assert.isString(error)
  return error as string
}

describe("runToolCalls", () => {
  it.live("runs the calls in parallel: two 200 ms tools finish well under 400 ms", () =>
    Effect.gen(function*() {
      const tools = injected(sleepyTool("svc_a", "200 millis"), sleepyTool("svc_b", "200 millis"))
      const started = Date.now()
      const results = yield* run([callOf("c1", "svc_a"), callOf("c2", "svc_b")], tools)
      const elapsed = Date.now() - started
      assert.isBelow(elapsed, 350)
      assert.isAtLeast(elapsed, 190)
      assert.deepStrictEqual(results.map((result) => result.outcome), ["ok", "ok"])
    }))

  it.live("keeps the calls' order in the results, whichever finishes first", () =>
    Effect.gen(function*() {
      const tools = injected(sleepyTool("svc_slow", "150 millis"), sleepyTool("svc_fast", "1 millis"), echoTool())
      const calls = [callOf("c1", "svc_slow"), callOf("c2", "svc_fast"), callOf("c3", "svc_echo", { text: "x" })]
      const results = yield* run(calls, tools)
      assert.deepStrictEqual(results.map((result) => [result.toolCallId, result.toolId]), [
        ["c1", "svc_slow"],
        ["c2", "svc_fast"],
        ["c3", "svc_echo"]
      ])
    }))

  it.effect("no calls: no results", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* run([], injected(echoTool())), [])
    }))

  it.effect("an object result is sent as JSON, a string result as it is", () =>
    Effect.gen(function*() {
      const tools = injected(
        echoTool(),
        toolRunning("svc_text", () => Effect.succeed("plain \"text\"")),
        toolRunning("svc_number", () => Effect.succeed(42)),
        toolRunning("svc_nothing", () => Effect.void)
      )
      const results = yield* run([
        callOf("c1", "svc_echo", { text: "hé" }),
        callOf("c2", "svc_text"),
        callOf("c3", "svc_number"),
        callOf("c4", "svc_nothing")
      ], tools)
      assert.deepStrictEqual(results.map((result) => [result.outcome, result.content]), [
        ["ok", "{\"echo\":\"hé\"}"],
        ["ok", "plain \"text\""],
        ["ok", "42"],
        ["ok", "null"]
      ])
    }))

  it.effect("a svc_ id that was not injected is not_allowed, with an error content naming it", () =>
    Effect.gen(function*() {
      const [result] = yield* run([callOf("c1", "svc_generate_uuid")], injected(echoTool()))
      assert.strictEqual(result!.outcome, "not_allowed")
      assert.strictEqual(result!.toolCallId, "c1")
      assert.strictEqual(result!.toolId, "svc_generate_uuid")
      assert.include(errorText(result!.content), "'svc_generate_uuid'")
      assert.include(errorText(result!.content), "not available")
    }))

  it.effect("a ToolError is outcome error, its message as {\"error\": ...}", () =>
    Effect.gen(function*() {
      const [result] = yield* run([callOf("c1", "svc_fails")], injected(failingTool("svc_fails", "No such city.")))
      assert.strictEqual(result!.outcome, "error")
      assert.strictEqual(result!.content, JSON.stringify({ error: "No such city." }))
    }))

  it.effect("bad arguments are outcome error naming the problem", () =>
    Effect.gen(function*() {
      const [badType, notJson] = yield* run(
        [callOf("c1", "svc_echo", { text: 5 }), callOf("c2", "svc_echo", "{text")],
        injected(echoTool())
      )
      assert.strictEqual(badType!.outcome, "error")
      assert.include(errorText(badType!.content), "text")
      assert.strictEqual(notJson!.outcome, "error")
      assert.include(errorText(notJson!.content), "not valid JSON")
    }))

  it.effect("the tool's own timeout: outcome timeout, saying after how long", () =>
    Effect.gen(function*() {
      const tools = injected(sleepyTool("svc_stuck", "1 hour", { timeout: "100 millis" }))
      const fiber = yield* Effect.forkChild(run([callOf("c1", "svc_stuck")], tools))
      yield* TestClock.adjust("100 millis")
      const [result] = yield* Fiber.join(fiber)
      assert.strictEqual(result!.outcome, "timeout")
      assert.include(errorText(result!.content), "timed out")
      assert.include(errorText(result!.content), "100")
    }))

  it.effect("the default timeout applies to a tool that sets none", () =>
    Effect.gen(function*() {
      const tools = injected(sleepyTool("svc_stuck", "1 hour"))
      const fiber = yield* Effect.forkChild(
        run([callOf("c1", "svc_stuck")], tools, { defaultTimeout: Duration.seconds(2) })
      )
      yield* TestClock.adjust("1999 millis")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      const [result] = yield* Fiber.join(fiber)
      assert.strictEqual(result!.outcome, "timeout")
      assert.include(errorText(result!.content), "timed out")
    }))

  it.effect("a tool's own timeout wins over the default, longer or shorter", () =>
    Effect.gen(function*() {
      const tools = injected(
        sleepyTool("svc_patient", "3 seconds", { timeout: "5 seconds", answer: "done" }),
        sleepyTool("svc_hasty", "3 seconds", { timeout: "1 second" })
      )
      const fiber = yield* Effect.forkChild(
        run([callOf("c1", "svc_patient"), callOf("c2", "svc_hasty")], tools, { defaultTimeout: Duration.seconds(2) })
      )
      yield* TestClock.adjust("3 seconds")
      const results = yield* Fiber.join(fiber)
      assert.deepStrictEqual(results.map((result) => result.outcome), ["ok", "timeout"])
      assert.strictEqual(results[0]!.content, "done")
    }))

  it.effect("a timeout of one call does not hold back or spoil the others", () =>
    Effect.gen(function*() {
      const tools = injected(sleepyTool("svc_stuck", "1 hour", { timeout: "1 second" }), echoTool())
      const fiber = yield* Effect.forkChild(
        run([callOf("c1", "svc_stuck"), callOf("c2", "svc_echo", { text: "a" })], tools)
      )
      yield* TestClock.adjust("1 second")
      const results = yield* Fiber.join(fiber)
      assert.deepStrictEqual(results.map((result) => result.outcome), ["timeout", "ok"])
    }))

  it.effect("output over the cap is outcome error; at the cap it is sent (bytes, not characters)", () =>
    Effect.gen(function*() {
      const tools = injected(
        toolRunning("svc_exact", () => Effect.succeed("x".repeat(1024))),
        toolRunning("svc_over", () => Effect.succeed("x".repeat(1025))),
        // 513 two-byte characters: 513 characters, 1026 bytes
        toolRunning("svc_wide", () => Effect.succeed("é".repeat(513)))
      )
      const results = yield* run(
        [callOf("c1", "svc_exact"), callOf("c2", "svc_over"), callOf("c3", "svc_wide")],
        tools
      )
      assert.deepStrictEqual(results.map((result) => result.outcome), ["ok", "error", "error"])
      assert.strictEqual(results[0]!.content.length, 1024)
      assert.include(errorText(results[1]!.content), "1024 bytes")
    }))

  it.effect("the cap counts the JSON rendering of an object result", () =>
    Effect.gen(function*() {
      const tools = injected(echoTool())
      const [result] = yield* run([callOf("c1", "svc_echo", { text: "y".repeat(20) })], tools, { maxOutputBytes: 20 })
      assert.strictEqual(result!.outcome, "error")
    }))

  it.effect("a defect in a plugin (die, or a throw in run) is outcome error; the turn goes on", () =>
    Effect.gen(function*() {
      const throwing = defineTool({
        id: "svc_throws",
        description: "d",
        parameters: Schema.Struct({}),
        run: () => {
          throw new Error("plugin bug")
        }
      })
      const tools = injected(
        toolRunning("svc_dies", () => Effect.die(new Error("boom"))),
        throwing,
        echoTool()
      )
      const results = yield* run(
        [callOf("c1", "svc_dies"), callOf("c2", "svc_throws"), callOf("c3", "svc_echo", { text: "ok" })],
        tools
      )
      assert.deepStrictEqual(results.map((result) => result.outcome), ["error", "error", "ok"])
      for (const result of results.slice(0, 2)) {
        assert.include(errorText(result.content), "unexpectedly")
        // the defect's own text is not shown to the model
        assert.notInclude(result.content, "boom")
        assert.notInclude(result.content, "plugin bug")
      }
    }))

  it.effect("a result that cannot be rendered as JSON is outcome error, not a defect", () =>
    Effect.gen(function*() {
      const tools = injected(toolRunning("svc_bigint", () => Effect.succeed({ n: 1n })))
      const [result] = yield* run([callOf("c1", "svc_bigint")], tools)
      assert.strictEqual(result!.outcome, "error")
    }))

  it.effect("each outcome at once, in one turn", () =>
    Effect.gen(function*() {
      const tools = injected(echoTool(), failingTool("svc_fails", "bad"), sleepyTool("svc_stuck", "1 hour"))
      const fiber = yield* Effect.forkChild(run(
        [
          callOf("c1", "svc_echo", {}),
          callOf("c2", "svc_fails"),
          callOf("c3", "svc_stuck"),
          callOf("c4", "svc_absent")
        ],
        tools,
        { defaultTimeout: Duration.millis(10) }
      ))
      yield* TestClock.adjust("10 millis")
      const results = yield* Fiber.join(fiber)
      assert.deepStrictEqual(results.map((result) => result.outcome), ["ok", "error", "timeout", "not_allowed"])
    }))
})
