/**
 * The anthropic adapter against a fake Anthropic server on 127.0.0.1 (`test/utils/FakeUpstream.ts`,
 * events framed as the API frames them), through the undici transport the app runs: whole and streamed
 * answers, the headers and body the server receives, a mid-stream `event: error`, a body cut before
 * `message_stop` (ended, or the connection dropped), refusals, and a consumer that stops early.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Stream } from "effect"
import type { CompletionChunk } from "../../../src/kernel/Canonical.ts"
import { make } from "../../../src/providers/anthropic/Anthropic.ts"
import { UpstreamTransport } from "../../../src/providers/UpstreamTransport.ts"
import { anthropicError, anthropicMessage, anthropicUsage } from "../../utils/FakeAnthropic.ts"
import { type FakeUpstream, reply, startFakeUpstream } from "../../utils/FakeUpstream.ts"
import { providerStream } from "../../utils/PullStreams.ts"
import { plain, reasonOf } from "../OpenAiFixtures.ts"
import {
  basicTextEvents,
  call,
  nativeCall,
  optionsOf,
  overloadedEvent,
  thinkingEvents,
  toolUseEvents
} from "./AnthropicFixtures.ts"

/** The transport the app runs, with a connect timeout no test reaches. */
const undici = UpstreamTransport.layerUndici({ connectTimeout: Duration.seconds(10) })

/** A fake upstream for the test's scope. */
const fakeAnthropic = Effect.acquireRelease(
  Effect.promise(() => startFakeUpstream()),
  (upstream) => Effect.promise(() => upstream.close())
)

const providerFor = (upstream: FakeUpstream, baseUrl = upstream.url) => make(optionsOf({ baseUrl }))

const textOf = (chunks: ReadonlyArray<CompletionChunk>) => chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")

describe("Anthropic against a fake Anthropic server", () => {
  it.live("whole: a message, and the request as the server received it", () =>
    Effect.gen(function*() {
      const upstream = yield* fakeAnthropic
      upstream.handle(() =>
        reply.json(anthropicMessage({
          content: [{ type: "thinking", thinking: "Hmm.", signature: "sig_1" }, { type: "text", text: "Hi there" }],
          usage: anthropicUsage(8, 2, 4, 1)
        }))
      )
      for (const baseUrl of [upstream.url, `${upstream.url}/v1`]) {
        const provider = yield* providerFor(upstream, baseUrl)
        const completion = yield* provider.complete(call({
          messages: [{ role: "system", content: "Be nice." }, { role: "user", content: "Hello" }],
          passthrough: { stop: "END", temperature: 0.5 }
        }))
        assert.deepStrictEqual(completion.choices[0], {
          index: 0,
          message: {
            role: "assistant",
            content: "Hi there",
            reasoning_content: "Hmm.",
            thinking_blocks: [{ type: "thinking", thinking: "Hmm.", signature: "sig_1" }]
          },
          finish_reason: "stop"
        })
        assert.deepStrictEqual(completion.usage, {
          promptTokens: 13,
          completionTokens: 2,
          totalTokens: 15,
          cachedTokens: 4,
          reasoningTokens: 0,
          cacheWriteTokens: 1
        })
        assert.strictEqual(completion.model, "claude-fake-1")

        const sent = upstream.last()
        assert.strictEqual(sent.method, "POST")
        assert.strictEqual(sent.path, "/v1/messages")
        expect(sent.headers).toMatchObject({
          "x-api-key": "sk-ant-test",
          "anthropic-version": "2023-06-01",
          "content-type": "application/json",
          "x-request-id": "req-42",
          "x-title": "svc-gateway"
        })
        assert.isUndefined(sent.headers["anthropic-beta"])
        assert.isUndefined(sent.headers["authorization"])
        assert.deepStrictEqual(sent.body, {
          model: "claude-opus-4-1-20250805",
          max_tokens: 4096,
          system: "Be nice.",
          messages: [{ role: "user", content: "Hello" }],
          stop_sequences: ["END"],
          temperature: 0.5,
          stream: false
        })
      }
    }).pipe(Effect.provide(undici)))

  it.live("streamed: the documented tool-use stream, read to its end and not aborted", () =>
    Effect.gen(function*() {
      const upstream = yield* fakeAnthropic
      upstream.handle(() => reply.sse(toolUseEvents, { named: true, end: "end" }))
      const provider = yield* providerFor(upstream)
      const chunks = yield* Stream.runCollect(providerStream(provider, call()))
      assert.strictEqual(textOf(chunks), "Okay, let's check the weather for San Francisco, CA:")
      const args = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []).map((t) => t.function?.arguments ?? "")
        .join("")
      assert.deepStrictEqual(JSON.parse(args), { location: "San Francisco, CA", unit: "fahrenheit" })
      assert.deepStrictEqual(chunks.at(-1)?.native, {
        format: "anthropic",
        stop_reason: "tool_use",
        stop_sequence: null
      })
      assert.strictEqual(chunks.at(-1)?.choices[0]?.finish_reason, "tool_calls")
      assert.strictEqual(upstream.last().body["stream"], true)
      assert.isFalse(upstream.last().closedByClient())
    }).pipe(Effect.provide(undici)))

  it.live("streamed, same format end to end: the client's body and headers reach the server but for the model", () =>
    Effect.gen(function*() {
      const upstream = yield* fakeAnthropic
      upstream.handle(() => reply.sse(thinkingEvents, { named: true, end: "end" }))
      const clientBody = {
        model: "claude-sonnet-4-5",
        max_tokens: 20000,
        stream: true,
        thinking: { type: "enabled", budget_tokens: 16000 },
        messages: [{ role: "user", content: "What is 27 * 453?" }]
      }
      const provider = yield* providerFor(upstream)
      const chunks = yield* Stream.runCollect(providerStream(
        provider,
        nativeCall(clientBody, {
          "anthropic-version": "2023-06-01",
          "anthropic-beta": "interleaved-thinking-2025-05-14,context-1m-2025-08-07"
        })
      ))
      assert.strictEqual(textOf(chunks), "27 * 453 = 12,231")
      const sent = upstream.last()
      assert.deepStrictEqual(sent.body, { ...clientBody, model: "claude-opus-4-1-20250805" })
      assert.strictEqual(sent.headers["anthropic-beta"], "interleaved-thinking-2025-05-14,context-1m-2025-08-07")
      assert.strictEqual(sent.headers["anthropic-version"], "2023-06-01")
    }).pipe(Effect.provide(undici)))

  it.live("a mid-stream event: error fails the stream after the text before it, retryable", () =>
    Effect.gen(function*() {
      const upstream = yield* fakeAnthropic
      upstream.handle(() => reply.sse([...basicTextEvents.slice(0, 4), overloadedEvent], { named: true, end: "hang" }))
      const provider = yield* providerFor(upstream)
      const received: Array<CompletionChunk> = []
      const error = yield* Effect.flip(
        Stream.runForEach(providerStream(provider, call()), (c) => Effect.sync(() => received.push(c)))
      )
      assert.strictEqual(textOf(received), "Hello")
      assert.deepStrictEqual(plain(reasonOf(error)), {
        _tag: "UpstreamStatus",
        status: 529,
        type: "overloaded_error",
        message: "Overloaded"
      })
      assert.isTrue(error.retryable)
      // the body the server kept open is aborted
      assert.isTrue(yield* Effect.promise(() => upstream.last().waitForClientClose(2000)))
    }).pipe(Effect.provide(undici)))

  it.live("a body cut before message_stop: ended, or the connection dropped", () =>
    Effect.gen(function*() {
      const upstream = yield* fakeAnthropic
      const provider = yield* providerFor(upstream)
      for (const end of ["end", "destroy"] as const) {
        upstream.handle(() => reply.sse(basicTextEvents.slice(0, -1), { named: true, end }))
        const received: Array<CompletionChunk> = []
        const error = yield* Effect.flip(
          Stream.runForEach(providerStream(provider, call()), (c) => Effect.sync(() => received.push(c)))
        )
        assert.strictEqual(textOf(received), "Hello!", end)
        const reason = reasonOf(error)
        assert.strictEqual(reason._tag, "UpstreamUnreachable", end)
        if (end === "end") assert.strictEqual(reason.message, "upstream stream ended before message_stop")
        assert.isTrue(error.retryable)
      }
    }).pipe(Effect.provide(undici)))

  it.live("refusals: 529 and 429 fail over, 400 does not; type and message as the server wrote them", () =>
    Effect.gen(function*() {
      const upstream = yield* fakeAnthropic
      const provider = yield* providerFor(upstream)
      const cases = [
        [529, "overloaded_error", "Overloaded", true],
        [429, "rate_limit_error", "rate limited", true],
        [400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum", false]
      ] as const
      for (const [status, type, message, retryable] of cases) {
        upstream.handle(() => anthropicError(status, type, message))
        for (const attempt of [provider.complete(call()), Stream.runDrain(providerStream(provider, call()))]) {
          const error = yield* Effect.flip(attempt)
          assert.deepStrictEqual(plain(reasonOf(error)), { _tag: "UpstreamStatus", status, type, message })
          assert.strictEqual(error.retryable, retryable)
        }
      }
    }).pipe(Effect.provide(undici)))

  it.live("a consumer that stops early aborts the upstream request", () =>
    Effect.gen(function*() {
      const upstream = yield* fakeAnthropic
      upstream.handle(() => reply.sse(basicTextEvents.slice(0, 4), { named: true, end: "hang" }))
      const provider = yield* providerFor(upstream)
      const chunks = yield* Stream.runCollect(Stream.take(providerStream(provider, call()), 1))
      assert.deepStrictEqual(chunks[0]?.choices[0]?.delta, { role: "assistant" })
      assert.isTrue(yield* Effect.promise(() => upstream.last().waitForClientClose(2000)))
    }).pipe(Effect.provide(undici)))
})
