/**
 * `TracingLive`: which OpenTelemetry variables turn export on, that spans really leave by OTLP/HTTP
 * (to a fake collector on loopback, JSON and protobuf), and that without an endpoint nothing is
 * installed: no tracer, no `x-trace-id`, the gateway as it was.
 */
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base"
import { ConfigProvider, Effect, Layer, Option, Stream, Tracer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { currentTraceId, TRACE_ID_HEADER, tracingActive } from "../../src/observability/TraceHeaders.ts"
import {
  decideTracing,
  DEFAULT_SERVICE_NAME,
  parseHeaders,
  TracingLive,
  TracingTest,
  withSampleRatio
} from "../../src/observability/TracingLayer.ts"
import { completion, fakeGatewayEnv, reply, startFakeUpstream } from "../utils/FakeUpstream.ts"
import { postChat } from "../utils/TestGateway.ts"
import { type FakeCollector, startFakeCollector } from "./FakeCollector.ts"
import { startObservedGateway } from "./ObservedGateway.ts"

const withEnv = (env: Record<string, string>) => ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))

const spanTree = Effect.void.pipe(
  Effect.withSpan("child", { attributes: { "test.attr": "x" } }),
  Effect.withSpan("parent")
)

describe("decideTracing", () => {
  it("is off without an endpoint, whatever else is set", () => {
    expect(decideTracing({})).toEqual({ _tag: "Off" })
    expect(decideTracing({ OTEL_SERVICE_NAME: "gw" })).toEqual({ _tag: "Off" })
  })

  it("the base endpoint gets /v1/traces; the traces endpoint is used as is and wins", () => {
    const on = (env: Parameters<typeof decideTracing>[0]) => {
      const decision = decideTracing(env)
      if (decision._tag !== "On") throw new Error(JSON.stringify(decision))
      return decision.settings
    }
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }).url).toBe("http://c:4318/v1/traces")
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" }).url).toBe("http://c:4318/v1/traces")
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t:9/x" }).url)
      .toBe("http://t:9/x")
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })).toMatchObject({
      serviceName: DEFAULT_SERVICE_NAME,
      protocol: "http/protobuf",
      compression: "none",
      sampleRatio: 1,
      headers: {}
    })
    expect(on({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
      OTEL_SERVICE_NAME: "gw-eu",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: "x-a=1",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "Api-Key=a%20b,x-b=2",
      OTEL_EXPORTER_OTLP_COMPRESSION: "gzip",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.25"
    })).toMatchObject({
      serviceName: "gw-eu",
      protocol: "http/json",
      headers: { "api-key": "a b", "x-b": "2" },
      compression: "gzip",
      sampleRatio: 0.25
    })
  })

  it("can be switched off, and refuses what it cannot do with a warning", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }
    expect(decideTracing({ ...endpoint, OTEL_SDK_DISABLED: "true" })).toEqual({ _tag: "Off" })
    expect(decideTracing({ ...endpoint, OTEL_TRACES_EXPORTER: "none" })).toEqual({ _tag: "Off" })
    expect(decideTracing({ ...endpoint, OTEL_TRACES_EXPORTER: "console,otlp" })._tag).toBe("On")
    for (
      const env of [
        { ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
        { OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" },
        { ...endpoint, OTEL_TRACES_SAMPLER: "jaeger_remote" },
        { ...endpoint, OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" }
      ]
    ) {
      const decision = decideTracing(env)
      expect(decision._tag).toBe("Off")
      expect(decision._tag === "Off" && decision.warning).toMatch(/^tracing disabled: /)
    }
  })

  it("parses OTLP header lists", () => {
    expect(parseHeaders("a=1, B = x%3Dy ,bad,=v,c=%E0%A4%A")).toEqual({ a: "1", b: "x=y", c: "%E0%A4%A" })
    expect(parseHeaders(undefined)).toEqual({})
  })
})

describe("sampling", () => {
  it("decides only traces' roots; children follow their parent", () => {
    const seen: Array<{ name: string; sampled: boolean }> = []
    const recording = Tracer.make({
      span: (options) => {
        seen.push({ name: options.name, sampled: options.sampled })
        return Tracer.nativeTracer.span(options)
      }
    })
    const run = (ratio: number) => Effect.runSync(spanTree.pipe(Effect.withTracer(withSampleRatio(recording, ratio))))
    run(0)
    run(1)
    expect(seen).toEqual([
      { name: "parent", sampled: false },
      { name: "child", sampled: false },
      { name: "parent", sampled: true },
      { name: "child", sampled: true }
    ])
  })
})

describe("currentTraceId", () => {
  it("is the current span's trace id with a real tracer, undefined otherwise", async () => {
    const inSpan = Effect.gen(function*() {
      const span = yield* Effect.currentSpan
      return { id: yield* currentTraceId, traceId: span.traceId }
    }).pipe(Effect.withSpan("s"))
    const traced = await Effect.runPromise(inSpan.pipe(Effect.provide(TracingTest(new InMemorySpanExporter()))))
    expect(traced.id).toMatch(/^[0-9a-f]{32}$/)
    expect(traced.id).toBe(traced.traceId)
    expect((await Effect.runPromise(inSpan)).id).toBeUndefined() // native tracer
    expect(await Effect.runPromise(currentTraceId.pipe(Effect.provide(TracingTest(new InMemorySpanExporter())))))
      .toBeUndefined()
  })
})

describe("TracingLive", () => {
  let collector: FakeCollector
  beforeAll(async () => {
    collector = await startFakeCollector()
  })
  afterAll(() => collector?.close())

  it("installs nothing without an endpoint", async () => {
    const active = await Effect.runPromise(
      tracingActive.pipe(Effect.provide(TracingLive.pipe(Layer.provide(withEnv({})))))
    )
    expect(active).toBe(false)
  })

  it("exports spans as OTLP/HTTP JSON, with the service name and the headers, flushed on release", async () => {
    const before = collector.exports.length
    await Effect.runPromise(
      Effect.gen(function*() {
        expect(yield* tracingActive).toBe(true)
        yield* spanTree
      }).pipe(Effect.provide(TracingLive.pipe(Layer.provide(withEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "gw-test",
        OTEL_EXPORTER_OTLP_HEADERS: "x-collector-key=k1"
      })))))
    )
    const sent = collector.exports.slice(before)
    expect(sent.map((e) => e.path)).toEqual(["/v1/traces"])
    expect(sent[0]?.headers["x-collector-key"]).toBe("k1")
    const spans = collector.spans().filter((s) => s.serviceName === "gw-test")
    const parent = spans.find((s) => s.name === "parent")
    const child = spans.find((s) => s.name === "child")
    expect(child?.parentSpanId).toBe(parent?.spanId)
    expect(child?.traceId).toBe(parent?.traceId)
    expect(child?.attributes["test.attr"]).toBe("x")
  })

  it("exports protobuf by default", async () => {
    const before = collector.exports.length
    await Effect.runPromise(spanTree.pipe(Effect.provide(TracingLive.pipe(Layer.provide(withEnv({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/custom/traces`
    }))))))
    const sent = collector.exports.slice(before)
    expect(sent.map((e) => [e.path, e.contentType])).toEqual([["/custom/traces", "application/x-protobuf"]])
    expect(sent[0]!.body.length).toBeGreaterThan(0)
  })

  it("the exporter's own HTTP calls are not traced", async () => {
    const before = collector.exports.length
    await Effect.runPromise(
      Stream.runDrain(Stream.make(1, 2).pipe(Stream.withSpan("stream"))).pipe(
        Effect.provide(TracingLive.pipe(Layer.provide(withEnv({
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          OTEL_SERVICE_NAME: "gw-self"
        }))))
      )
    )
    expect(collector.exports.length - before).toBe(1)
    expect(collector.spans().filter((s) => s.serviceName === "gw-self").map((s) => s.name)).toEqual(["stream"])
    expect(Option.isNone(Option.fromNullishOr(collector.exports.at(-1)?.headers["traceparent"]))).toBe(true)
  })

  it("a gateway with TracingLive exports its request spans in the caller's trace", async () => {
    const upstream = await startFakeUpstream(() => reply.json(completion({ content: "hi" })))
    const env = {
      ...fakeGatewayEnv(upstream),
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "gw-e2e"
    }
    const gw = await startObservedGateway(env, TracingLive)
    try {
      const { key } = await gw.newKey()
      const trace = "0af7651916cd43dd8448eb211c80319c"
      const response = await postChat(gw.url, { model: "fake/m", messages: [{ role: "user", content: "hi" }] }, {
        key,
        headers: { traceparent: `00-${trace}-b7ad6b7169203331-01` }
      })
      expect(response.status).toBe(200)
      expect(response.headers.get(TRACE_ID_HEADER)).toBe(trace)
      await response.text()
      for (const path of ["/metrics", "/health"]) {
        const probe = await fetch(`${gw.url}${path}`)
        expect(probe.status).toBe(200)
        expect(probe.headers.get(TRACE_ID_HEADER)).toBeNull()
        await probe.text()
      }
      await gw.close() // flushes
      // scrapes and probes start no trace
      expect(collector.spans().filter((s) => s.serviceName === "gw-e2e" && s.name === "GET")).toEqual([])
      const names = collector.spans().filter((s) => s.serviceName === "gw-e2e" && s.traceId === trace).map((s) =>
        s.name
      )
      expect(names).toEqual(
        expect.arrayContaining(["POST", "Auth.authenticate", "Policy.toolsFor", "Provider.complete"])
      )
      expect(upstream.last().headers["traceparent"]).toMatch(new RegExp(`^00-${trace}-`))
    } finally {
      await gw.close()
      await upstream.close()
    }
  })

  it("a gateway without an endpoint records no spans and answers no trace id; the caller's trace context reaches the upstream unchanged", async () => {
    const upstream = await startFakeUpstream(() => reply.json(completion({ content: "hi" })))
    const gw = await startObservedGateway(fakeGatewayEnv(upstream), TracingLive)
    try {
      const { key } = await gw.newKey()
      const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
      const tracestate = "vendor=abc,other=1"
      const body = { model: "fake/m", messages: [{ role: "user", content: "hi" }] }
      const traced = await postChat(gw.url, body, { key, headers: { traceparent, tracestate } })
      expect(traced.status).toBe(200)
      expect(traced.headers.get(TRACE_ID_HEADER)).toBeNull()
      await traced.text()
      // the gateway takes no part in the trace: the upstream's parent is the caller's span, as sent
      expect(upstream.last().headers["traceparent"]).toBe(traceparent)
      expect(upstream.last().headers["tracestate"]).toBe(tracestate)

      // a streamed answer forwards it too; a caller without a trace gets none invented upstream
      const streamed = await postChat(gw.url, { ...body, stream: true }, { key, headers: { traceparent } })
      await streamed.text()
      expect(upstream.last().headers["traceparent"]).toBe(traceparent)
      expect(upstream.last().headers["tracestate"]).toBeUndefined()
      const plain = await postChat(gw.url, body, { key })
      expect(plain.status).toBe(200)
      await plain.text()
      expect(upstream.last().headers["traceparent"]).toBeUndefined()
      expect(upstream.last().headers["b3"]).toBeUndefined()
    } finally {
      await gw.close()
      await upstream.close()
    }
  })
})
