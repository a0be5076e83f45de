/**
 * The Responses adapters against a fake OpenAI server on 127.0.0.1 (`test/utils/FakeUpstream.ts`, events
 * named as the API names them), through the undici transport the app runs: `openai-responses` (every call
 * to `/responses`: whole and streamed answers, the headers and body the server receives, a Codex request
 * as it came, a mid-stream `error` or `response.failed`, a body cut before `response.completed`, refusals,
 * JSON to a streaming request, a consumer that stops early), and `openai`, OpenAI itself (a Responses
 * client's call to `/responses`, every other to `/chat/completions`).
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Stream } from "effect"
import type { CompletionChunk } from "../../../src/kernel/Canonical.ts"
import { takesNative } from "../../../src/providers/Provider.ts"
import type { ProviderError } from "../../../src/providers/ProviderError.ts"
import { make, makeOpenAi } from "../../../src/providers/responses/Responses.ts"
import { UpstreamTransport } from "../../../src/providers/UpstreamTransport.ts"
import { completion, type FakeUpstream, reply, startFakeUpstream, textStream } from "../../utils/FakeUpstream.ts"
import { providerStream } from "../../utils/PullStreams.ts"
import { plain, reasonOf } from "../OpenAiFixtures.ts"
import {
  call,
  codexBody,
  errorEvent,
  failedEvent,
  functionCallEvents,
  nativeCall,
  optionsOf,
  reasoningEvents,
  reasoningItem,
  textEvents,
  textResponse
} from "./ResponsesFixtures.ts"

/** The transport the app runs, with a connect timeout no test reaches. */
const undici = UpstreamTransport.layerUndici({ connectTimeout: Duration.seconds(10) })

/** A fake upstream for the test's scope. */
const fakeOpenAi = Effect.acquireRelease(
  Effect.promise(() => startFakeUpstream()),
  (upstream) => Effect.promise(() => upstream.close())
)

const responsesFor = (upstream: FakeUpstream, baseUrl = `${upstream.url}/v1`) => make(optionsOf({ baseUrl }))

const textOf = (chunks: ReadonlyArray<CompletionChunk>) => chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")

const collectUntilFailure = (stream: Stream.Stream<CompletionChunk, ProviderError>) =>
  Effect.gen(function*() {
    const received: Array<CompletionChunk> = []
    const error = yield* Effect.flip(Stream.runForEach(stream, (c) => Effect.sync(() => received.push(c))))
    return { received, error }
  })

describe("openai-responses against a fake OpenAI server", () => {
  it.live("whole: the answer, and the request as the server received it", () =>
    Effect.gen(function*() {
      const upstream = yield* fakeOpenAi
      upstream.handle(() => reply.json(textResponse))
      for (const baseUrl of [`${upstream.url}/v1`, `${upstream.url}/v1/`]) {
        const provider = yield* responsesFor(upstream, baseUrl)
        const answer = yield* provider.complete(call({
          messages: [{ role: "system", content: "Be nice." }, { role: "user", content: "Tell me a story" }],
          maxTokens: 200,
          passthrough: { temperature: 0.5, seed: 3 }
        }))
        assert.strictEqual(answer.choices[0]?.message.content, textResponse.output[0]!.content[0]!.text)
        assert.strictEqual(answer.choices[0]?.finish_reason, "stop")
        assert.deepStrictEqual(answer.usage, {
          promptTokens: 36,
          completionTokens: 87,
          totalTokens: 123,
          cachedTokens: 0,
          reasoningTokens: 0
        })

        const sent = upstream.last()
        assert.strictEqual(sent.method, "POST")
        assert.strictEqual(sent.path, "/v1/responses")
        expect(sent.headers).toMatchObject({
          authorization: "Bearer sk-openai-test",
          "content-type": "application/json",
          "x-request-id": "req-42",
          "x-title": "svc-gateway"
        })
        assert.deepStrictEqual(sent.body, {
          model: "gpt-5",
          input: [
            { type: "message", role: "system", content: [{ type: "input_text", text: "Be nice." }] },
            { type: "message", role: "user", content: [{ type: "input_text", text: "Tell me a story" }] }
          ],
          store: false,
          stream: false,
          temperature: 0.5,
          max_output_tokens: 200
        })
        assert.deepStrictEqual(provider.dropped?.(call({ passthrough: { temperature: 0.5, seed: 3 } })), ["seed"])
      }
    }).pipe(Effect.provide(undici)))

  it.live("streamed: the documented text stream, read to response.completed and not aborted", () =>
    Effect.gen(function*() {
      const upstream = yield* fakeOpenAi
      upstream.handle(() => reply.sse(textEvents(), { named: true, end: "end" }))
      const provider = yield* responsesFor(upstream)
      const chunks = yield* Stream.runCollect(providerStream(provider, call()))
      assert.strictEqual(textOf(chunks), "Hi there! How can I assist you today?")
      assert.strictEqual(chunks.at(-1)?.choices[0]?.finish_reason, "stop")
      assert.deepStrictEqual(chunks.at(-1)?.usage, {
        promptTokens: 37,
        completionTokens: 11,
        totalTokens: 48,
        cachedTokens: 0,
        reasoningTokens: 0
      })
      assert.strictEqual(upstream.last().body["stream"], true)
      assert.strictEqual(upstream.last().body["store"], false)
      assert.isFalse(upstream.last().closedByClient())
    }).pipe(Effect.provide(undici)))

  it.live("streamed: a function call and reasoning with its encrypted content", () =>
    Effect.gen(function*() {
      const upstream = yield* fakeOpenAi
      const provider = yield* responsesFor(upstream)
      upstream.handle(() => reply.sse(functionCallEvents(), { named: true, end: "end" }))
      const calls = (yield* Stream.runCollect(providerStream(provider, call()))).flatMap((c) =>
        c.choices[0]?.delta.tool_calls ?? []
      )
      assert.deepStrictEqual(calls[0], {
        index: 0,
        id: "call_1234xyz",
        type: "function",
        function: { name: "get_weather", arguments: "" }
      })
      assert.deepStrictEqual(JSON.parse(calls.map((c) => c.function?.arguments ?? "").join("")), {
        location: "Paris, France"
      })

      upstream.handle(() => reply.sse(reasoningEvents(), { named: true, end: "end" }))
      const chunks = yield* Stream.runCollect(
        providerStream(provider, call({ passthrough: { reasoning_effort: "medium" } }))
      )
      const signature = chunks.flatMap((
        c
      ) => (c.choices[0]?.delta["reasoning_signature"] === undefined
        ? []
        : [c.choices[0].delta["reasoning_signature"]])
      )
      assert.deepStrictEqual(signature, [reasoningItem.encrypted_content])
      assert.strictEqual(textOf(chunks), "The capital of France is Paris.")
      expect(upstream.last().body).toMatchObject({
        reasoning: { effort: "medium", summary: "auto" },
        include: ["reasoning.encrypted_content"]
      })
    }).pipe(Effect.provide(undici)))

  it.live("a Codex request reaches the server as it came but for the model, streamed or whole", () =>
    Effect.gen(function*() {
      const upstream = yield* fakeOpenAi
      const provider = yield* responsesFor(upstream)
      upstream.handle(() => reply.sse(textEvents(), { named: true, end: "end" }))
      yield* Stream.runDrain(providerStream(provider, nativeCall(codexBody, { modelId: "gpt-5-codex" })))
      assert.deepStrictEqual(upstream.last().body, { ...codexBody, model: "gpt-5-codex" })
      upstream.handle(() => reply.json(textResponse))
      yield* provider.complete(nativeCall(codexBody, { modelId: "gpt-5-codex" }))
      assert.deepStrictEqual(upstream.last().body, { ...codexBody, model: "gpt-5-codex", stream: false })
      assert.deepStrictEqual(provider.dropped?.(nativeCall(codexBody)), [])
    }).pipe(Effect.provide(undici)))

  it.live("a mid-stream error event fails the stream after the text before it, retryable by its code", () =>
    Effect.gen(function*() {
      const upstream = yield* fakeOpenAi
      const provider = yield* responsesFor(upstream)
      const opening = textEvents().slice(0, 6)
      upstream.handle(() =>
        reply.sse([...opening, errorEvent("server_is_overloaded", "The server is overloaded.")], {
          named: true,
          end: "hang"
        })
      )
      const overloaded = yield* collectUntilFailure(providerStream(provider, call()))
      assert.strictEqual(textOf(overloaded.received), "Hi there")
      assert.deepStrictEqual(plain(reasonOf(overloaded.error)), {
        _tag: "UpstreamStatus",
        status: 503,
        code: "server_is_overloaded",
        message: "The server is overloaded."
      })
      assert.isTrue(overloaded.error.retryable)
      // the body the server kept open is aborted
      assert.isTrue(yield* Effect.promise(() => upstream.last().waitForClientClose(2000)))

      upstream.handle(() =>
        reply.sse([...opening, failedEvent("invalid_prompt", "Invalid prompt: flagged.")], { named: true, end: "end" })
      )
      const refused = yield* collectUntilFailure(providerStream(provider, call()))
      assert.strictEqual(textOf(refused.received), "Hi there")
      expect(reasonOf(refused.error)).toMatchObject({
        status: 400,
        code: "invalid_prompt",
        message: "Invalid prompt: flagged."
      })
      assert.isFalse(refused.error.retryable)
    }).pipe(Effect.provide(undici)))

  it.live("a body cut before response.completed: ended, or the connection dropped", () =>
    Effect.gen(function*() {
      const upstream = yield* fakeOpenAi
      const provider = yield* responsesFor(upstream)
      for (const end of ["end", "destroy"] as const) {
        upstream.handle(() => reply.sse(textEvents().slice(0, -1), { named: true, end }))
        const { error, received } = yield* collectUntilFailure(providerStream(provider, call()))
        assert.strictEqual(textOf(received), "Hi there! How can I assist you today?", end)
        const reason = reasonOf(error)
        assert.strictEqual(reason._tag, "UpstreamUnreachable", end)
        if (end === "end") assert.strictEqual(reason.message, "upstream stream ended before response.completed")
        assert.isTrue(error.retryable)
      }
    }).pipe(Effect.provide(undici)))

  it.live("refusals: 429, 5xx and 401 (the gateway's own key) fail over, 400 does not; type, code and message as the server wrote them", () =>
    Effect.gen(function*() {
      const upstream = yield* fakeOpenAi
      const provider = yield* responsesFor(upstream)
      const cases = [
        [429, "requests", "rate_limit_exceeded", "Rate limit reached for gpt-5.", true],
        [500, "server_error", null, "The server had an error while processing your request.", true],
        [
          400,
          "invalid_request_error",
          "unsupported_parameter",
          "Unsupported parameter: 'temperature' is not supported with this model.",
          false
        ],
        [401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.", true]
      ] as const
      for (const [status, type, code, message, retryable] of cases) {
        upstream.handle(() => reply.error(status, message, { type, code }))
        for (const attempt of [provider.complete(call()), Stream.runDrain(providerStream(provider, call()))]) {
          const error = yield* Effect.flip(attempt)
          assert.deepStrictEqual(plain(reasonOf(error)), {
            _tag: "UpstreamStatus",
            status,
            type,
            message,
            code,
            param: null
          })
          assert.strictEqual(error.retryable, retryable)
        }
      }
    }).pipe(Effect.provide(undici)))

  it.live("JSON to a streaming request: an error in a 200 is that error; a whole response is a bad response", () =>
    Effect.gen(function*() {
      const upstream = yield* fakeOpenAi
      const provider = yield* responsesFor(upstream)
      upstream.handle(() =>
        reply.json({ error: { message: "Rate limit reached.", type: "requests", code: "rate_limit_exceeded" } })
      )
      const limited = yield* Effect.flip(Stream.runDrain(providerStream(provider, call())))
      expect(reasonOf(limited)).toMatchObject({ _tag: "UpstreamStatus", status: 429, message: "Rate limit reached." })
      upstream.handle(() => reply.json(textResponse))
      const whole = yield* Effect.flip(Stream.runDrain(providerStream(provider, call())))
      expect(reasonOf(whole)).toMatchObject({
        _tag: "UpstreamBadResponse",
        message: "upstream answered a streaming request with JSON, not SSE"
      })
    }).pipe(Effect.provide(undici)))

  it.live("a consumer that stops early aborts the upstream request", () =>
    Effect.gen(function*() {
      const upstream = yield* fakeOpenAi
      upstream.handle(() => reply.sse(textEvents().slice(0, 6), { named: true, end: "hang" }))
      const provider = yield* responsesFor(upstream)
      const chunks = yield* Stream.runCollect(Stream.take(providerStream(provider, call()), 1))
      assert.deepStrictEqual(chunks[0]?.choices[0]?.delta, { content: "Hi" })
      assert.isTrue(yield* Effect.promise(() => upstream.last().waitForClientClose(2000)))
    }).pipe(Effect.provide(undici)))
})

describe("openai, OpenAI itself, against a fake OpenAI server", () => {
  it.live("a Responses client's call goes to /responses as it came; every other call to /chat/completions", () =>
    Effect.gen(function*() {
      const upstream = yield* fakeOpenAi
      upstream.handle((request) =>
        request.path.endsWith("/responses")
          ? request.body["stream"] === true
            ? reply.sse(textEvents(), { named: true, end: "end" })
            : reply.json(textResponse)
          : request.body["stream"] === true
          ? reply.sse(textStream(["chat ", "answer"]))
          : reply.json(completion({ content: "chat answer" }))
      )
      const provider = yield* makeOpenAi(optionsOf({ baseUrl: `${upstream.url}/v1` }))
      assert.strictEqual(provider.adapter, "openai")
      assert.isTrue(takesNative(provider, "openai-responses"))
      // @ts-expect-error a misspelt format is a type error, not a silent turn away from pass-through
      assert.isFalse(takesNative(provider, "openai-response"))
      assert.isFalse(takesNative(provider, "anthropic"))

      // chat completions, whole and streamed, exactly as openai-compatible sends them
      const chat = call({ passthrough: { seed: 3 } })
      assert.strictEqual((yield* provider.complete(chat)).choices[0]?.message.content, "chat answer")
      assert.strictEqual(upstream.last().path, "/v1/chat/completions")
      assert.deepStrictEqual(upstream.last().body, {
        seed: 3,
        model: "gpt-5",
        messages: [{ role: "user", content: "Hello" }],
        stream: false
      })
      assert.strictEqual(textOf(yield* Stream.runCollect(providerStream(provider, chat))), "chat answer")
      assert.strictEqual(upstream.last().path, "/v1/chat/completions")
      expect(upstream.last().body).toMatchObject({ stream: true, stream_options: { include_usage: true } })
      // chat completions takes `seed`: nothing dropped
      assert.deepStrictEqual(provider.dropped?.(chat), [])

      // an Anthropic client's call is a chat call too (its native request is not this format)
      const anthropic = call({
        native: {
          request: { format: "anthropic", body: { model: "x", max_tokens: 5, messages: [] }, headers: {} },
          clientTurns: 1
        }
      })
      yield* provider.complete(anthropic)
      assert.strictEqual(upstream.last().path, "/v1/chat/completions")

      // a Responses client's call, whole and streamed, to /responses as it came
      yield* provider.complete(nativeCall(codexBody, { modelId: "gpt-5-codex" }))
      assert.strictEqual(upstream.last().path, "/v1/responses")
      assert.deepStrictEqual(upstream.last().body, { ...codexBody, model: "gpt-5-codex", stream: false })
      const streamed = yield* Stream.runCollect(
        providerStream(provider, nativeCall(codexBody, { modelId: "gpt-5-codex" }))
      )
      assert.strictEqual(textOf(streamed), "Hi there! How can I assist you today?")
      assert.strictEqual(upstream.last().path, "/v1/responses")
      assert.deepStrictEqual(upstream.last().body, { ...codexBody, model: "gpt-5-codex" })
      assert.strictEqual(upstream.last().headers["authorization"], "Bearer sk-openai-test")
    }).pipe(Effect.provide(undici)))

  it.live("its models are OpenAI's own list", () =>
    Effect.gen(function*() {
      const upstream = yield* fakeOpenAi
      upstream.handle(() =>
        reply.json({ object: "list", data: [{ id: "gpt-5", object: "model" }, { id: "o3-pro", object: "model" }] })
      )
      const provider = yield* makeOpenAi(optionsOf({ baseUrl: `${upstream.url}/v1` }))
      assert.deepStrictEqual(yield* provider.listModels!, ["gpt-5", "o3-pro"])
      assert.strictEqual(upstream.last().method, "GET")
      assert.strictEqual(upstream.last().path, "/v1/models")
    }).pipe(Effect.provide(undici)))
})
