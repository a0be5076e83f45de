/**
 * The core's failover, with scripted fake providers behind the real registry: `complete` moves to the
 * next target on a retryable error and counts attempts, stops on a non-retryable one; `stream` fails
 * over until the first chunk and never after. Shared tools are off (a Policy fake offers none), so
 * each request is one model round. `toProviderCall` as a table. What an answer cost: each call at the
 * price of the target that answered it (openai $2 / $1 cached / $8 output per million tokens, groq
 * $0.5 / $1, local free; `unpriced` has no price for groq), null when a price is unknown.
 */
import { assert, describe, it } from "@effect/vitest"
import * as catalogue from "@pydantic/genai-prices"
import { Effect, Layer, Stream } from "effect"
import { GatewayConfig } from "../../../src/Config.ts"
import { type ChatContext, GatewayCore, toProviderCall } from "../../../src/core/GatewayCore.ts"
import type { Caller } from "../../../src/kernel/Caller.ts"
import type { CompletionChunk } from "../../../src/kernel/Canonical.ts"
import type { ChatCall } from "../../../src/kernel/ChatCall.ts"
import { Metrics } from "../../../src/observability/Metrics.ts"
import { Prices, pricesOf } from "../../../src/prices/Prices.ts"
import type { AdapterName } from "../../../src/providers/Adapters.ts"
import { ProviderError } from "../../../src/providers/ProviderError.ts"
import { CutOutputs } from "../../../src/tools/CutOutputs.ts"
import { PendingCalls } from "../../../src/tools/PendingCalls.ts"
import { Policy } from "../../../src/tools/Policy.ts"
import { ToolRegistry } from "../../../src/tools/ToolRegistry.ts"
import { fromChunkPull } from "../../utils/PullStreams.ts"
import {
  chunkOf,
  completionOf,
  providersLayer,
  type ScriptedProvider,
  scriptedProvider,
  upstreamFailure
} from "../../utils/ScriptedProvider.ts"
import { makeTestLayer } from "../../utils/TestLayer.ts"

const call = (overrides: Partial<ChatCall> = {}): ChatCall => ({
  model: "openai/gpt-4o",
  messages: [{ role: "user", content: "hi" }],
  maxTokens: undefined,
  stream: false,
  includeUsage: false,
  streamOptions: {},
  tools: undefined,
  toolChoice: undefined,
  svcToolIds: [],
  svcPendingId: undefined,
  tags: [],
  passthrough: {},
  ...overrides
})

const caller: Caller = {
  keyId: "key_1",
  keyName: "k",
  orgId: "org_1",
  allowedSvcToolIds: null,
  logContent: false,
  compression: null
}
const context = (overrides: Partial<ChatCall> = {}): ChatContext => ({
  call: call(overrides),
  caller,
  requestId: "req-1",
  compression: "safe"
})

/**
 * GatewayCore over the given fakes; `openai/gpt-4o` falls back to `groq/llama` then `local/echo`.
 * Providers a test does not script are there with no script, so calling them fails the test.
 */
const specOf = (name: string, adapter: AdapterName) => ({
  name,
  adapter,
  baseUrl: "",
  apiKey: undefined,
  headers: {},
  models: []
})

const pricesLayer = (priced: "all" | "unpriced") =>
  Layer.succeed(
    Prices,
    Prices.of(pricesOf(
      [specOf("openai", "openai-compatible"), specOf("groq", "openai-compatible"), specOf("local", "local")],
      {
        openai: { "*": { input: 2, cached_input: 1, output: 8 } },
        ...(priced === "all" ? { groq: { "*": { input: 0.5, output: 1 } } } : {})
      },
      catalogue
    ))
  )

const core = (fakes: ReadonlyArray<ScriptedProvider>, priced: "all" | "unpriced" = "all") =>
  GatewayCore.layer.pipe(
    Layer.provide(Metrics.layer),
    Layer.provide(pricesLayer(priced)),
    Layer.provide(providersLayer(
      ["openai", "groq", "local"].map((name) =>
        (fakes.find((fake) => fake.provider.name === name) ?? scriptedProvider(name)).provider
      ),
      {
        fallbacks: { "openai/gpt-4o": ["groq/llama", "local/echo"] }
      }
    )),
    Layer.provide(makeTestLayer(Policy)({ toolsFor: () => Effect.succeed([]) })),
    Layer.provide(makeTestLayer(PendingCalls)({})),
    Layer.provide(makeTestLayer(CutOutputs)({ remember: () => {} })),
    Layer.provide(ToolRegistry.layerFrom([])),
    // the moves between targets alone: retries of one target and circuit breakers are Failover.test.ts's
    Layer.provide(GatewayConfig.layerFrom({ GATEWAY_UPSTREAM_RETRIES: "0", GATEWAY_CIRCUIT_FAILURES: "0" }))
  )

const textOf = (chunks: ReadonlyArray<CompletionChunk>) =>
  chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta.content ?? "")).join("")

/** `provider:reason` of a ProviderError, else the error's tag. */
const reasonOf = (error: { readonly _tag: string } | undefined) =>
  error instanceof ProviderError ? `${error.provider}:${error.reason._tag}` : error?._tag

const complete = (
  fakes: ReadonlyArray<ScriptedProvider>,
  ctx: ChatContext = context(),
  priced: "all" | "unpriced" = "all"
) => GatewayCore.use((service) => service.complete(ctx)).pipe(Effect.provide(core(fakes, priced)))

const openStream = (fakes: ReadonlyArray<ScriptedProvider>, ctx: ChatContext = context({ stream: true })) =>
  GatewayCore.use((service) => service.stream(ctx)).pipe(Effect.provide(core(fakes)))

/** Runs a stream to its end or failure: what it emitted, and the error if any. */
const drain = <E>(chunks: Stream.Stream<CompletionChunk, E>) =>
  Effect.gen(function*() {
    const seen: Array<CompletionChunk> = []
    const exit = yield* Effect.result(Stream.runForEach(chunks, (chunk) => Effect.sync(() => seen.push(chunk))))
    return { seen, error: exit._tag === "Failure" ? exit.failure : undefined }
  })

describe("GatewayCore.complete", () => {
  it.effect("answers from the primary in one attempt, with the call it was given", () =>
    Effect.gen(function*() {
      const openai = scriptedProvider("openai", { complete: [Effect.succeed(completionOf("from openai"))] })
      const groq = scriptedProvider("groq")
      const result = yield* complete([openai, groq], context({ passthrough: { temperature: 0 }, maxTokens: 9 }))
      assert.strictEqual(result.attempts, 1)
      assert.strictEqual(result.provider, "openai")
      assert.strictEqual(result.completion.choices[0]?.message.content, "from openai")
      assert.deepStrictEqual(openai.completeCalls, [{
        modelId: "gpt-4o",
        messages: [{ role: "user", content: "hi" }],
        tools: undefined,
        toolChoice: undefined,
        maxTokens: 9,
        passthrough: { temperature: 0 },
        requestId: "req-1"
      }])
      assert.strictEqual(groq.completeCalls.length, 0)
    }))

  it.effect("fails over on a retryable error and reports the attempts", () =>
    Effect.gen(function*() {
      const openai = scriptedProvider("openai", { complete: [Effect.fail(upstreamFailure("openai", 503))] })
      const groq = scriptedProvider("groq", { complete: [Effect.fail(upstreamFailure("groq", 429))] })
      const local = scriptedProvider("local", { complete: [Effect.succeed(completionOf("from local"))] })
      const result = yield* complete([openai, groq, local])
      assert.strictEqual(result.attempts, 3)
      assert.strictEqual(result.provider, "local")
      assert.strictEqual(result.completion.choices[0]?.message.content, "from local")
      assert.deepStrictEqual(
        [openai, groq, local].map((fake) => fake.completeCalls.map((c) => `${c.modelId}/${c.requestId}`)),
        [["gpt-4o/req-1"], ["llama/req-1"], ["echo/req-1"]]
      )
    }))

  it.effect("does not fail over on a non-retryable error (upstream 400): the client gets it", () =>
    Effect.gen(function*() {
      const openai = scriptedProvider("openai", {
        complete: [Effect.fail(upstreamFailure("openai", 400, "bad temperature"))]
      })
      const groq = scriptedProvider("groq", { complete: [Effect.succeed(completionOf("unused"))] })
      const error = yield* Effect.flip(complete([openai, groq]))
      assert.strictEqual(reasonOf(error), "openai:UpstreamStatus")
      assert.strictEqual(groq.completeCalls.length, 0)
    }))

  it.effect("when every target fails, the last error comes out", () =>
    Effect.gen(function*() {
      const fakes = ["openai", "groq", "local"].map((name) =>
        scriptedProvider(name, { complete: [Effect.fail(upstreamFailure(name, 502))] })
      )
      const error = yield* Effect.flip(complete(fakes))
      assert.strictEqual(reasonOf(error), "local:UpstreamStatus")
      assert.deepStrictEqual(fakes.map((fake) => fake.completeCalls.length), [1, 1, 1])
    }))

  it.effect("a model without fallbacks has one attempt", () =>
    Effect.gen(function*() {
      const groq = scriptedProvider("groq", { complete: [Effect.fail(upstreamFailure("groq", 503))] })
      const local = scriptedProvider("local", { complete: [Effect.succeed(completionOf("unused"))] })
      const error = yield* Effect.flip(complete([groq, local], context({ model: "groq/llama" })))
      assert.strictEqual(reasonOf(error), "groq:UpstreamStatus")
      assert.strictEqual(local.completeCalls.length, 0)
    }))

  it.effect("an unrouted model is ModelNotFound and calls nobody", () =>
    Effect.gen(function*() {
      const openai = scriptedProvider("openai")
      const error = yield* Effect.flip(complete([openai], context({ model: "nobody/model" })))
      assert.strictEqual(error._tag, "RequestError")
      assert.strictEqual(error._tag === "RequestError" ? error.reason._tag : "", "ModelNotFound")
      assert.strictEqual(openai.completeCalls.length, 0)
    }))
})

describe("the cost of an answer", () => {
  const usage = { promptTokens: 1000, completionTokens: 100, totalTokens: 1100, cachedTokens: 200, reasoningTokens: 0 }
  const priced = (text: string) => ({ ...completionOf(text), usage })

  it.effect("a whole answer: its usage at the price of the target that answered", () =>
    Effect.gen(function*() {
      const openai = scriptedProvider("openai", { complete: [Effect.succeed(priced("hi"))] })
      const result = yield* complete([openai])
      // 800 input x 2 + 200 cached x 1 + 100 output x 8 micro-dollars
      assert.deepStrictEqual(result.cost, { input: 1600, cachedInput: 200, cacheWrite: 0, output: 800, total: 2600 })
    }))

  it.effect("after a failover: priced at the backup that answered, the failed attempt billed nothing", () =>
    Effect.gen(function*() {
      const openai = scriptedProvider("openai", { complete: [Effect.fail(upstreamFailure("openai", 503))] })
      const groq = scriptedProvider("groq", { complete: [Effect.succeed(priced("from groq"))] })
      const result = yield* complete([openai, groq])
      assert.strictEqual(result.provider, "groq")
      // 1000 prompt tokens x 0.5 (no cache rate: cached billed as input) + 100 x 1
      assert.deepStrictEqual(result.cost, { input: 400, cachedInput: 100, cacheWrite: 0, output: 100, total: 600 })
    }))

  it.effect("a target without a known price: the cost is null, not 0", () =>
    Effect.gen(function*() {
      const groq = scriptedProvider("groq", { complete: [Effect.succeed(priced("unpriced"))] })
      const result = yield* complete([groq], context({ model: "groq/llama" }), "unpriced")
      assert.isNull(result.cost)
    }))

  it.effect("a streamed answer costs what the same whole answer costs, once its usage arrived", () =>
    Effect.gen(function*() {
      const last = { ...chunkOf("lo", "stop"), usage }
      const openai = scriptedProvider("openai", { stream: [Stream.make(chunkOf("hel"), last)] })
      const result = yield* openStream([openai])
      const { error } = yield* drain(fromChunkPull(result.chunks))
      assert.isUndefined(error)
      assert.deepStrictEqual(result.outcome().cost, {
        input: 1600,
        cachedInput: 200,
        cacheWrite: 0,
        output: 800,
        total: 2600
      })
    }))
})

describe("GatewayCore.stream", () => {
  it.effect("fails over when the first chunk fails, and streams the backup's chunks", () =>
    Effect.gen(function*() {
      const openai = scriptedProvider("openai", { stream: [Stream.fail(upstreamFailure("openai", 503))] })
      const groq = scriptedProvider("groq", { stream: [Stream.make(chunkOf("hel"), chunkOf("lo", "stop"))] })
      const result = yield* openStream([openai, groq])
      assert.strictEqual(result.provider, "groq")
      assert.strictEqual(result.outcome().attempts, 2)
      const { error, seen } = yield* drain(fromChunkPull(result.chunks))
      assert.isUndefined(error)
      assert.strictEqual(textOf(seen), "hello")
      assert.deepStrictEqual([openai.streamCalls.length, groq.streamCalls.length], [1, 1])
      assert.strictEqual(groq.streamRuns(), 1, "the backup's stream is opened once, its first chunk not replayed")
      assert.strictEqual(groq.streamCalls[0]?.modelId, "llama")
    }))

  it.effect("the first chunk is kept: the client sees every chunk of the stream that answered", () =>
    Effect.gen(function*() {
      const openai = scriptedProvider("openai", {
        stream: [Stream.make(chunkOf("a"), chunkOf("b"), chunkOf("c", "stop"))]
      })
      const result = yield* openStream([openai])
      assert.strictEqual(result.outcome().attempts, 1)
      const { error, seen } = yield* drain(fromChunkPull(result.chunks))
      assert.isUndefined(error)
      assert.strictEqual(textOf(seen), "abc")
      assert.strictEqual(openai.streamRuns(), 1)
    }))

  it.effect("does not fail over after a chunk was emitted: the error reaches the consumer", () =>
    Effect.gen(function*() {
      const openai = scriptedProvider("openai", {
        stream: [Stream.concat(Stream.make(chunkOf("partial")), Stream.fail(upstreamFailure("openai", 503)))]
      })
      const groq = scriptedProvider("groq", { stream: [Stream.make(chunkOf("unused", "stop"))] })
      const result = yield* openStream([openai, groq])
      assert.strictEqual(result.provider, "openai")
      const { error, seen } = yield* drain(fromChunkPull(result.chunks))
      assert.strictEqual(textOf(seen), "partial")
      assert.strictEqual(reasonOf(error), "openai:UpstreamStatus")
      assert.strictEqual(groq.streamCalls.length, 0)
    }))

  it.effect("does not fail over on a non-retryable first failure", () =>
    Effect.gen(function*() {
      const openai = scriptedProvider("openai", { stream: [Stream.fail(upstreamFailure("openai", 400))] })
      const groq = scriptedProvider("groq", { stream: [Stream.make(chunkOf("unused", "stop"))] })
      const error = yield* Effect.flip(openStream([openai, groq]))
      assert.strictEqual(reasonOf(error), "openai:UpstreamStatus")
      assert.strictEqual(groq.streamCalls.length, 0)
    }))

  it.effect("passes stream_options extras to the provider it streams from", () =>
    Effect.gen(function*() {
      const openai = scriptedProvider("openai", { stream: [Stream.make(chunkOf("x", "stop"))] })
      yield* openStream([openai], context({ stream: true, streamOptions: { continuous_usage_stats: true } }))
      assert.deepStrictEqual(openai.streamCalls[0]?.passthrough, { stream_options: { continuous_usage_stats: true } })
    }))
})

describe("toProviderCall", () => {
  const options = { continuous_usage_stats: true }
  const cases: ReadonlyArray<readonly [string, Partial<ChatCall>, Record<string, unknown>]> = [
    ["streaming with extras: passthrough gets stream_options", {
      stream: true,
      streamOptions: options,
      passthrough: { seed: 1 }
    }, {
      seed: 1,
      stream_options: options
    }],
    ["not streaming: extras are not sent", { stream: false, streamOptions: options, passthrough: { seed: 1 } }, {
      seed: 1
    }],
    ["streaming without extras: no stream_options", { stream: true, streamOptions: {}, passthrough: { seed: 1 } }, {
      seed: 1
    }],
    ["nothing to pass", {}, {}]
  ]
  for (const [label, overrides, passthrough] of cases) {
    it(label, () => {
      const chat = call(overrides)
      assert.deepStrictEqual(toProviderCall(chat, { modelId: "gpt-4o", requestId: "req-9" }), {
        modelId: "gpt-4o",
        messages: chat.messages,
        tools: undefined,
        toolChoice: undefined,
        maxTokens: undefined,
        passthrough,
        requestId: "req-9"
      })
    })
  }

  it("maps the model fields and never mutates the call's passthrough", () => {
    const tools = [{ type: "function" as const, function: { name: "f" } }]
    const chat = call({
      tools,
      toolChoice: "auto",
      maxTokens: 12,
      stream: true,
      streamOptions: options,
      passthrough: { stop: ["x"] }
    })
    const out = toProviderCall(chat, { modelId: "m", requestId: "r" })
    assert.deepStrictEqual([out.tools, out.toolChoice, out.maxTokens], [tools, "auto", 12])
    assert.deepStrictEqual(chat.passthrough, { stop: ["x"] })
  })
})
