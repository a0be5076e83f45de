/**
 * The anthropic adapter's client with a fake `HttpClient` behind `UpstreamHttpClient`: where requests
 * go, the headers and body sent, whole and streamed answers (SSE cut at every byte boundary), errors
 * before and inside a stream, a JSON answer to a streaming request, a body cut before `message_stop`,
 * and the upstream body ended with the answer's scope.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope, Stream } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import type { HttpClientRequest } from "effect/http"
import type { CompletionChunk } from "../../../src/kernel/Canonical.ts"
import {
  type AnthropicOptions,
  DEFAULT_BASE_URL,
  make,
  messagesUrl
} from "../../../src/providers/anthropic/Anthropic.ts"
import { requestBody } from "../../../src/providers/anthropic/AnthropicRequest.ts"
import type { ProviderCall } from "../../../src/providers/Provider.ts"
import * as UpstreamHttpClient from "../../../src/providers/UpstreamHttpClient.ts"
import { providerStream } from "../../utils/PullStreams.ts"
import { plain, reasonOf } from "../OpenAiFixtures.ts"
import {
  basicTextEvents,
  call,
  errorBody,
  nativeCall,
  optionsOf,
  overloadedEvent,
  sseText,
  textMessage,
  thinkingEvents,
  toolUseEvents
} from "./AnthropicFixtures.ts"

const encoder = new TextEncoder()

/** A fake HttpClient answering every request with `respond`, recording what was sent. */
const fakeClient = (respond: (request: HttpClientRequest.HttpClientRequest) => Response) => {
  const requests: Array<HttpClientRequest.HttpClientRequest> = []
  const client = HttpClient.make((request) =>
    Effect.sync(() => {
      requests.push(request)
      return HttpClientResponse.fromWeb(request, respond(request))
    })
  )
  return { client, requests }
}

const providerWith = (client: HttpClient.HttpClient, overrides: Partial<AnthropicOptions> = {}) =>
  make(optionsOf(overrides)).pipe(
    Effect.provide(UpstreamHttpClient.layer),
    Effect.provideService(HttpClient.HttpClient, client)
  )

const bodyOf = (request: HttpClientRequest.HttpClientRequest): unknown =>
  request.body._tag === "Uint8Array" ? JSON.parse(new TextDecoder().decode(request.body.body)) : undefined

const sseResponse = (body: string | ReadableStream<Uint8Array>) =>
  new Response(body, { headers: { "content-type": "text/event-stream; charset=utf-8" } })

/** A body delivered in pieces of `size` bytes, to cut SSE framing at every possible place. */
const piecewise = (text: string, size: number) => {
  const bytes = encoder.encode(text)
  let offset = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close()
      controller.enqueue(bytes.slice(offset, offset + size))
      offset += size
    }
  })
}

const textOf = (chunks: ReadonlyArray<CompletionChunk>) => chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")

describe("where requests go", () => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    ["https://api.anthropic.com", "https://api.anthropic.com/v1/messages"],
    ["https://api.anthropic.com/", "https://api.anthropic.com/v1/messages"],
    ["https://api.anthropic.com/v1", "https://api.anthropic.com/v1/messages"],
    ["https://api.anthropic.com/v1/", "https://api.anthropic.com/v1/messages"],
    ["http://127.0.0.1:8080/proxy/anthropic", "http://127.0.0.1:8080/proxy/anthropic/v1/messages"]
  ]
  for (const [base, url] of cases) it(base, () => assert.strictEqual(messagesUrl(base), url))

  it.effect("no base URL (or an empty one): api.anthropic.com", () =>
    Effect.gen(function*() {
      assert.strictEqual(DEFAULT_BASE_URL, "https://api.anthropic.com")
      for (const baseUrl of [undefined, ""]) {
        const fake = fakeClient(() => Response.json(textMessage))
        const provider = yield* providerWith(fake.client, { baseUrl })
        yield* provider.complete(call())
        assert.strictEqual(fake.requests[0]?.url, "https://api.anthropic.com/v1/messages")
      }
    }))
})

describe("Anthropic with a fake HttpClient", () => {
  it.effect("complete: posts the mapped body with Anthropic's headers, and decodes the message", () =>
    Effect.gen(function*() {
      const fake = fakeClient(() => Response.json(textMessage))
      const provider = yield* providerWith(fake.client)
      assert.strictEqual(provider.name, "anthropic")
      assert.strictEqual(provider.adapter, "anthropic")
      assert.deepStrictEqual(provider.models, ["claude-opus-4-1-20250805"])

      const completion = yield* provider.complete(call({ maxTokens: 100 }))
      assert.strictEqual(completion.choices[0]?.message.content, "Hi! My name is Claude.")
      assert.strictEqual(completion.usage.promptTokens, 2095)

      const [request] = fake.requests
      if (request === undefined) return assert.fail("no request sent")
      assert.strictEqual(request.method, "POST")
      assert.strictEqual(request.url, "https://api.anthropic.test/v1/messages")
      const headers = request.headers
      assert.strictEqual(headers["x-api-key"], "sk-ant-test")
      assert.strictEqual(headers["anthropic-version"], "2023-06-01")
      assert.isUndefined(headers["anthropic-beta"])
      assert.isUndefined(headers["authorization"])
      assert.strictEqual(headers["content-type"], "application/json")
      assert.strictEqual(headers["x-request-id"], "req-42")
      assert.strictEqual(headers["x-title"], "svc-gateway")
      assert.deepStrictEqual(bodyOf(request), requestBody(call({ maxTokens: 100 }), false))
      assert.deepStrictEqual(bodyOf(request), {
        model: "claude-opus-4-1-20250805",
        max_tokens: 100,
        messages: [{ role: "user", content: "Hello" }],
        stream: false
      })
    }))

  it.effect("the client's version and betas are forwarded; configured ones apply when it sent none", () =>
    Effect.gen(function*() {
      const fake = fakeClient(() => Response.json(textMessage))
      const provider = yield* providerWith(fake.client, {
        headers: { "Anthropic-Version": "2024-01-01", "anthropic-beta": "configured-beta", "X-Api-Key": "not-this-one" }
      })
      yield* provider.complete(nativeCall({ model: "x", max_tokens: 5, messages: [] }, {
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "interleaved-thinking-2025-05-14"
      }))
      yield* provider.complete(call())
      const [native, fromModel] = fake.requests.map((r) => r.headers)
      expect(native).toMatchObject({
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "interleaved-thinking-2025-05-14",
        "x-api-key": "sk-ant-test"
      })
      expect(fromModel).toMatchObject({
        "anthropic-version": "2024-01-01",
        "anthropic-beta": "configured-beta",
        "x-api-key": "sk-ant-test"
      })
    }))

  it.effect("no API key: no x-api-key", () =>
    Effect.gen(function*() {
      const fake = fakeClient(() => Response.json(textMessage))
      const provider = yield* providerWith(fake.client, { apiKey: undefined })
      yield* provider.complete(call())
      assert.isUndefined(fake.requests[0]?.headers["x-api-key"])
    }))

  it.effect("open: asks for a stream, and reads the documented tool-use stream into chunks", () =>
    Effect.gen(function*() {
      const fake = fakeClient(() => sseResponse(sseText(toolUseEvents)))
      const provider = yield* providerWith(fake.client)
      const chunks = yield* Stream.runCollect(providerStream(provider, call()))
      expect(bodyOf(fake.requests[0]!)).toMatchObject({
        model: "claude-opus-4-1-20250805",
        max_tokens: 4096,
        stream: true
      })
      assert.strictEqual(textOf(chunks), "Okay, let's check the weather for San Francisco, CA:")
      const last = chunks.at(-1)
      assert.deepStrictEqual(last?.choices, [{ index: 0, delta: {}, finish_reason: "tool_calls" }])
      assert.deepStrictEqual(last?.usage, {
        promptTokens: 472,
        completionTokens: 89,
        totalTokens: 561,
        cachedTokens: 0,
        reasoningTokens: 0
      })
    }))

  it.effect("open: SSE split at every byte boundary, with CRLF and multi-byte characters, gives the same chunks", () =>
    Effect.gen(function*() {
      const events = [
        basicTextEvents[0]!,
        { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "héllo " } },
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "wörld 🌍" } },
        ...basicTextEvents.slice(5)
      ]
      const text = sseText(events).replaceAll("\n", "\r\n")
      const whole = yield* Stream.runCollect(
        providerStream(yield* providerWith(fakeClient(() => sseResponse(text)).client), call())
      )
      assert.strictEqual(textOf(whole), "héllo wörld 🌍")
      for (const size of [1, 2, 3, 5, 7, 16, 64]) {
        const provider = yield* providerWith(fakeClient(() => sseResponse(piecewise(text, size))).client)
        const chunks = yield* Stream.runCollect(providerStream(provider, call()))
        assert.deepStrictEqual(chunks, whole, `pieces of ${size} bytes`)
      }
    }))

  it.effect("open: thinking and its signature stream as reasoning deltas", () =>
    Effect.gen(function*() {
      const provider = yield* providerWith(fakeClient(() => sseResponse(sseText(thinkingEvents))).client)
      const chunks = yield* Stream.runCollect(providerStream(provider, call()))
      const deltas = chunks.map((c) => c.choices[0]?.delta ?? {})
      assert.isTrue(deltas.some((d) => typeof d["reasoning_signature"] === "string"))
      assert.strictEqual(deltas.map((d) => d["reasoning_content"] ?? "").join("").endsWith("= 12,231"), true)
    }))

  it.effect("open: nothing is read after message_stop", () =>
    Effect.gen(function*() {
      const text = sseText([...basicTextEvents, {
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text: "after stop" }
      }])
      const provider = yield* providerWith(fakeClient(() => sseResponse(text)).client)
      assert.strictEqual(textOf(yield* Stream.runCollect(providerStream(provider, call()))), "Hello!")
    }))

  describe("non-2xx answers become UpstreamStatus with Anthropic's type and message", () => {
    it.effect("a 429's retry-after is kept, in milliseconds, for the failover to honour", () =>
      Effect.gen(function*() {
        const provider = yield* providerWith(
          fakeClient(() =>
            Response.json(errorBody("rate_limit_error", "slow down"), { status: 429, headers: { "retry-after": "7" } })
          ).client
        )
        const error = yield* Effect.flip(provider.complete(call()))
        assert.strictEqual(error.reason._tag === "UpstreamStatus" ? error.reason.retryAfterMs : undefined, 7_000)
      }))

    const cases: ReadonlyArray<readonly [number, string, string, boolean]> = [
      [400, "invalid_request_error", "max_tokens: Field required", false],
      // the gateway's own key refused: another target may not share it
      [401, "authentication_error", "invalid x-api-key", true],
      [429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", true],
      [500, "api_error", "Internal server error", true],
      [529, "overloaded_error", "Overloaded", true]
    ]
    for (const [status, type, message, retryable] of cases) {
      it.effect(`${status} ${type}`, () =>
        Effect.gen(function*() {
          const provider = yield* providerWith(
            fakeClient(() => Response.json(errorBody(type, message), { status })).client
          )
          for (const attempt of [provider.complete(call()), Stream.runDrain(providerStream(provider, call()))]) {
            const error = yield* Effect.flip(attempt)
            assert.strictEqual(error.provider, "anthropic")
            assert.deepStrictEqual(plain(reasonOf(error)), { _tag: "UpstreamStatus", status, type, message })
            assert.strictEqual(error.retryable, retryable)
          }
        }))
    }

    it.effect("a body that is not Anthropic's keeps its status", () =>
      Effect.gen(function*() {
        const provider = yield* providerWith(
          fakeClient(() => new Response("<html>502 Bad Gateway</html>", { status: 502 })).client
        )
        const error = yield* Effect.flip(provider.complete(call()))
        assert.deepStrictEqual(plain(reasonOf(error)), {
          _tag: "UpstreamStatus",
          status: 502,
          message: "<html>502 Bad Gateway</html>"
        })
        assert.isTrue(error.retryable)
      }))
  })

  it.effect("open: an error event after some text fails the stream after that text (529, retryable)", () =>
    Effect.gen(function*() {
      const text = sseText([...basicTextEvents.slice(0, 4), overloadedEvent])
      const provider = yield* providerWith(fakeClient(() => sseResponse(text)).client)
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
    }))

  it.effect("open: a body that ends before message_stop is UpstreamUnreachable", () =>
    Effect.gen(function*() {
      const provider = yield* providerWith(fakeClient(() => sseResponse(sseText(basicTextEvents.slice(0, 7)))).client)
      const error = yield* Effect.flip(Stream.runDrain(providerStream(provider, call())))
      assert.deepStrictEqual(plain(reasonOf(error)), {
        _tag: "UpstreamUnreachable",
        message: "upstream stream ended before message_stop"
      })
      assert.isTrue(error.retryable)
    }))

  it.effect("open: an event that is not JSON is UpstreamBadResponse", () =>
    Effect.gen(function*() {
      const provider = yield* providerWith(
        fakeClient(() => sseResponse(sseText([basicTextEvents[0]!, "{\"type\":"]))).client
      )
      assert.strictEqual(
        reasonOf(yield* Effect.flip(Stream.runDrain(providerStream(provider, call()))))._tag,
        "UpstreamBadResponse"
      )
    }))

  it.effect("open: a JSON answer instead of SSE is reported as what it is", () =>
    Effect.gen(function*() {
      const errorProvider = yield* providerWith(
        fakeClient(() => Response.json(errorBody("overloaded_error", "Overloaded"))).client
      )
      assert.deepStrictEqual(
        plain(reasonOf(yield* Effect.flip(Stream.runDrain(providerStream(errorProvider, call()))))),
        {
          _tag: "UpstreamStatus",
          status: 529,
          type: "overloaded_error",
          message: "Overloaded"
        }
      )
      const messageProvider = yield* providerWith(fakeClient(() => Response.json(textMessage)).client)
      assert.deepStrictEqual(
        plain(reasonOf(yield* Effect.flip(Stream.runDrain(providerStream(messageProvider, call()))))),
        {
          _tag: "UpstreamBadResponse",
          message: "upstream answered a streaming request with JSON, not SSE"
        }
      )
    }))

  it.effect("complete: a 2xx body that is not a message is UpstreamBadResponse", () =>
    Effect.gen(function*() {
      for (const text of ["<html>hi</html>", "{\"type\":\"message\"}"]) {
        const provider = yield* providerWith(fakeClient(() => new Response(text)).client)
        assert.strictEqual(reasonOf(yield* Effect.flip(provider.complete(call())))._tag, "UpstreamBadResponse")
      }
    }))

  it.effect("open: the pull lives in the given scope; closing it ends the upstream body", () =>
    Effect.gen(function*() {
      let cancelled = false
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => controller.enqueue(encoder.encode(sseText(basicTextEvents.slice(0, 4)))),
        cancel: () => {
          cancelled = true
        }
      })
      const provider = yield* providerWith(fakeClient(() => sseResponse(body)).client)
      const scope = yield* Scope.make()
      const pull = yield* provider.open(call(), scope)
      const first = yield* pull
      assert.deepStrictEqual(first.map((c) => c.choices[0]?.delta), [{ role: "assistant" }, { content: "Hello" }])
      assert.isFalse(cancelled)
      yield* Scope.close(scope, Exit.void)
      yield* Effect.yieldNow
      assert.isTrue(cancelled)
    }))

  it.effect("dropped: the adapter names what the call loses", () =>
    Effect.gen(function*() {
      const provider = yield* providerWith(fakeClient(() => Response.json(textMessage)).client)
      const withSeed: ProviderCall = call({ passthrough: { seed: 1, temperature: 0 } })
      assert.deepStrictEqual(provider.dropped?.(withSeed), ["seed"])
    }))
})
