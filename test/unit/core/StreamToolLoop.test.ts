/**
 * The shared-tool loop inside one streamed response, over scripted rounds of chunks (no HTTP): text of
 * every round goes out in order, shared tool-call deltas never do, client tool-call deltas go out
 * re-indexed from 0, a shared-only round's finish is held back, the role is sent once, usage comes once
 * summed on a last `choices: []` chunk; a mixed turn is saved as pending; the round cap fails the stream.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import type { LoopSettings } from "../../../src/core/ToolLoop.ts"
import { type ChatMessage, type CompletionChunk, type ToolCallDelta } from "../../../src/kernel/Canonical.ts"
import { streamWithTools } from "../../utils/PullStreams.ts"
import {
  echoTool,
  failingTool,
  finishDelta,
  loopSettings,
  recordingPending,
  textDelta,
  tokens,
  toolDelta,
  usageDelta
} from "../../utils/ToolFixtures.ts"

const question: ReadonlyArray<ChatMessage> = [{ role: "user", content: "hi" }]
const tools = [echoTool(), failingTool("svc_fails", "nope")]

/**
 * Runs the loop over scripted rounds (the first given as the opened stream, the rest through
 * `openRound`) to its end or failure: what the client saw, the error, and what the loop recorded.
 */
const runRounds = (rounds: ReadonlyArray<ReadonlyArray<CompletionChunk>>, overrides: Partial<LoopSettings> = {}) =>
  Effect.gen(function*() {
    const pending = recordingPending()
    const histories: Array<ReadonlyArray<ChatMessage>> = []
    const openRound = (history: ReadonlyArray<ChatMessage>) => {
      histories.push(history)
      const next = rounds[histories.length]
      return next === undefined ? Stream.die(new Error("more rounds opened than scripted")) : Stream.fromIterable(next)
    }
    const { chunks, progress } = streamWithTools(
      loopSettings(tools, pending.service, overrides),
      question,
      Stream.fromIterable(rounds[0] ?? []),
      openRound
    )
    const seen: Array<CompletionChunk> = []
    const result = yield* Effect.result(Stream.runForEach(chunks, (chunk) => Effect.sync(() => seen.push(chunk))))
    const summary = progress()
    return {
      seen,
      error: result._tag === "Failure" ? result.failure : undefined,
      summary,
      histories,
      saved: pending.saved
    }
  })

const choicesOf = (seen: ReadonlyArray<CompletionChunk>) => seen.flatMap((chunk) => chunk.choices)
const textOf = (seen: ReadonlyArray<CompletionChunk>) =>
  choicesOf(seen).map((choice) => choice.delta.content ?? "").join("")
const finishesOf = (seen: ReadonlyArray<CompletionChunk>) =>
  choicesOf(seen).flatMap((choice) => (typeof choice.finish_reason === "string" ? [choice.finish_reason] : []))
const rolesOf = (seen: ReadonlyArray<CompletionChunk>) =>
  choicesOf(seen).flatMap((choice) => (choice.delta.role === undefined ? [] : [choice.delta.role]))
const toolDeltasOf = (seen: ReadonlyArray<CompletionChunk>): ReadonlyArray<ToolCallDelta> =>
  choicesOf(seen).flatMap((choice) => choice.delta.tool_calls ?? [])

/** A round that says `text` and asks for `svc_echo` with `{"text": echo}`, its arguments in two pieces. */
const sharedRound = (id: string, text: string, echo: string, usage = tokens(10, 5)) => [
  textDelta(text, "assistant"),
  toolDelta(0, { id, name: "svc_echo", args: "" }),
  toolDelta(0, { args: "{\"text\":" }),
  toolDelta(0, { args: JSON.stringify(echo) + "}" }),
  finishDelta("tool_calls"),
  usageDelta(usage)
]

const answerRound = (text: string, usage = tokens(20, 6)) => [
  textDelta(text.slice(0, 3), "assistant"),
  textDelta(text.slice(3)),
  finishDelta("stop"),
  usageDelta(usage)
]

describe("streamWithTools", () => {
  it.effect("one round without tools: text, one finish, then a choices: [] chunk with the usage", () =>
    Effect.gen(function*() {
      const { error, histories, seen, summary } = yield* runRounds([answerRound("It is noon")])
      assert.isUndefined(error)
      assert.strictEqual(textOf(seen), "It is noon")
      assert.deepStrictEqual(finishesOf(seen), ["stop"])
      assert.deepStrictEqual(rolesOf(seen), ["assistant"])
      const last = seen[seen.length - 1]!
      assert.deepStrictEqual(last.choices, [])
      assert.deepStrictEqual(last.usage, tokens(20, 6))
      // usage is held back from every other chunk
      assert.deepStrictEqual(seen.slice(0, -1).map((chunk) => chunk.usage), seen.slice(0, -1).map(() => undefined))
      assert.deepStrictEqual(histories, [])
      assert.deepStrictEqual([summary.rounds, summary.toolRuns, summary.svcPendingId], [1, [], undefined])
      assert.deepStrictEqual(summary.usage, tokens(20, 6))
    }))

  it.effect("a shared round then the answer: both rounds' text in order, no shared deltas, one finish", () =>
    Effect.gen(function*() {
      const { error, histories, seen, summary } = yield* runRounds([
        sharedRound("s1", "Checking. ", "hello"),
        answerRound("It says hello")
      ])
      assert.isUndefined(error)
      assert.strictEqual(textOf(seen), "Checking. It says hello")
      assert.deepStrictEqual(toolDeltasOf(seen), [])
      // the shared round's "tool_calls" finish is not forwarded
      assert.deepStrictEqual(finishesOf(seen), ["stop"])
      // the role goes out in round 1 only, though round 2's upstream sent it again
      assert.deepStrictEqual(rolesOf(seen), ["assistant"])
      assert.deepStrictEqual(histories, [[
        ...question,
        {
          role: "assistant",
          content: "Checking. ",
          tool_calls: [{
            id: "s1",
            type: "function",
            function: { name: "svc_echo", arguments: "{\"text\":\"hello\"}" }
          }]
        },
        { role: "tool", tool_call_id: "s1", content: "{\"echo\":\"hello\"}" }
      ]])
      const last = seen[seen.length - 1]!
      assert.deepStrictEqual(last.choices, [])
      assert.deepStrictEqual(last.usage, tokens(30, 11))
      assert.strictEqual(summary.rounds, 2)
      assert.deepStrictEqual(summary.toolRuns, [{ id: "svc_echo", outcome: "ok", round: 1 }])
      assert.isUndefined(summary.svcPendingId)
    }))

  it.effect("several rounds: each round's text in order, usage summed, runs recorded per round", () =>
    Effect.gen(function*() {
      const { histories, seen, summary } = yield* runRounds([
        sharedRound("s1", "one ", "a"),
        sharedRound("s2", "two ", "b"),
        sharedRound("s3", "three ", "c"),
        answerRound("four")
      ])
      assert.strictEqual(textOf(seen), "one two three four")
      assert.deepStrictEqual(finishesOf(seen), ["stop"])
      assert.deepStrictEqual(rolesOf(seen), ["assistant"])
      assert.deepStrictEqual(histories.map((history) => history.length), [3, 5, 7])
      assert.deepStrictEqual(histories[2]?.[6], { role: "tool", tool_call_id: "s3", content: "{\"echo\":\"c\"}" })
      assert.deepStrictEqual(seen[seen.length - 1]?.usage, tokens(50, 21))
      assert.deepStrictEqual(summary.usage, tokens(50, 21))
      assert.strictEqual(summary.rounds, 4)
      assert.deepStrictEqual(summary.toolRuns.map((entry) => entry.round), [1, 2, 3])
    }))

  it.effect("parallel shared calls in one round: both run, results in the calls' order, no text → null content", () =>
    Effect.gen(function*() {
      const { histories, seen, summary } = yield* runRounds([
        [
          toolDelta(0, { id: "s1", name: "svc_echo", args: "{\"text\":\"x\"}" }),
          toolDelta(1, { id: "s2", name: "svc_fails", args: "{}" }),
          finishDelta("tool_calls")
        ],
        answerRound("done")
      ])
      assert.deepStrictEqual(toolDeltasOf(seen), [])
      assert.deepStrictEqual(histories[0]?.slice(1), [
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "s1", type: "function", function: { name: "svc_echo", arguments: "{\"text\":\"x\"}" } },
            { id: "s2", type: "function", function: { name: "svc_fails", arguments: "{}" } }
          ]
        },
        { role: "tool", tool_call_id: "s1", content: "{\"echo\":\"x\"}" },
        { role: "tool", tool_call_id: "s2", content: "{\"error\":\"nope\"}" }
      ])
      assert.deepStrictEqual(summary.toolRuns, [
        { id: "svc_echo", outcome: "ok", round: 1 },
        { id: "svc_fails", outcome: "error", round: 1 }
      ])
    }))

  it.effect("client tool calls only: their deltas go out as they came, the finish is tool_calls", () =>
    Effect.gen(function*() {
      const { histories, saved, seen, summary } = yield* runRounds([[
        toolDelta(0, { id: "k1", name: "get_weather", args: "{\"city\":" }),
        toolDelta(0, { args: "\"Oslo\"}" }),
        finishDelta("tool_calls"),
        usageDelta(tokens(4, 4))
      ]])
      assert.deepStrictEqual(toolDeltasOf(seen).map((delta) => [delta.index, delta.id, delta.function?.arguments]), [
        [0, "k1", "{\"city\":"],
        [0, undefined, "\"Oslo\"}"]
      ])
      assert.deepStrictEqual(finishesOf(seen), ["tool_calls"])
      assert.deepStrictEqual([histories, saved, summary.svcPendingId, summary.toolRuns], [[], [], undefined, []])
    }))

  it.effect("a mixed round: client deltas re-indexed from 0 as they arrive, shared hidden, pending saved", () =>
    Effect.gen(function*() {
      const { histories, saved, seen, summary } = yield* runRounds([[
        textDelta("On it.", "assistant"),
        toolDelta(0, { id: "s1", name: "svc_echo", args: "{\"text\":" }),
        toolDelta(1, { id: "k1", name: "get_weather", args: "{\"city\":" }),
        toolDelta(0, { args: "\"x\"}" }),
        toolDelta(2, { id: "k2", name: "lookup", args: "" }),
        toolDelta(1, { args: "\"Rome\"}" }),
        toolDelta(2, { args: "{}" }),
        finishDelta("tool_calls"),
        usageDelta(tokens(7, 3))
      ]])
      assert.deepStrictEqual(
        toolDeltasOf(seen).map((delta) => [delta.index, delta.id, delta.function?.name, delta.function?.arguments]),
        [
          [0, "k1", "get_weather", "{\"city\":"],
          [1, "k2", "lookup", ""],
          [0, undefined, undefined, "\"Rome\"}"],
          [1, undefined, undefined, "{}"]
        ]
      )
      assert.strictEqual(textOf(seen), "On it.")
      assert.deepStrictEqual(finishesOf(seen), ["tool_calls"])
      assert.deepStrictEqual(histories, [], "no further round is opened")
      assert.strictEqual(summary.svcPendingId, "svcpend_1")
      assert.deepStrictEqual(saved.map((entry) => entry.state), [{
        clientToolCallIds: ["k1", "k2"],
        priorTurns: [],
        sharedToolCalls: [{
          id: "s1",
          type: "function",
          function: { name: "svc_echo", arguments: "{\"text\":\"x\"}" }
        }],
        sharedResults: [{ tool_call_id: "s1", content: "{\"echo\":\"x\"}" }],
        injectedToolIds: ["svc_echo", "svc_fails"],
        turn: { content: "On it.", callOrder: ["s1", "k1", "k2"] }
      }])
      assert.deepStrictEqual(summary.toolRuns, [{ id: "svc_echo", outcome: "ok", round: 1 }])
      const last = seen[seen.length - 1]!
      assert.deepStrictEqual([last.choices, last.usage], [[], tokens(7, 3)])
    }))

  it.effect("a mixed round after a shared round: pending set, text of both rounds, usage of both", () =>
    Effect.gen(function*() {
      const { seen, summary } = yield* runRounds([
        sharedRound("s1", "first ", "a"),
        [
          textDelta("second", "assistant"),
          toolDelta(0, { id: "k1", name: "get_weather", args: "{}" }),
          toolDelta(1, { id: "s2", name: "svc_echo", args: "{}" }),
          finishDelta("tool_calls"),
          usageDelta(tokens(1, 1))
        ]
      ])
      assert.strictEqual(textOf(seen), "first second")
      assert.deepStrictEqual(toolDeltasOf(seen).map((delta) => [delta.index, delta.id]), [[0, "k1"]])
      assert.strictEqual(summary.svcPendingId, "svcpend_1")
      assert.deepStrictEqual(seen[seen.length - 1]?.usage, tokens(11, 6))
    }))

  it.effect("the round cap fails the stream with ToolLoopError RoundLimitReached, after what was sent", () =>
    Effect.gen(function*() {
      const { error, histories, seen, summary } = yield* runRounds(
        [sharedRound("s1", "one ", "a"), sharedRound("s2", "two ", "b"), answerRound("never")],
        { maxRounds: 2 }
      )
      assert.isDefined(error)
      if (error?._tag !== "ToolLoopError") return assert.fail(`expected ToolLoopError, got ${error?._tag}`)
      assert.strictEqual(error.reason._tag, "RoundLimitReached")
      assert.strictEqual(error.reason.rounds, 2)
      assert.strictEqual(textOf(seen), "one two ")
      assert.deepStrictEqual(finishesOf(seen), [])
      assert.strictEqual(histories.length, 1)
      assert.deepStrictEqual(summary.toolRuns.map((entry) => entry.round), [1])
    }))

  // As in the non-streamed loop: the cap bounds model calls, and a mixed turn needs no further one.
  it.effect("a mixed round on the last allowed round still ends with the client's calls", () =>
    Effect.gen(function*() {
      const { error, summary } = yield* runRounds([[
        toolDelta(0, { id: "s1", name: "svc_echo", args: "{}" }),
        toolDelta(1, { id: "k1", name: "get_weather", args: "{}" }),
        finishDelta("tool_calls")
      ]], { maxRounds: 1 })
      assert.isUndefined(error, "a mixed turn at the cap failed the stream")
      assert.isString(summary.svcPendingId)
    }))

  it.effect("chunks that carry only usage, or an empty delta, are not forwarded", () =>
    Effect.gen(function*() {
      const { seen } = yield* runRounds([[
        textDelta("", "assistant"),
        textDelta("a"),
        textDelta(""),
        usageDelta(tokens(1, 1)),
        finishDelta("stop")
      ]])
      assert.deepStrictEqual(seen.map((chunk) => chunk.choices.length), [1, 1, 1, 0])
      assert.strictEqual(textOf(seen), "a")
    }))
})
