/**
 * Metrics through a real gateway: `/metrics` is served next to the API, and a request that fails over
 * shows up in the retry, failover and upstream-error counters, and in the request counters.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TracingLive } from "../../src/observability/TracingLayer.ts"
import { completion, fakeGatewayEnv, type FakeUpstream, reply, startFakeUpstream } from "../utils/FakeUpstream.ts"
import { completionOf, postChat } from "../utils/TestGateway.ts"
import { type ObservedGateway, startObservedGateway } from "./ObservedGateway.ts"
import { parsePrometheus, sampleValue } from "./PromText.ts"

describe("metrics of a gateway", () => {
  let gw: ObservedGateway
  let upstream: FakeUpstream
  let key: string

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) =>
      request.body.model === "backup"
        ? reply.json(completion({ content: "from backup" }))
        : reply.error(503, "The engine is currently overloaded.", { type: "server_error" })
    )
    gw = await startObservedGateway(
      fakeGatewayEnv(upstream, {
        fallbacks: { "fake/primary": ["fake/backup"] },
        env: { GATEWAY_METRICS_TOKEN: "m-token", GATEWAY_UPSTREAM_RETRY_BACKOFF: "5 millis" }
      }),
      TracingLive
    )
    key = (await gw.newKey()).key
    await completionOf(
      await postChat(gw.url, { model: "fake/primary", messages: [{ role: "user", content: "hi" }] }, { key })
    )
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })

  const scrape = async () => {
    const response = await fetch(`${gw.url}/metrics`, { headers: { authorization: "Bearer m-token" } })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
    return parsePrometheus(await response.text())
  }

  it("serves /metrics next to the API, behind its token", async () => {
    expect((await fetch(`${gw.url}/metrics`)).status).toBe(401)
    expect((await scrape()).has("svc_gateway_requests_total")).toBe(true)
  })

  it("counts the failed attempts, the retries and the failover", async () => {
    const families = await scrape()
    // a 503 is called three times (two retries) before the move to the backup
    expect(sampleValue(families, "svc_gateway_failovers_total", { from: "fake/primary", to: "fake/backup" })).toBe(1)
    expect(sampleValue(families, "svc_gateway_upstream_errors_total", { provider: "fake", reason: "status_503" })).toBe(
      3
    )
    expect(sampleValue(families, "svc_gateway_upstream_retries_total", { target: "fake/primary" })).toBe(2)
  })

  it("counts the request under the address the client used", async () => {
    const families = await scrape()
    expect(
      sampleValue(families, "svc_gateway_requests_total", { status: "200", model: "fake/primary", provider: "fake" })
    ).toBe(1)
    expect(sampleValue(families, "svc_gateway_tokens_total", { kind: "prompt", model: "fake/primary" })).toBe(5)
  })
})
