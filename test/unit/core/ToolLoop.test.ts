/**
 * The non-streamed shared-tool loop over scripted model answers (no HTTP): rounds without tools, one
 * and several shared rounds (what the next model call sees), parallel calls in one turn, the round cap,
 * a mixed shared + client turn stored as pending, usage and attempts summed, tool runs recorded.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { completeWithTools, type LoopSettings, type ModelAnswer } from "../../../src/core/ToolLoop.ts"
import type { ChatMessage, Completion, ToolCall, Usage } from "../../../src/kernel/Canonical.ts"
import { upstreamFailure } from "../../utils/ScriptedProvider.ts"
import {
  callOf,
  echoTool,
  failingTool,
  loopSettings,
  recordingPending,
  sleepyTool,
  testCaller,
  tokens
} from "../../utils/ToolFixtures.ts"

const question: ReadonlyArray<ChatMessage> = [{ role: "user", content: "what time is it?" }]

const answer = (
  content: string | null,
  calls: ReadonlyArray<ToolCall> = [],
  usage: Usage = tokens(10, 5),
  attempts = 1
): ModelAnswer => ({
  attempts,
  completion: {
    model: "upstream-model",
    choices: [{
      index: 0,
      message: { role: "assistant", content, ...(calls.length === 0 ? {} : { tool_calls: calls }) },
      finish_reason: calls.length === 0 ? "stop" : "tool_calls"
    }],
    usage,
    extra: { system_fingerprint: "fp_1" }
  }
})

/** A model that gives the scripted answers in turn and records the history of every call. */
const scripted = (answers: ReadonlyArray<ModelAnswer>) => {
  const histories: Array<ReadonlyArray<ChatMessage>> = []
  const callModel = (history: ReadonlyArray<ChatMessage>) =>
    Effect.suspend(() => {
      histories.push(history)
      const next = answers[histories.length - 1]
      return next === undefined
        ? Effect.die(new Error("the model was called more often than scripted"))
        : Effect.succeed(next)
    })
  return { histories, callModel }
}

const tools = [echoTool(), failingTool("svc_fails", "nope")]

const run = (answers: ReadonlyArray<ModelAnswer>, overrides: Partial<LoopSettings> = {}) =>
  Effect.gen(function*() {
    const pending = recordingPending()
    const model = scripted(answers)
    const outcome = yield* completeWithTools(loopSettings(tools, pending.service, overrides), question, model.callModel)
    return { outcome, histories: model.histories, saved: pending.saved }
  })

const contentOf = (completion: Completion) => completion.choices[0]?.message.content

describe("completeWithTools", () => {
  it.effect("one round without tools: the answer as it came, once", () =>
    Effect.gen(function*() {
      const only = answer("noon")
      const { histories, outcome, saved } = yield* run([only])
      assert.deepStrictEqual(outcome, {
        completion: only.completion,
        attempts: 1,
        rounds: 1,
        toolRuns: [],
        svcPendingId: undefined
      })
      assert.deepStrictEqual(histories, [question])
      assert.deepStrictEqual(saved, [])
    }))

  it.effect("client tool calls only: returned to the client untouched, no tool runs", () =>
    Effect.gen(function*() {
      const calls = answer(null, [callOf("k1", "get_weather", { city: "Oslo" })])
      const { histories, outcome, saved } = yield* run([calls])
      assert.deepStrictEqual(outcome.completion, calls.completion)
      assert.strictEqual(histories.length, 1)
      assert.deepStrictEqual([outcome.toolRuns, outcome.svcPendingId, saved], [[], undefined, []])
    }))

  it.effect("one shared round, then the answer: the second call sees the assistant's calls and the result", () =>
    Effect.gen(function*() {
      const call = callOf("s1", "svc_echo", { text: "hello" })
      const { histories, outcome } = yield* run([answer("let me check", [call]), answer("it says hello")])
      assert.strictEqual(histories.length, 2)
      assert.deepStrictEqual(histories[1], [
        ...question,
        { role: "assistant", content: "let me check", tool_calls: [call] },
        { role: "tool", tool_call_id: "s1", content: "{\"echo\":\"hello\"}" }
      ])
      assert.strictEqual(contentOf(outcome.completion), "it says hello")
      assert.strictEqual(outcome.completion.choices[0]?.finish_reason, "stop")
      assert.deepStrictEqual(outcome.completion.extra, { system_fingerprint: "fp_1" })
      assert.strictEqual(outcome.rounds, 2)
      assert.deepStrictEqual(outcome.toolRuns, [{ id: "svc_echo", outcome: "ok", round: 1 }])
      assert.isUndefined(outcome.svcPendingId)
    }))

  it.effect("several rounds: each call sees every earlier turn; runs are recorded per round", () =>
    Effect.gen(function*() {
      const calls = [callOf("s1", "svc_echo", { text: "a" }), callOf("s2", "svc_fails"), callOf("s3", "svc_echo")]
      const { histories, outcome } = yield* run([
        answer(null, [calls[0]!]),
        answer(null, [calls[1]!]),
        answer(null, [calls[2]!]),
        answer("done")
      ])
      assert.deepStrictEqual(histories.map((history) => history.length), [1, 3, 5, 7])
      assert.deepStrictEqual(histories[3], [
        ...question,
        { role: "assistant", content: null, tool_calls: [calls[0]!] },
        { role: "tool", tool_call_id: "s1", content: "{\"echo\":\"a\"}" },
        { role: "assistant", content: null, tool_calls: [calls[1]!] },
        { role: "tool", tool_call_id: "s2", content: "{\"error\":\"nope\"}" },
        { role: "assistant", content: null, tool_calls: [calls[2]!] },
        { role: "tool", tool_call_id: "s3", content: "{\"echo\":\"\"}" }
      ])
      assert.strictEqual(outcome.rounds, 4)
      assert.deepStrictEqual(outcome.toolRuns, [
        { id: "svc_echo", outcome: "ok", round: 1 },
        { id: "svc_fails", outcome: "error", round: 2 },
        { id: "svc_echo", outcome: "ok", round: 3 }
      ])
    }))

  it.effect("usage and attempts are summed over every round", () =>
    Effect.gen(function*() {
      const { outcome } = yield* run([
        answer(null, [callOf("s1", "svc_echo")], tokens(10, 5, 2, 1), 2),
        answer(null, [callOf("s2", "svc_echo")], tokens(20, 7, 3, 0), 1),
        answer("ok", [], tokens(30, 9, 0, 4), 3)
      ])
      assert.deepStrictEqual(outcome.completion.usage, {
        promptTokens: 60,
        completionTokens: 21,
        totalTokens: 81,
        cachedTokens: 5,
        reasoningTokens: 5
      })
      assert.strictEqual(outcome.attempts, 6)
    }))

  it.effect("parallel shared calls in one turn run together; results follow in the calls' order", () =>
    Effect.gen(function*() {
      const pending = recordingPending()
      const model = scripted([
        answer(null, [callOf("s1", "svc_slow_a"), callOf("s2", "svc_slow_b")]),
        answer("both done")
      ])
      const settings = loopSettings(
        [sleepyTool("svc_slow_a", "1 second", { answer: "A" }), sleepyTool("svc_slow_b", "1 second", { answer: "B" })],
        pending.service
      )
      const fiber = yield* Effect.forkChild(completeWithTools(settings, question, model.callModel))
      // one second of clock is enough for both: they ran at the same time
      yield* TestClock.adjust("1 second")
      assert.isDefined(
        fiber.pollUnsafe(),
        "the loop did not finish after 1 s of clock: the calls ran one after the other"
      )
      const outcome = yield* Fiber.join(fiber)
      assert.strictEqual(contentOf(outcome.completion), "both done")
      assert.deepStrictEqual(model.histories[1]?.slice(2), [
        { role: "tool", tool_call_id: "s1", content: "A" },
        { role: "tool", tool_call_id: "s2", content: "B" }
      ])
      assert.deepStrictEqual(outcome.toolRuns.map((entry) => [entry.id, entry.round]), [["svc_slow_a", 1], [
        "svc_slow_b",
        1
      ]])
    }))

  it.effect("a call to a svc_ tool that was not injected is answered not_allowed, and the loop goes on", () =>
    Effect.gen(function*() {
      const { histories, outcome } = yield* run([answer(null, [callOf("s1", "svc_secret")]), answer("sorry")])
      assert.strictEqual(histories[1]?.[2]?.role, "tool")
      assert.include(String(histories[1]?.[2]?.content), "not available")
      assert.deepStrictEqual(outcome.toolRuns, [{ id: "svc_secret", outcome: "not_allowed", round: 1 }])
    }))

  it.effect("the round cap: a model that keeps asking for shared tools fails with RoundLimitReached", () =>
    Effect.gen(function*() {
      const pending = recordingPending()
      const model = scripted([answer(null, [callOf("s1", "svc_echo")]), answer(null, [callOf("s2", "svc_echo")])])
      const error = yield* Effect.flip(
        completeWithTools(loopSettings(tools, pending.service, { maxRounds: 2 }), question, model.callModel)
      )
      assert.strictEqual(error._tag, "ToolLoopError")
      if (error._tag !== "ToolLoopError") return
      assert.strictEqual(error.reason._tag, "RoundLimitReached")
      assert.strictEqual(error.reason.rounds, 2)
      assert.strictEqual(model.histories.length, 2)
    }))

  it.effect("with a cap of 1 the first shared call is over the cap: no tool runs", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(run([answer(null, [callOf("s1", "svc_echo")])], { maxRounds: 1 }))
      assert.strictEqual(error._tag, "ToolLoopError")
    }))

  it.effect("a final answer on the last allowed round is fine", () =>
    Effect.gen(function*() {
      const { outcome } = yield* run([answer(null, [callOf("s1", "svc_echo")]), answer("done")], { maxRounds: 2 })
      assert.strictEqual(contentOf(outcome.completion), "done")
    }))

  it.effect("a mixed turn: shared calls run, the turn is saved as pending, the client gets only its calls", () =>
    Effect.gen(function*() {
      const shared = [callOf("s1", "svc_echo", { text: "x" }), callOf("s2", "svc_fails")]
      const client = [callOf("k1", "get_weather", { city: "Rome" }), callOf("k2", "lookup")]
      const mixed = answer("working", [shared[0]!, client[0]!, shared[1]!, client[1]!])
      const caller = testCaller({ orgId: "org_mixed", keyId: "key_mixed" })
      const { histories, outcome, saved } = yield* run([mixed], { caller })
      assert.strictEqual(histories.length, 1)
      assert.strictEqual(outcome.svcPendingId, "svcpend_1")
      assert.deepStrictEqual(outcome.completion.choices, [{
        index: 0,
        message: { role: "assistant", content: "working", tool_calls: client },
        finish_reason: "tool_calls"
      }])
      assert.deepStrictEqual(saved, [{
        caller,
        state: {
          clientToolCallIds: ["k1", "k2"],
          priorTurns: [],
          sharedToolCalls: shared,
          sharedResults: [
            { tool_call_id: "s1", content: "{\"echo\":\"x\"}" },
            { tool_call_id: "s2", content: "{\"error\":\"nope\"}" }
          ],
          injectedToolIds: ["svc_echo", "svc_fails"],
          turn: { content: "working", callOrder: ["s1", "k1", "s2", "k2"] }
        }
      }])
      assert.deepStrictEqual(outcome.toolRuns, [
        { id: "svc_echo", outcome: "ok", round: 1 },
        { id: "svc_fails", outcome: "error", round: 1 }
      ])
      assert.deepStrictEqual(outcome.completion.usage, tokens(10, 5))
    }))

  it.effect("a mixed turn after a shared round: usage of both rounds, runs of both rounds", () =>
    Effect.gen(function*() {
      const { outcome, saved } = yield* run([
        answer(null, [callOf("s1", "svc_echo")]),
        answer(null, [callOf("s2", "svc_echo"), callOf("k1", "get_weather")])
      ])
      assert.strictEqual(outcome.rounds, 2)
      assert.deepStrictEqual(outcome.completion.usage, tokens(20, 10))
      assert.deepStrictEqual(outcome.toolRuns.map((entry) => entry.round), [1, 2])
      assert.deepStrictEqual(saved[0]?.state.sharedToolCalls.map((call) => call.id), ["s2"])
    }))

  // The cap bounds model calls; a mixed turn needs none after it (the client continues), so the last
  // allowed round may still hand the client its calls instead of failing the whole request.
  it.effect("a mixed turn on the last allowed round still returns the client's calls", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        run([answer(null, [callOf("s1", "svc_echo"), callOf("k1", "get_weather")])], { maxRounds: 1 })
      )
      assert.strictEqual(exit._tag, "Success", "a mixed turn at the cap failed the request")
    }))

  it.effect("several choices (n > 1) are not looped", () =>
    Effect.gen(function*() {
      const first = answer(null, [callOf("s1", "svc_echo")])
      const two: ModelAnswer = {
        ...first,
        completion: {
          ...first.completion,
          choices: [...first.completion.choices, { ...first.completion.choices[0]!, index: 1 }]
        }
      }
      const { histories, outcome } = yield* run([two])
      assert.strictEqual(histories.length, 1)
      assert.deepStrictEqual(outcome.completion.choices, two.completion.choices)
      assert.deepStrictEqual(outcome.toolRuns, [])
    }))

  it.effect("a provider error in a later round fails the loop with that error", () =>
    Effect.gen(function*() {
      const pending = recordingPending()
      let calls = 0
      const error = yield* Effect.flip(completeWithTools(loopSettings(tools, pending.service), question, () =>
        ++calls === 1
          ? Effect.succeed(answer(null, [callOf("s1", "svc_echo")]))
          : Effect.fail(upstreamFailure("openai", 503))))
      assert.strictEqual(error._tag, "ProviderError")
      assert.strictEqual(calls, 2)
    }))
})
