/**
 * The adapter against a real upstream on 127.0.0.1 through the undici client the app uses: timeouts
 * and aborts need real sockets and real time, so these run with `it.live` and short, bounded timeouts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Stream } from "effect"
import { createServer } from "node:http"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { CompletionChunk } from "../../src/kernel/Canonical.ts"
import { make } from "../../src/providers/openai/OpenAiCompatible.ts"
import type { OpenAiCompatibleOptions } from "../../src/providers/openai/OpenAiCompatible.ts"
import type { ProviderError } from "../../src/providers/ProviderError.ts"
import { UpstreamTransport } from "../../src/providers/UpstreamTransport.ts"
import { providerStream } from "../utils/PullStreams.ts"
import { call, contentOf, deferred, delta, optionsOf, reasonOf, sse, usageChunk } from "./OpenAiFixtures.ts"

/** The transport the app runs, with a connect timeout no test reaches. */
const undici = UpstreamTransport.layerUndici({ connectTimeout: Duration.seconds(10) })

type Handler = (req: IncomingMessage, res: ServerResponse) => void

/**
 * A `node:http` server on 127.0.0.1, port 0, closed with its connections when the test's scope ends.
 * `closed` resolves when the socket of the first request closes: how the tests see an abort.
 */
const localServer = (handler: Handler) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly server: Server; readonly baseUrl: string; readonly closed: Promise<void> }>((resume) => {
      const socketClosed = deferred()
      const server = createServer((req, res) => {
        req.socket.once("close", socketClosed.resolve)
        handler(req, res)
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        resume(Effect.succeed({ server, baseUrl: `http://127.0.0.1:${port}/v1`, closed: socketClosed.promise }))
      })
    }),
    ({ server }) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

const realProvider = (baseUrl: string, timeouts: Partial<OpenAiCompatibleOptions["timeouts"]> = {}) =>
  make(optionsOf({ baseUrl, timeouts: { ...optionsOf().timeouts, ...timeouts } }))

const sseHead = (res: ServerResponse) => res.writeHead(200, { "content-type": "text/event-stream" })

/** Fails the test instead of hanging when an expected socket close never comes. */
const awaitClose = (closed: Promise<void>) =>
  Effect.promise(() => closed).pipe(
    Effect.timeoutOrElse({
      duration: "2 seconds",
      orElse: () => Effect.sync(() => assert.fail("upstream request was not aborted"))
    })
  )

const timeoutPhase = (error: ProviderError) => {
  const reason = reasonOf(error)
  return reason._tag === "UpstreamTimeout" ? reason.phase : reason._tag
}

describe("OpenAiCompatible against a local server", () => {
  it.live("first_byte: no response headers in time", () =>
    Effect.gen(function*() {
      const server = yield* localServer(() => {}) // never answers
      const provider = yield* realProvider(server.baseUrl, { firstByte: Duration.millis(150) })
      const started = Date.now()
      assert.strictEqual(timeoutPhase(yield* Effect.flip(provider.complete(call))), "first_byte")
      assert.strictEqual(
        timeoutPhase(yield* Effect.flip(Stream.runDrain(providerStream(provider, call)))),
        "first_byte"
      )
      const elapsed = Date.now() - started
      assert.isTrue(elapsed >= 280 && elapsed < 2000, `took ${elapsed} ms`)
      yield* awaitClose(server.closed)
    }).pipe(Effect.provide(undici)))

  it.live("idle: the stream goes silent after a chunk", () =>
    Effect.gen(function*() {
      const server = yield* localServer((_req, res) => {
        sseHead(res)
        res.write(sse(delta("only")))
      })
      const provider = yield* realProvider(server.baseUrl, { idle: Duration.millis(200) })
      const received: Array<CompletionChunk> = []
      const started = Date.now()
      const error = yield* Effect.flip(
        Stream.runForEach(providerStream(provider, call), (c) => Effect.sync(() => received.push(c)))
      )
      assert.strictEqual(timeoutPhase(error), "idle")
      assert.strictEqual(contentOf(received), "only")
      assert.isTrue(Date.now() - started < 2000)
      yield* awaitClose(server.closed)
    }).pipe(Effect.provide(undici)))

  it.live("idle counts from the last piece: a stream that goes silent after a steady start", () =>
    Effect.gen(function*() {
      // pieces every 50 ms for longer than the idle limit, then silence: the limit is met again and again
      // while pieces come, and runs out only once they stop
      const server = yield* localServer((_req, res) => {
        sseHead(res)
        let sent = 0
        const timer = setInterval(() => {
          res.write(sse(delta(".")))
          if (++sent === 10) clearInterval(timer)
        }, 50)
        res.on("close", () => clearInterval(timer))
      })
      const provider = yield* realProvider(server.baseUrl, { idle: Duration.millis(300) })
      const received: Array<CompletionChunk> = []
      let lastAt = 0
      const error = yield* Effect.flip(
        Stream.runForEach(providerStream(provider, call), (c) =>
          Effect.sync(() => {
            received.push(c)
            lastAt = performance.now()
          }))
      )
      const silence = performance.now() - lastAt
      assert.strictEqual(timeoutPhase(error), "idle")
      assert.strictEqual(contentOf(received), "..........")
      assert.isTrue(silence >= 295 && silence < 2500, `failed ${silence} ms after the last piece`)
      yield* awaitClose(server.closed)
    }).pipe(Effect.provide(undici)))

  it.live("idle is not total: a steady stream runs until the total timeout", () =>
    Effect.gen(function*() {
      const server = yield* localServer((_req, res) => {
        sseHead(res)
        const timer = setInterval(() => res.write(sse(delta("."))), 25)
        res.on("close", () => clearInterval(timer))
      })
      const provider = yield* realProvider(server.baseUrl, { idle: Duration.millis(300), total: Duration.millis(600) })
      const received: Array<CompletionChunk> = []
      const error = yield* Effect.flip(
        Stream.runForEach(providerStream(provider, call), (c) => Effect.sync(() => received.push(c)))
      )
      assert.strictEqual(timeoutPhase(error), "total")
      assert.isTrue(received.length > 3, `${received.length} chunks`)
      yield* awaitClose(server.closed)
    }).pipe(Effect.provide(undici)))

  it.live("a connection dropped mid-stream is UpstreamUnreachable", () =>
    Effect.gen(function*() {
      const server = yield* localServer((_req, res) => {
        sseHead(res)
        res.write(sse(delta("half")), () => setTimeout(() => res.destroy(), 20))
      })
      const provider = yield* realProvider(server.baseUrl)
      const received: Array<CompletionChunk> = []
      const error = yield* Effect.flip(
        Stream.runForEach(providerStream(provider, call), (c) => Effect.sync(() => received.push(c)))
      )
      assert.strictEqual(reasonOf(error)._tag, "UpstreamUnreachable")
      assert.strictEqual(contentOf(received), "half")
    }).pipe(Effect.provide(undici)))

  it.live("Stream.take(1) aborts the upstream request", () =>
    Effect.gen(function*() {
      const server = yield* localServer((_req, res) => {
        sseHead(res)
        res.write(sse(delta("one"), delta("two")))
      })
      const provider = yield* realProvider(server.baseUrl)
      const chunks = yield* Stream.runCollect(Stream.take(providerStream(provider, call), 1))
      assert.strictEqual(contentOf(chunks), "one")
      yield* awaitClose(server.closed)
    }).pipe(Effect.provide(undici)))

  it.live("interrupting the consumer aborts the upstream request", () =>
    Effect.gen(function*() {
      const server = yield* localServer((_req, res) => {
        sseHead(res)
        res.write(sse(delta("one")))
      })
      const provider = yield* realProvider(server.baseUrl)
      const first = deferred()
      const fiber = yield* Effect.forkChild(
        Stream.runForEach(providerStream(provider, call), () => Effect.sync(first.resolve))
      )
      yield* Effect.promise(() => first.promise)
      yield* Fiber.interrupt(fiber)
      yield* awaitClose(server.closed)
    }).pipe(Effect.provide(undici)))

  it.live("a refused connection is UpstreamUnreachable", () =>
    Effect.gen(function*() {
      // A port that was just free: listen, note it, close.
      const baseUrl = yield* Effect.scoped(Effect.map(localServer(() => {}), (s) => s.baseUrl))
      const provider = yield* realProvider(baseUrl)
      assert.strictEqual(reasonOf(yield* Effect.flip(provider.complete(call)))._tag, "UpstreamUnreachable")
      assert.strictEqual(
        reasonOf(yield* Effect.flip(Stream.runDrain(providerStream(provider, call))))._tag,
        "UpstreamUnreachable"
      )
    }).pipe(Effect.provide(undici)))

  it.live("a real round trip: headers on the wire and a streamed answer", () =>
    Effect.gen(function*() {
      const seen: Array<IncomingMessage["headers"]> = []
      const server = yield* localServer((req, res) => {
        seen.push(req.headers)
        sseHead(res)
        res.end(sse(delta("hi"), usageChunk, "[DONE]"))
      })
      const provider = yield* realProvider(server.baseUrl)
      const chunks = yield* Stream.runCollect(providerStream(provider, call))
      assert.strictEqual(contentOf(chunks), "hi")
      const headers = seen[0]
      if (headers === undefined) return assert.fail("no request seen")
      assert.strictEqual(headers["content-type"], "application/json")
      assert.strictEqual(headers["authorization"], "Bearer sk-test")
      assert.strictEqual(headers["x-request-id"], "req-42")
      assert.strictEqual(headers["x-title"], "svc-gateway")
    }).pipe(Effect.provide(undici)))
})
