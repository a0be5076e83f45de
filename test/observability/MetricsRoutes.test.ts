/**
 * `GET /metrics` over a real socket: open by default, guarded by `GATEWAY_METRICS_TOKEN` when set,
 * answering the registry in the text format with its content type.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { HttpClient, HttpClientRequest, HttpRouter } from "effect/http"
import { Metrics } from "../../src/observability/Metrics.ts"
import { MetricsRoutes } from "../../src/observability/MetricsRoutes.ts"
import { parsePrometheus, sampleValue } from "./PromText.ts"

const serve = (env: Record<string, string>) =>
  HttpRouter.serve(MetricsRoutes, { disableListenLog: true, disableLogger: true }).pipe(
    Layer.provideMerge(NodeHttpServer.layerTest),
    Layer.provideMerge(Metrics.layer),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env)))
  )

const scrape = (authorization?: string) =>
  HttpClient.execute(
    authorization === undefined
      ? HttpClientRequest.get("/metrics")
      : HttpClientRequest.get("/metrics").pipe(HttpClientRequest.setHeader("authorization", authorization))
  )

describe("GET /metrics", () => {
  layer(serve({}))("without GATEWAY_METRICS_TOKEN", (it) => {
    it.effect("is open and answers the text format 0.0.4 with what was recorded", () =>
      Effect.gen(function*() {
        const metrics = yield* Metrics
        metrics.failover("groq/llama", "openai/gpt-4o")
        metrics.failover("groq/llama", "openai/gpt-4o")
        const response = yield* scrape()
        assert.strictEqual(response.status, 200)
        assert.strictEqual(response.headers["content-type"], "text/plain; version=0.0.4; charset=utf-8")
        assert.strictEqual(response.headers["cache-control"], "no-store")
        const families = parsePrometheus(yield* response.text)
        assert.strictEqual(
          sampleValue(families, "svc_gateway_failovers_total", { from: "groq/llama", to: "openai/gpt-4o" }),
          2
        )
        for (
          const name of [
            "svc_gateway_requests_total",
            "svc_gateway_request_duration_seconds",
            "svc_gateway_ttft_seconds",
            "svc_gateway_tokens_total",
            "svc_gateway_upstream_errors_total",
            "svc_gateway_failovers_total",
            "svc_gateway_log_queue_depth",
            "svc_gateway_log_rows_dropped_total",
            "process_resident_memory_bytes"
          ]
        ) expect(families.has(name), name).toBe(true)
      }))
  })

  layer(serve({ GATEWAY_METRICS_TOKEN: "scrape-secret" }))("with GATEWAY_METRICS_TOKEN", (it) => {
    it.effect("needs the bearer token", () =>
      Effect.gen(function*() {
        for (
          const authorization of [undefined, "Bearer wrong", "Basic scrape-secret", "Bearer scrape-secret-and-more"]
        ) {
          const response = yield* scrape(authorization)
          assert.strictEqual(response.status, 401, String(authorization))
          assert.strictEqual(response.headers["www-authenticate"], "Bearer")
          const body = (yield* response.json) as { readonly error: { readonly code: string; readonly type: string } }
          assert.deepStrictEqual([body.error.type, body.error.code], ["authentication_error", "invalid_metrics_token"])
        }
        const ok = yield* scrape("Bearer scrape-secret")
        assert.strictEqual(ok.status, 200)
        assert.isTrue(parsePrometheus(yield* ok.text).has("svc_gateway_requests_total"))
      }))
  })

  layer(serve({ GATEWAY_METRICS_TOKEN: "" }))("with GATEWAY_METRICS_TOKEN set empty", (it) => {
    it.effect("is open, as when unset", () =>
      Effect.gen(function*() {
        assert.strictEqual((yield* scrape()).status, 200)
      }))
  })
})
