/**
 * The gateway's series, recorded through the `Metrics` functions and read back from the text format.
 */
import { describe, expect, it } from "vitest"
import type { RequestRecord } from "../../src/logs/RequestRecord.ts"
import { makeMetrics, type RequestObservation, upstreamErrorReason } from "../../src/observability/Metrics.ts"
import {
  ProviderError,
  ProviderUnavailable,
  UpstreamBadResponse,
  UpstreamStatus,
  UpstreamTimeout,
  UpstreamUnreachable
} from "../../src/providers/ProviderError.ts"
import { parsePrometheus, sampleValue } from "./PromText.ts"

const request = (overrides: Partial<RequestObservation> = {}): RequestObservation => ({
  status: 200,
  requestedModel: "openai/gpt-4o",
  provider: "openai",
  latencyMs: 1200,
  ttftMs: 300,
  promptTokens: 10,
  completionTokens: 20,
  cachedTokens: 4,
  reasoningTokens: 2,
  compressionLevel: "safe",
  promptTokensSaved: 0,
  promptTokensSavedNet: 0,
  shadowTokensSavedSafe: null,
  shadowTokensSavedAggressive: null,
  ...overrides
})

// compile-time: the request log's record can be handed to `observeRequest` as it is
export const recordIsObservation: (record: RequestRecord) => RequestObservation = (record) => record

const scrape = (metrics: ReturnType<typeof makeMetrics>) => parsePrometheus(metrics.render())

describe("Metrics", () => {
  it("requests, duration, ttft and tokens by label", () => {
    const metrics = makeMetrics()
    metrics.observeRequest(request())
    metrics.observeRequest(
      request({
        status: 502,
        latencyMs: 40,
        ttftMs: null,
        promptTokens: 0,
        completionTokens: 0,
        cachedTokens: 0,
        reasoningTokens: 0
      })
    )
    const f = scrape(metrics)
    const target = { model: "openai/gpt-4o", provider: "openai" }
    expect(sampleValue(f, "svc_gateway_requests_total", { ...target, status: "200" })).toBe(1)
    expect(sampleValue(f, "svc_gateway_requests_total", { ...target, status: "502" })).toBe(1)
    expect(f.get("svc_gateway_request_duration_seconds")?.type).toBe("histogram")
    expect(sampleValue(f, "svc_gateway_request_duration_seconds", target, "svc_gateway_request_duration_seconds_count"))
      .toBe(2)
    expect(sampleValue(f, "svc_gateway_request_duration_seconds", target, "svc_gateway_request_duration_seconds_sum"))
      .toBeCloseTo(1.24)
    expect(
      sampleValue(
        f,
        "svc_gateway_request_duration_seconds",
        { ...target, le: "0.05" },
        "svc_gateway_request_duration_seconds_bucket"
      )
    ).toBe(1)
    expect(sampleValue(f, "svc_gateway_ttft_seconds", target, "svc_gateway_ttft_seconds_count")).toBe(1)
    expect(sampleValue(f, "svc_gateway_ttft_seconds", { ...target, le: "0.35" }, "svc_gateway_ttft_seconds_bucket"))
      .toBe(1)
    expect(sampleValue(f, "svc_gateway_ttft_seconds", { ...target, le: "0.2" }, "svc_gateway_ttft_seconds_bucket"))
      .toBe(0)
    for (const [kind, value] of [["prompt", 10], ["completion", 20], ["cached", 4], ["reasoning", 2]] as const) {
      expect(sampleValue(f, "svc_gateway_tokens_total", { kind, model: "openai/gpt-4o" }), kind).toBe(value)
    }
  })

  it("compression's savings by level, raw and net; shadow's would-be savings by level", () => {
    const metrics = makeMetrics()
    metrics.observeRequest(request({ promptTokensSaved: 120, promptTokensSavedNet: 30 }))
    metrics.observeRequest(request({ promptTokensSaved: 80, promptTokensSavedNet: 80 }))
    metrics.observeRequest(
      request({ compressionLevel: "shadow", shadowTokensSavedSafe: 50, shadowTokensSavedAggressive: 400 })
    )
    // refused before an answer: nothing counted
    metrics.observeRequest(request({ status: 401, provider: null, compressionLevel: null, promptTokensSaved: null }))
    const f = scrape(metrics)
    expect(sampleValue(f, "svc_gateway_prompt_tokens_saved_total", { level: "safe", kind: "raw" })).toBe(200)
    expect(sampleValue(f, "svc_gateway_prompt_tokens_saved_total", { level: "safe", kind: "net" })).toBe(110)
    expect(sampleValue(f, "svc_gateway_shadow_tokens_saved_total", { level: "safe" })).toBe(50)
    expect(sampleValue(f, "svc_gateway_shadow_tokens_saved_total", { level: "aggressive" })).toBe(400)
  })

  it("a request that reached no provider counts under model and provider `none`, without tokens", () => {
    const metrics = makeMetrics()
    metrics.observeRequest(request({ status: 400, requestedModel: "made-up/model-123", provider: null, ttftMs: null }))
    metrics.observeRequest(request({ status: 401, requestedModel: null, provider: null, ttftMs: null }))
    const f = scrape(metrics)
    expect(sampleValue(f, "svc_gateway_requests_total", { status: "400", model: "none", provider: "none" })).toBe(1)
    expect(sampleValue(f, "svc_gateway_requests_total", { status: "401", model: "none", provider: "none" })).toBe(1)
    expect(f.get("svc_gateway_tokens_total")?.samples).toEqual([])
    expect(metrics.render()).not.toContain("made-up")
  })

  it("upstream errors by provider and a bounded reason; failovers by address", () => {
    const metrics = makeMetrics()
    const error = (reason: ProviderError["reason"]) => new ProviderError({ provider: "groq", reason })
    metrics.providerError(error(new UpstreamStatus({ status: 503, message: "overloaded" })))
    metrics.providerError(error(new UpstreamStatus({ status: 503, message: "overloaded again" })))
    metrics.providerError(error(new UpstreamTimeout({ phase: "first_byte" })))
    metrics.upstreamError("openai", "unreachable")
    metrics.failover("groq/llama", "openai/gpt-4o")
    const f = scrape(metrics)
    expect(sampleValue(f, "svc_gateway_upstream_errors_total", { provider: "groq", reason: "status_503" })).toBe(2)
    expect(sampleValue(f, "svc_gateway_upstream_errors_total", { provider: "groq", reason: "timeout_first_byte" }))
      .toBe(1)
    expect(sampleValue(f, "svc_gateway_upstream_errors_total", { provider: "openai", reason: "unreachable" })).toBe(1)
    expect(sampleValue(f, "svc_gateway_failovers_total", { from: "groq/llama", to: "openai/gpt-4o" })).toBe(1)
    expect([
      upstreamErrorReason(error(new UpstreamUnreachable({ message: "refused" }))),
      upstreamErrorReason(error(new UpstreamBadResponse({ message: "not json" }))),
      upstreamErrorReason(error(new ProviderUnavailable({ message: "no key" }))),
      upstreamErrorReason(error(new UpstreamStatus({ status: 7, message: "odd" })))
    ]).toEqual(["unreachable", "bad_response", "unavailable", "status_other"])
  })

  it("log queue depth and dropped rows come from the registered source, 0 before one is set", () => {
    const metrics = makeMetrics()
    expect(sampleValue(scrape(metrics), "svc_gateway_log_queue_depth")).toBe(0)
    let stats = { queueDepth: 12, rowsDropped: 3 }
    metrics.setLogStats(() => stats)
    let f = scrape(metrics)
    expect(sampleValue(f, "svc_gateway_log_queue_depth")).toBe(12)
    expect(f.get("svc_gateway_log_queue_depth")?.type).toBe("gauge")
    expect(sampleValue(f, "svc_gateway_log_rows_dropped_total")).toBe(3)
    expect(f.get("svc_gateway_log_rows_dropped_total")?.type).toBe("counter")
    stats = { queueDepth: 0, rowsDropped: 5 }
    f = scrape(metrics)
    expect([sampleValue(f, "svc_gateway_log_queue_depth"), sampleValue(f, "svc_gateway_log_rows_dropped_total")])
      .toEqual([0, 5])
  })

  it("process basics are there", () => {
    const f = scrape(makeMetrics())
    expect(sampleValue(f, "process_resident_memory_bytes")).toBeGreaterThan(0)
    expect(sampleValue(f, "process_cpu_seconds_total")).toBeGreaterThan(0)
    expect(Math.abs(sampleValue(f, "process_start_time_seconds")! - (Date.now() / 1000 - process.uptime())))
      .toBeLessThan(5)
  })

  it("caps label sets per family at `maxSeries`", () => {
    const metrics = makeMetrics({ maxSeries: 2 })
    for (const model of ["a/1", "a/2", "a/3", "a/4"]) metrics.observeRequest(request({ requestedModel: model }))
    const f = scrape(metrics)
    expect(sampleValue(f, "svc_gateway_requests_total", { model: "other", provider: "other", status: "other" })).toBe(2)
    expect(f.get("svc_gateway_requests_total")?.samples).toHaveLength(3)
  })
})
