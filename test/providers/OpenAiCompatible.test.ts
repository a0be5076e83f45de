import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Stream } from "effect"
import { HttpClient, HttpClientError, HttpClientResponse } from "effect/http"
import type { HttpClientRequest } from "effect/http"
import { TestClock } from "effect/testing"
import type { CompletionChunk } from "../../src/kernel/Canonical.ts"
import { completionsUrl, make } from "../../src/providers/openai/OpenAiCompatible.ts"
import type { OpenAiCompatibleOptions } from "../../src/providers/openai/OpenAiCompatible.ts"
import { buildRequestBody } from "../../src/providers/openai/OpenAiMapping.ts"
import * as UpstreamHttpClient from "../../src/providers/UpstreamHttpClient.ts"
import { providerStream } from "../utils/PullStreams.ts"
import {
  call,
  contentOf,
  deferred,
  delta,
  encoder,
  optionsOf,
  plain,
  reasonOf,
  sse,
  usageChunk
} from "./OpenAiFixtures.ts"

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

const providerWith = (client: HttpClient.HttpClient, overrides: Partial<OpenAiCompatibleOptions> = {}) =>
  make(optionsOf(overrides)).pipe(
    Effect.provide(UpstreamHttpClient.layer),
    Effect.provideService(HttpClient.HttpClient, client)
  )

const bodyOf = (request: HttpClientRequest.HttpClientRequest): unknown =>
  request.body._tag === "Uint8Array" ? JSON.parse(new TextDecoder().decode(request.body.body)) : undefined

/** A body delivered one piece per read. */
const pieces = (parts: ReadonlyArray<Uint8Array>) => {
  let next = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = parts[next++]
      if (part === undefined) return controller.close()
      controller.enqueue(part)
    }
  })
}

/** A body delivered in pieces of `size` bytes, to cut SSE framing at every possible place. */
const piecewise = (text: string, size: number) => {
  const bytes = encoder.encode(text)
  const parts: Array<Uint8Array> = []
  for (let offset = 0; offset < bytes.length; offset += size) parts.push(bytes.slice(offset, offset + size))
  return pieces(parts)
}

const completionBody = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "gpt-4o-mini-2024-07-18",
  system_fingerprint: "fp_1",
  choices: [{ index: 0, message: { role: "assistant", content: "hello" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 }
}

describe("OpenAiCompatible with a fake HttpClient", () => {
  it("joins the base URL with or without a trailing slash", () => {
    assert.strictEqual(completionsUrl("http://h/v1"), "http://h/v1/chat/completions")
    assert.strictEqual(completionsUrl("http://h/v1//"), "http://h/v1/chat/completions")
  })

  it.effect("complete: posts the mapped body and headers, and decodes the completion", () =>
    Effect.gen(function*() {
      const fake = fakeClient(() => Response.json(completionBody))
      const provider = yield* providerWith(fake.client)
      assert.strictEqual(provider.name, "openai")
      assert.strictEqual(provider.adapter, "openai-compatible")
      assert.deepStrictEqual(provider.models, ["gpt-4o-mini"])

      const completion = yield* provider.complete(call)
      assert.strictEqual(completion.model, "gpt-4o-mini-2024-07-18")
      assert.deepStrictEqual<unknown>(completion.choices, completionBody.choices)
      assert.deepStrictEqual(completion.usage, {
        promptTokens: 5,
        completionTokens: 1,
        totalTokens: 6,
        cachedTokens: 0,
        reasoningTokens: 0
      })
      assert.deepStrictEqual(completion.extra, { system_fingerprint: "fp_1" })

      const [request] = fake.requests
      assert.isDefined(request)
      if (request === undefined) return
      assert.strictEqual(request.method, "POST")
      assert.strictEqual(request.url, "https://api.example.test/v1/chat/completions")
      assert.strictEqual(request.headers["content-type"], "application/json")
      assert.strictEqual(request.headers["authorization"], "Bearer sk-test")
      assert.strictEqual(request.headers["x-request-id"], "req-42")
      assert.strictEqual(request.headers["x-title"], "svc-gateway")
      const body = bodyOf(request)
      assert.deepStrictEqual(body, buildRequestBody(call, false))
      assert.deepStrictEqual(body, {
        temperature: 0,
        model: "gpt-4o-mini",
        messages: call.messages,
        stream: false,
        max_tokens: 32
      })
    }))

  it.effect("stream: asks for usage, and sends no Authorization header without a key", () =>
    Effect.gen(function*() {
      const fake = fakeClient(() => new Response(sse(delta("a"), "[DONE]")))
      const provider = yield* providerWith(fake.client, { apiKey: undefined })
      yield* Stream.runDrain(providerStream(provider, call))
      const [request] = fake.requests
      if (request === undefined) return assert.fail("no request sent")
      assert.isUndefined(request.headers["authorization"])
      assert.deepStrictEqual(bodyOf(request), {
        temperature: 0,
        model: "gpt-4o-mini",
        messages: call.messages,
        stream: true,
        max_tokens: 32,
        stream_options: { include_usage: true }
      })
    }))

  describe("non-2xx responses become UpstreamStatus", () => {
    const cases: ReadonlyArray<readonly [string, number, string, Record<string, unknown>]> = [
      [
        "OpenAI's error object",
        429,
        JSON.stringify({
          error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded", param: null }
        }),
        { status: 429, message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded", param: null }
      ],
      ["a detail", 400, JSON.stringify({ detail: "model not loaded" }), { status: 400, message: "model not loaded" }],
      ["plain text", 502, "upstream connect error", { status: 502, message: "upstream connect error" }],
      ["an empty body", 503, "", { status: 503, message: "upstream returned 503" }]
    ]
    for (const [label, status, text, expected] of cases) {
      it.effect(label, () =>
        Effect.gen(function*() {
          const fake = fakeClient(() => new Response(text, { status }))
          const provider = yield* providerWith(fake.client)
          for (const attempt of [provider.complete(call), Stream.runDrain(providerStream(provider, call))]) {
            const error = yield* Effect.flip(attempt)
            assert.strictEqual(error.provider, "openai")
            assert.deepStrictEqual(plain(reasonOf(error)), { _tag: "UpstreamStatus", ...expected })
          }
        }))
    }
  })

  it.effect("a transport error becomes UpstreamUnreachable", () =>
    Effect.gen(function*() {
      const client = HttpClient.make((request) =>
        Effect.fail(
          new HttpClientError.HttpClientError({
            reason: new HttpClientError.TransportError({ request, description: "connect ECONNREFUSED" })
          })
        )
      )
      const provider = yield* providerWith(client, { name: "groq" })
      for (const attempt of [provider.complete(call), Stream.runDrain(providerStream(provider, call))]) {
        const error = yield* Effect.flip(attempt)
        assert.strictEqual(error.provider, "groq")
        assert.strictEqual(reasonOf(error)._tag, "UpstreamUnreachable")
        assert.isTrue(error.retryable)
      }
    }))

  it.effect("complete: a 2xx body that is not a completion becomes UpstreamBadResponse", () =>
    Effect.gen(function*() {
      for (const text of ["<html>gateway</html>", "{\"object\":\"list\"}"]) {
        const provider = yield* providerWith(fakeClient(() => new Response(text)).client)
        assert.strictEqual(reasonOf(yield* Effect.flip(provider.complete(call)))._tag, "UpstreamBadResponse")
      }
    }))

  it.effect("stream: decodes chunks, keeps the final usage chunk, and stops at [DONE]", () =>
    Effect.gen(function*() {
      const text = sse(delta("Hel"), delta("lo"), usageChunk, "[DONE]", delta("after done"))
      const provider = yield* providerWith(fakeClient(() => new Response(text)).client)
      const chunks = yield* Stream.runCollect(providerStream(provider, call))
      assert.strictEqual(chunks.length, 3)
      assert.strictEqual(contentOf(chunks), "Hello")
      assert.strictEqual(chunks[0]?.model, "gpt-4o-mini-2024")
      assert.isUndefined(chunks[0]?.usage)
      assert.deepStrictEqual(chunks[2]?.choices, [])
      assert.deepStrictEqual(chunks[2]?.usage, {
        promptTokens: 3,
        completionTokens: 2,
        totalTokens: 5,
        cachedTokens: 0,
        reasoningTokens: 0
      })
    }))

  it.effect("stream: SSE split at every byte boundary, with CRLF, comments and multi-byte characters", () =>
    Effect.gen(function*() {
      const text = [
        ": keep-alive\r\n\r\n",
        `data: ${JSON.stringify(delta("héllo "))}\r\n\r\n`,
        ": keep-alive\n\n",
        `event: message\ndata: ${JSON.stringify(delta("wörld 🌍"))}\n\n`,
        `data: ${JSON.stringify(usageChunk)}\r\n\r\n`,
        "data: [DONE]\r\n\r\n"
      ].join("")
      for (const size of [1, 2, 3, 4, 5, 7, 11, 16, 64, text.length]) {
        const provider = yield* providerWith(fakeClient(() => new Response(piecewise(text, size))).client)
        const chunks = yield* Stream.runCollect(providerStream(provider, call))
        assert.strictEqual(contentOf(chunks), "héllo wörld 🌍", `pieces of ${size} bytes`)
        assert.strictEqual(chunks.length, 3, `pieces of ${size} bytes`)
        assert.strictEqual(chunks[2]?.usage?.totalTokens, 5)
      }
    }))

  it.effect("stream: an error event becomes UpstreamStatus after the chunks before it", () =>
    Effect.gen(function*() {
      const text = sse(delta("partial"), { error: { message: "Provider overloaded", code: 503 } }, "[DONE]")
      const provider = yield* providerWith(fakeClient(() => new Response(text)).client)
      const received: Array<CompletionChunk> = []
      const error = yield* Effect.flip(
        Stream.runForEach(providerStream(provider, call), (c) => Effect.sync(() => received.push(c)))
      )
      assert.strictEqual(contentOf(received), "partial")
      const reason = reasonOf(error)
      if (reason._tag !== "UpstreamStatus") return assert.fail(reason._tag)
      assert.strictEqual(reason.status, 503)
      assert.strictEqual(reason.message, "Provider overloaded")
    }))

  it.effect("stream: an error event without a numeric code is a 502", () =>
    Effect.gen(function*() {
      const text = sse({ error: { message: "bad things", type: "server_error" } })
      const provider = yield* providerWith(fakeClient(() => new Response(text)).client)
      const reason = reasonOf(yield* Effect.flip(Stream.runDrain(providerStream(provider, call))))
      if (reason._tag !== "UpstreamStatus") return assert.fail(reason._tag)
      assert.deepStrictEqual([reason.status, reason.message, reason.type], [502, "bad things", "server_error"])
    }))

  it.effect("stream: a body that ends without [DONE] is UpstreamUnreachable", () =>
    Effect.gen(function*() {
      const provider = yield* providerWith(fakeClient(() => new Response(sse(delta("cut")))).client)
      const reason = reasonOf(yield* Effect.flip(Stream.runDrain(providerStream(provider, call))))
      assert.deepStrictEqual(plain(reason), {
        _tag: "UpstreamUnreachable",
        message: "upstream stream ended before [DONE]"
      })
    }))

  it.effect("stream: invalid JSON in an event is UpstreamBadResponse", () =>
    Effect.gen(function*() {
      const provider = yield* providerWith(
        fakeClient(() => new Response(sse(delta("ok"), "{\"choices\": [", "[DONE]"))).client
      )
      assert.strictEqual(
        reasonOf(yield* Effect.flip(Stream.runDrain(providerStream(provider, call))))._tag,
        "UpstreamBadResponse"
      )
    }))

  it.effect("stream: a JSON answer instead of SSE is reported as what it is", () =>
    Effect.gen(function*() {
      const jsonError = Response.json({ error: { message: "No endpoints found", code: 404 } })
      const errorProvider = yield* providerWith(fakeClient(() => jsonError).client)
      assert.deepStrictEqual(
        plain(reasonOf(yield* Effect.flip(Stream.runDrain(providerStream(errorProvider, call))))),
        {
          _tag: "UpstreamStatus",
          status: 404,
          message: "No endpoints found",
          code: "404"
        }
      )
      const completionProvider = yield* providerWith(fakeClient(() => Response.json(completionBody)).client)
      assert.deepStrictEqual(
        plain(reasonOf(yield* Effect.flip(Stream.runDrain(providerStream(completionProvider, call))))),
        {
          _tag: "UpstreamBadResponse",
          message: "upstream answered a streaming request with JSON, not SSE"
        }
      )
    }))

  it.effect("stream: an SSE retry field arriving alone fails the stream (Sse.decode fails with Retry)", () =>
    Effect.gen(function*() {
      const body = () =>
        new Response(pieces([encoder.encode("retry: 1000\n\n"), encoder.encode(sse(delta("x"), "[DONE]"))]))
      const provider = yield* providerWith(fakeClient(body).client)
      assert.strictEqual(
        reasonOf(yield* Effect.flip(Stream.runDrain(providerStream(provider, call))))._tag,
        "UpstreamBadResponse"
      )
    }))

  it.live("stream: emits each chunk as it arrives", () =>
    Effect.gen(function*() {
      const gate = deferred()
      let pulls = 0
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          pulls += 1
          if (pulls === 1) return controller.enqueue(encoder.encode(sse(delta("first"))))
          // The rest is only sent once the consumer has seen the first chunk.
          await gate.promise
          controller.enqueue(encoder.encode(sse(delta(" second"), "[DONE]")))
          controller.close()
        }
      })
      const provider = yield* providerWith(fakeClient(() => new Response(body)).client)
      const received: Array<CompletionChunk> = []
      yield* Stream.runForEach(providerStream(provider, call), (chunk) =>
        Effect.sync(() => {
          received.push(chunk)
          gate.resolve()
        })).pipe(Effect.timeout("2 seconds"))
      assert.strictEqual(contentOf(received), "first second")
    }))

  it.effect("total timeout: complete, while the body is still arriving", () =>
    Effect.gen(function*() {
      const endless = () =>
        new Response(new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(encoder.encode("{\"id\":")) }))
      const provider = yield* providerWith(fakeClient(endless).client, {
        timeouts: { firstByte: Duration.seconds(60), idle: Duration.seconds(60), total: Duration.seconds(5) }
      })
      const fiber = yield* Effect.forkChild(Effect.flip(provider.complete(call)))
      yield* TestClock.adjust("5 seconds")
      assert.deepStrictEqual(plain(reasonOf(yield* Fiber.join(fiber))), { _tag: "UpstreamTimeout", phase: "total" })
    }))

  it.effect("total timeout: stream, however lively the upstream", () =>
    Effect.gen(function*() {
      const endless = () =>
        new Response(new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(encoder.encode(sse(delta("x")))) }))
      const provider = yield* providerWith(fakeClient(endless).client, {
        timeouts: { firstByte: Duration.seconds(60), idle: Duration.seconds(60), total: Duration.seconds(5) }
      })
      const fiber = yield* Effect.forkChild(Effect.flip(Stream.runDrain(providerStream(provider, call))))
      yield* TestClock.adjust("5 seconds")
      assert.deepStrictEqual(plain(reasonOf(yield* Fiber.join(fiber))), { _tag: "UpstreamTimeout", phase: "total" })
    }))
})
