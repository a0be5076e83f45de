/**
 * The client-facing wire shapes: `renderCompletion`, and `renderChunks` (role on the first delta of
 * each choice, usage held back and sent once at the end only when asked, empty-choice chunks dropped,
 * `onUsage` told what the upstream reported).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { renderCompletion, renderFrames, type ResponseIdentity } from "../../../src/dialects/openai/ChatResponse.ts"
import type { ChunkChoice, Completion, CompletionChunk, Usage } from "../../../src/kernel/Canonical.ts"
import { fromChunkPull, renderChunks, streamPull } from "../../utils/PullStreams.ts"

const identity: ResponseIdentity = { id: "chatcmpl-test", created: 1_700_000_000, model: "team/fast" }

const usage = (prompt: number, completion: number): Usage => ({
  promptTokens: prompt,
  completionTokens: completion,
  totalTokens: prompt + completion,
  cachedTokens: 1,
  reasoningTokens: 2
})

const wireUsage = (u: Usage) => ({
  prompt_tokens: u.promptTokens,
  completion_tokens: u.completionTokens,
  total_tokens: u.totalTokens,
  input_tokens_details: { cached_tokens: u.cachedTokens },
  output_tokens_details: { reasoning_tokens: u.reasoningTokens },
  prompt_tokens_details: { cached_tokens: u.cachedTokens },
  completion_tokens_details: { reasoning_tokens: u.reasoningTokens }
})

const zeroUsage = wireUsage({
  promptTokens: 0,
  completionTokens: 0,
  totalTokens: 0,
  cachedTokens: 0,
  reasoningTokens: 0
})

const choice = (index: number, delta: ChunkChoice["delta"], finish_reason: string | null = null): ChunkChoice => ({
  index,
  delta,
  finish_reason
})

const chunk = (
  choices: ReadonlyArray<ChunkChoice>,
  u?: Usage,
  extra: Record<string, unknown> = {}
): CompletionChunk => ({ model: "llama-3.1-8b-instant", choices, usage: u, extra })

const render = (
  chunks: ReadonlyArray<CompletionChunk>,
  includeUsage: boolean,
  onUsage?: (u: Usage) => void
) => Stream.runCollect(renderChunks(identity, includeUsage, Stream.fromIterable(chunks), onUsage))

const envelope = { id: identity.id, object: "chat.completion.chunk", created: identity.created, model: identity.model }

describe("renderCompletion", () => {
  it("wraps the completion in the client's identity, with usage on the wire and extras kept", () => {
    const completion: Completion = {
      model: "gpt-4o-2024-08-06",
      choices: [{
        index: 0,
        message: { role: "assistant", content: "hello", refusal: null },
        finish_reason: "stop",
        logprobs: null
      }],
      usage: usage(10, 5),
      extra: { system_fingerprint: "fp_1", service_tier: "default" }
    }
    assert.deepStrictEqual<unknown>(renderCompletion(identity, completion), {
      id: "chatcmpl-test",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "team/fast",
      choices: completion.choices,
      usage: wireUsage(usage(10, 5)),
      system_fingerprint: "fp_1",
      service_tier: "default"
    })
  })
})

describe("renderChunks", () => {
  it.effect("adds the role to the first delta of each choice index, once", () =>
    Effect.gen(function*() {
      const out = yield* render([
        chunk([choice(0, { content: "a" })]),
        chunk([choice(0, { content: "b" }), choice(1, { content: "x" })]),
        chunk([choice(1, { content: "y" }), choice(0, { content: "c" }, "stop")]),
        chunk([choice(1, {}, "stop")])
      ], false)
      assert.deepStrictEqual(out, [
        { ...envelope, choices: [choice(0, { role: "assistant", content: "a" })] },
        { ...envelope, choices: [choice(0, { content: "b" }), choice(1, { role: "assistant", content: "x" })] },
        { ...envelope, choices: [choice(1, { content: "y" }), choice(0, { content: "c" }, "stop")] },
        { ...envelope, choices: [choice(1, {}, "stop")] }
      ])
    }))

  it.effect("keeps a role the upstream sent, without adding another", () =>
    Effect.gen(function*() {
      const out = yield* render([
        chunk([choice(0, { role: "assistant", content: "" })]),
        chunk([choice(0, { content: "hi" })])
      ], false)
      assert.deepStrictEqual(out, [
        { ...envelope, choices: [choice(0, { role: "assistant", content: "" })] },
        { ...envelope, choices: [choice(0, { content: "hi" })] }
      ])
    }))

  it.effect("keeps tool-call deltas and top-level extras", () =>
    Effect.gen(function*() {
      const toolCall = {
        index: 0,
        id: "call_1",
        type: "function" as const,
        function: { name: "f", arguments: "{\"a\"" }
      }
      const out = yield* render([
        chunk([choice(0, { tool_calls: [toolCall] })], undefined, { system_fingerprint: "fp" })
      ], false)
      assert.deepStrictEqual(out, [
        { ...envelope, system_fingerprint: "fp", choices: [choice(0, { role: "assistant", tool_calls: [toolCall] })] }
      ])
    }))

  it.effect("without includeUsage: no usage anywhere, and empty-choice chunks dropped", () =>
    Effect.gen(function*() {
      const out = yield* render([
        chunk([choice(0, { content: "a" })], usage(3, 1)),
        chunk([]),
        chunk([choice(0, {}, "stop")]),
        chunk([], usage(3, 2))
      ], false)
      assert.strictEqual(out.length, 2)
      for (const piece of out) assert.notProperty(piece, "usage")
    }))

  it.effect("with includeUsage: usage stripped from every chunk and sent once at the end, the last reported", () =>
    Effect.gen(function*() {
      const out = yield* render([
        chunk([choice(0, { content: "a" })], usage(3, 1)),
        chunk([choice(0, {}, "stop")], usage(3, 2)),
        chunk([], usage(3, 4))
      ], true)
      assert.strictEqual(out.length, 3)
      for (const piece of out.slice(0, -1)) assert.notProperty(piece, "usage")
      assert.deepStrictEqual(out[2], { ...envelope, choices: [], usage: wireUsage(usage(3, 4)) })
    }))

  it.effect("with includeUsage and no usage from the upstream: zeros", () =>
    Effect.gen(function*() {
      const out = yield* render([chunk([choice(0, { content: "a" })]), chunk([choice(0, {}, "stop")])], true)
      assert.deepStrictEqual(out.at(-1), { ...envelope, choices: [], usage: zeroUsage })
      assert.strictEqual(out.length, 3)
    }))

  it.effect("with includeUsage and an empty stream: just the usage chunk", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* render([], true), [{ ...envelope, choices: [], usage: zeroUsage }])
      assert.deepStrictEqual(yield* render([], false), [])
    }))

  it.effect("onUsage sees each usage the upstream reports, with or without includeUsage", () =>
    Effect.gen(function*() {
      for (const includeUsage of [true, false]) {
        const seen: Array<Usage> = []
        yield* render(
          [
            chunk([choice(0, { content: "a" })]),
            chunk([choice(0, {}, "stop")], usage(3, 2)),
            chunk([], usage(3, 4))
          ],
          includeUsage,
          (u) => seen.push(u)
        )
        assert.deepStrictEqual(seen.at(-1), usage(3, 4))
        assert.deepStrictEqual(seen, [usage(3, 2), usage(3, 4)])
      }
    }))

  it.effect("the usage chunk follows only a stream that ended well", () =>
    Effect.gen(function*() {
      const failing = Stream.concat(Stream.make(chunk([choice(0, { content: "a" })])), Stream.fail("boom" as const))
      const seen: Array<object> = []
      const error = yield* Effect.flip(
        Stream.runForEach(renderChunks(identity, true, failing), (piece) => Effect.sync(() => seen.push(piece)))
      )
      assert.strictEqual(error, "boom")
      assert.strictEqual(seen.length, 1)
      assert.notProperty(seen[0], "usage")
    }))

  it.effect("a rendered stream can be run twice with the same result (state is per run)", () =>
    Effect.gen(function*() {
      const stream = renderChunks(identity, true, Stream.make(chunk([choice(0, { content: "a" })], usage(1, 1))))
      const first = yield* Stream.runCollect(stream)
      const second = yield* Stream.runCollect(stream)
      assert.deepStrictEqual(second, first)
      assert.deepStrictEqual(first[0], { ...envelope, choices: [choice(0, { role: "assistant", content: "a" })] })
    }))

  it.effect("a trailer goes on the usage chunk, or on a choices: [] chunk of its own without usage", () =>
    Effect.gen(function*() {
      const chunks = Stream.make(chunk([choice(0, { content: "a" })]))
      const trailer = () => ({ svc_pending_id: "pend_1" })
      const withUsage = yield* Stream.runCollect(renderChunks(identity, true, chunks, undefined, trailer))
      assert.deepStrictEqual(withUsage.at(-1), { ...envelope, choices: [], usage: zeroUsage, svc_pending_id: "pend_1" })
      assert.strictEqual(withUsage.length, 2)
      const withoutUsage = yield* Stream.runCollect(renderChunks(identity, false, chunks, undefined, trailer))
      assert.deepStrictEqual(withoutUsage.at(-1), { ...envelope, choices: [], svc_pending_id: "pend_1" })
      assert.strictEqual(withoutUsage.length, 2)
    }))
})

describe("renderFrames", () => {
  /** Every frame of a stream, and what serialising `renderPull`'s objects gives for the same chunks. */
  const bothWays = (chunks: ReadonlyArray<CompletionChunk>, id = identity) =>
    Effect.gen(function*() {
      const frames = yield* Effect.scoped(Effect.flatMap(Effect.scope, (scope) =>
        Effect.flatMap(streamPull(Stream.fromIterable(chunks))(scope), (pull) =>
          Stream.runCollect(
            fromChunkPull(
              renderFrames(pull, { identity: id, includeUsage: true, trailer: () => ({ svc_pending_id: "p" }) })
            )
          ))))
      const objects = yield* Stream.runCollect(
        renderChunks(id, true, Stream.fromIterable(chunks), undefined, () => ({ svc_pending_id: "p" }))
      )
      return {
        frames: [...frames],
        expected: [
          ...objects.map((o) =>
            `data: ${JSON.stringify(o)}\n\n`
          ),
          "data: [DONE]\n\n"
        ]
      }
    })

  it.effect("the text of a plain delta is written around its envelope: the same bytes as serialising it, for any text", () =>
    Effect.gen(function*() {
      const texts = [
        "plain",
        "",
        "quote \" and \\ backslash",
        "line\nbreak\ttab\r",
        "é 中文 🎉",
        "\u2028\u2029",
        "\u0000\u001f",
        "</script>",
        "{\"json\":1}"
      ]
      const chunks = [
        chunk([choice(0, { role: "assistant", content: "" })]),
        ...texts.map((content) => chunk([choice(0, { content })])),
        chunk([choice(0, {}, "stop")])
      ]
      const odd = { id: "chatcmpl-\"quoted\"", created: 1, model: "team/\u00e9\n" }
      for (const id of [identity, odd]) {
        const { expected, frames } = yield* bothWays(chunks, id)
        assert.deepStrictEqual(frames, expected)
      }
    }))

  it.effect("chunks that are not plain take the general path: extra fields, other keys, finishes, several choices", () =>
    Effect.gen(function*() {
      const { expected, frames } = yield* bothWays([
        chunk([choice(0, { content: "first" })]),
        chunk([choice(0, { content: "x", refusal: null })]),
        { ...chunk([choice(0, { content: "y" })]), extra: { system_fingerprint: "fp" } },
        chunk([{ ...choice(0, { content: "z" }), logprobs: null }]),
        chunk([choice(0, { content: "a" }), choice(1, { content: "b" })]),
        chunk([choice(0, { content: "end" }, "stop")])
      ])
      assert.deepStrictEqual(frames, expected)
    }))
})
