/**
 * Where spans go. `TracingLive` exports them by OTLP/HTTP (Effect's own OTLP tracer, no OTel SDK on the
 * hot path) when the standard OpenTelemetry variables name an endpoint, and installs nothing otherwise:
 * Effect keeps its native tracer, whose spans the HTTP server does not even create, so a gateway
 * without tracing pays nothing for it. `TracingTest(exporter)` sends spans to an OTel SDK exporter
 * (`InMemorySpanExporter` in tests).
 *
 * Variables read (the OpenTelemetry names; `TRACES_` variants win over the general ones):
 * - `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as is) or `OTEL_EXPORTER_OTLP_ENDPOINT` (+ `/v1/traces`):
 *   tracing is on only when one of them is set. `OTEL_SERVICE_NAME` alone does not turn it on.
 * - `OTEL_SERVICE_NAME` (default `svc-gateway`), `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_SERVICE_VERSION`.
 * - `OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL`: `http/protobuf` (default) or `http/json`; `grpc` is not
 *   supported (a warning, and no tracing).
 * - `OTEL_EXPORTER_OTLP_[TRACES_]HEADERS` (`k=v,k2=v2`, URL-encoded values),
 *   `OTEL_EXPORTER_OTLP_[TRACES_]COMPRESSION` (`gzip`|`none`), `OTEL_BSP_SCHEDULE_DELAY` (ms, default 5000).
 * - `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`: off.
 * - `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG`: `always_on` (default), `always_off`,
 *   `traceidratio` / `parentbased_traceidratio` with a ratio. Only requests that start a trace are
 *   sampled by the ratio; a request continuing a caller's trace follows the caller's sampled flag.
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import type * as OtelResource from "@effect/opentelemetry/Resource"
import { SimpleSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base"
import { Config, Duration, Effect, Layer, Option, References, Tracer } from "effect"
import { FetchHttpClient, HttpMiddleware } from "effect/http"
import { OtlpExporter, OtlpSerialization, OtlpTracer } from "effect/observability"

export const DEFAULT_SERVICE_NAME = "svc-gateway"

/** Scrapes and probes: a trace each every few seconds would drown the real ones. */
export const UNTRACED_PATHS: ReadonlyArray<string> = ["/metrics", "/health", "/ready"]

export interface TracingSettings {
  /** The full traces URL, e.g. `http://collector:4318/v1/traces`. */
  readonly url: string
  readonly serviceName: string
  readonly protocol: "http/protobuf" | "http/json"
  readonly headers: Readonly<Record<string, string>>
  readonly compression: "gzip" | "none"
  readonly exportInterval: Duration.Duration
  /** Share of new traces kept, 0 to 1. */
  readonly sampleRatio: number
}

export type TracingDecision =
  | { readonly _tag: "Off"; readonly warning?: string }
  | { readonly _tag: "On"; readonly settings: TracingSettings }

const text = (name: string) =>
  Config.String(name).pipe(
    Config.option,
    Config.map((value) => Option.getOrUndefined(Option.filter(Option.map(value, (v) => v.trim()), (v) => v !== "")))
  )

/** The OpenTelemetry variables this module reads, unset or empty ones as undefined. */
export interface TracingEnv {
  readonly OTEL_SDK_DISABLED?: string | undefined
  readonly OTEL_TRACES_EXPORTER?: string | undefined
  readonly OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined
  readonly OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined
  readonly OTEL_SERVICE_NAME?: string | undefined
  readonly OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?: string | undefined
  readonly OTEL_EXPORTER_OTLP_PROTOCOL?: string | undefined
  readonly OTEL_EXPORTER_OTLP_TRACES_HEADERS?: string | undefined
  readonly OTEL_EXPORTER_OTLP_HEADERS?: string | undefined
  readonly OTEL_EXPORTER_OTLP_TRACES_COMPRESSION?: string | undefined
  readonly OTEL_EXPORTER_OTLP_COMPRESSION?: string | undefined
  readonly OTEL_BSP_SCHEDULE_DELAY?: string | undefined
  readonly OTEL_TRACES_SAMPLER?: string | undefined
  readonly OTEL_TRACES_SAMPLER_ARG?: string | undefined
}

/** `k=v,k2=v2` with URL-encoded values, as `OTEL_EXPORTER_OTLP_HEADERS` is written. */
export const parseHeaders = (value: string | undefined): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const pair of (value ?? "").split(",")) {
    const at = pair.indexOf("=")
    if (at <= 0) continue
    const key = pair.slice(0, at).trim().toLowerCase()
    try {
      headers[key] = decodeURIComponent(pair.slice(at + 1).trim())
    } catch {
      headers[key] = pair.slice(at + 1).trim()
    }
  }
  return headers
}

const tracesUrl = (env: TracingEnv): string | undefined => {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT
  if (base === undefined) return undefined
  return `${base.replace(/\/+$/, "")}/v1/traces`
}

const sampleRatio = (sampler: string | undefined, arg: string | undefined): number | string => {
  switch (sampler ?? "always_on") {
    case "always_on":
    case "parentbased_always_on":
      return 1
    case "always_off":
    case "parentbased_always_off":
      return 0
    case "traceidratio":
    case "parentbased_traceidratio": {
      const ratio = arg === undefined ? 1 : Number(arg)
      return Number.isFinite(ratio) && ratio >= 0 && ratio <= 1
        ? ratio
        : `OTEL_TRACES_SAMPLER_ARG '${arg}' is not a ratio between 0 and 1`
    }
    default:
      return `OTEL_TRACES_SAMPLER '${sampler}' is not supported`
  }
}

/** Whether and how to export, from the OpenTelemetry variables (a pure function, for tests). */
export const decideTracing = (env: TracingEnv): TracingDecision => {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === "true") return { _tag: "Off" }
  const exporters = env.OTEL_TRACES_EXPORTER?.toLowerCase().split(",").map((e) => e.trim())
  if (exporters !== undefined && !exporters.includes("otlp")) return { _tag: "Off" }
  const url = tracesUrl(env)
  if (url === undefined) return { _tag: "Off" }
  const off = (warning: string): TracingDecision => ({ _tag: "Off", warning: `tracing disabled: ${warning}` })
  try {
    new URL(url)
  } catch {
    return off(`the OTLP traces endpoint '${url}' is not a URL`)
  }
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf"
  if (protocol !== "http/protobuf" && protocol !== "http/json") {
    return off(`OTLP protocol '${protocol}' is not supported; use http/protobuf or http/json`)
  }
  const compression = (env.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION ?? env.OTEL_EXPORTER_OTLP_COMPRESSION) === "gzip"
    ? "gzip"
    : "none"
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY ?? "5000")
  const ratio = sampleRatio(env.OTEL_TRACES_SAMPLER, env.OTEL_TRACES_SAMPLER_ARG)
  if (typeof ratio === "string") return off(ratio)
  return {
    _tag: "On",
    settings: {
      url,
      serviceName: env.OTEL_SERVICE_NAME ?? DEFAULT_SERVICE_NAME,
      protocol,
      headers: parseHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS ?? env.OTEL_EXPORTER_OTLP_HEADERS),
      compression,
      exportInterval: Duration.millis(Number.isFinite(delay) && delay > 0 ? delay : 5000),
      sampleRatio: ratio
    }
  }
}

/** The decision from the current `ConfigProvider` (the process environment by default). */
export const tracingDecision: Effect.Effect<TracingDecision, Config.ConfigError> = Effect.map(
  Config.all({
    OTEL_SDK_DISABLED: text("OTEL_SDK_DISABLED"),
    OTEL_TRACES_EXPORTER: text("OTEL_TRACES_EXPORTER"),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: text("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
    OTEL_EXPORTER_OTLP_ENDPOINT: text("OTEL_EXPORTER_OTLP_ENDPOINT"),
    OTEL_SERVICE_NAME: text("OTEL_SERVICE_NAME"),
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: text("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"),
    OTEL_EXPORTER_OTLP_PROTOCOL: text("OTEL_EXPORTER_OTLP_PROTOCOL"),
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: text("OTEL_EXPORTER_OTLP_TRACES_HEADERS"),
    OTEL_EXPORTER_OTLP_HEADERS: text("OTEL_EXPORTER_OTLP_HEADERS"),
    OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: text("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"),
    OTEL_EXPORTER_OTLP_COMPRESSION: text("OTEL_EXPORTER_OTLP_COMPRESSION"),
    OTEL_BSP_SCHEDULE_DELAY: text("OTEL_BSP_SCHEDULE_DELAY"),
    OTEL_TRACES_SAMPLER: text("OTEL_TRACES_SAMPLER"),
    OTEL_TRACES_SAMPLER_ARG: text("OTEL_TRACES_SAMPLER_ARG")
  }),
  decideTracing
)

/**
 * A tracer that keeps a `ratio` share of new traces: only spans without a parent are decided here;
 * Effect gives every child its parent's decision, and a remote parent (`traceparent`) carries its own.
 */
export const withSampleRatio = (tracer: Tracer.Tracer, ratio: number): Tracer.Tracer =>
  ratio >= 1 ? tracer : Tracer.make({
    span: (options) =>
      tracer.span(
        Option.isNone(options.parent) && options.sampled ? { ...options, sampled: Math.random() < ratio } : options
      ),
    context: tracer.context
  })

/**
 * Effect's OTLP/HTTP tracer for these settings, over `fetch`, flushed when the layer is released; no
 * server spans for `UNTRACED_PATHS`.
 */
export const otlpTracing = (settings: TracingSettings): Layer.Layer<never> =>
  Layer.merge(tracer(settings), HttpMiddleware.layerTracerDisabledForUrls(UNTRACED_PATHS))

const tracer = (settings: TracingSettings): Layer.Layer<never> =>
  Layer.effect(
    Tracer.Tracer,
    Effect.map(
      OtlpTracer.make({
        url: settings.url,
        resource: { serviceName: settings.serviceName },
        headers: settings.headers,
        compression: settings.compression,
        exportInterval: settings.exportInterval
      }),
      (tracer) => withSampleRatio(tracer, settings.sampleRatio)
    )
  ).pipe(Layer.provide([
    OtlpExporter.layerFlusher,
    settings.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf,
    FetchHttpClient.layer
  ]))

/**
 * OTLP/HTTP span export when `OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT` is set; nothing at all otherwise.
 * Provide it outermost (it must be in the context the HTTP server is built in, and released last so
 * the spans of the shutdown still leave).
 */
export const TracingLive: Layer.Layer<never, Config.ConfigError> = Layer.unwrap(Effect.gen(function*() {
  const decision = yield* tracingDecision
  if (decision._tag === "Off") {
    if (decision.warning !== undefined) yield* Effect.logWarning(decision.warning)
    // No spans at all, not even Effect's native ones that nobody reads: a server span per request costs
    // ids, a context copy and its end. The caller's trace context still reaches the upstream (`TraceHeaders.ts`).
    return Layer.succeed(References.TracerEnabled, false)
  }
  return otlpTracing(decision.settings)
}))

/** Every span to an OTel SDK exporter, synchronously as each span ends (tests: `InMemorySpanExporter`). */
export const TracingTest = (
  exporter: SpanExporter,
  serviceName: string = DEFAULT_SERVICE_NAME
): Layer.Layer<OtelResource.Resource> =>
  NodeSdk.layer(() => ({ resource: { serviceName }, spanProcessor: new SimpleSpanProcessor(exporter) }))
