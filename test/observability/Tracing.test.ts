/**
 * Spans of real requests, read from an in-memory exporter: the server span continues the caller's
 * `traceparent`, auth, policy and the upstream attempt are its descendants, the upstream receives a
 * `traceparent` of the same trace (its parent is the HTTP client span), the response carries the trace
 * id in `x-trace-id`, and a shared-tool run has its `SvcTool.run` span.
 */
import { SpanKind } from "@opentelemetry/api"
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { GEN_AI } from "../../src/observability/GenAi.ts"
import { TRACE_ID_HEADER } from "../../src/observability/TraceHeaders.ts"
import { TracingTest } from "../../src/observability/TracingLayer.ts"
import {
  completion,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  textStream,
  usage
} from "../utils/FakeUpstream.ts"
import { createCaller, setOrgTool } from "../utils/SharedToolsHarness.ts"
import { postChat } from "../utils/TestGateway.ts"
import { type ObservedGateway, startObservedGateway } from "./ObservedGateway.ts"

const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
const CALLER_SPAN = "00f067aa0ba902b7"
const traceparent = (sampled = true) => `00-${CALLER_TRACE}-${CALLER_SPAN}-${sampled ? "01" : "00"}`

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId
const named = (spans: ReadonlyArray<ReadableSpan>, name: string) => spans.filter((s) => s.name === name)
const one = (spans: ReadonlyArray<ReadableSpan>, name: string): ReadableSpan => {
  const found = named(spans, name)
  expect(found.map((s) => s.name), `spans named ${name} among ${spans.map((s) => s.name).join(", ")}`).toEqual([name])
  return found[0]!
}
/** A chat request's server span (Effect names it after the method: `POST`); admin calls' are not. */
const isChatServer = (span: ReadableSpan) =>
  span.kind === SpanKind.SERVER && span.attributes["http.route"] === "/v1/chat/completions"
const serverSpan = (spans: ReadonlyArray<ReadableSpan>): ReadableSpan => {
  const found = spans.filter(isChatServer)
  expect(found, "one server span").toHaveLength(1)
  return found[0]!
}
/** Whether `span` descends from `ancestor` within `spans`. */
const descends = (spans: ReadonlyArray<ReadableSpan>, span: ReadableSpan, ancestor: ReadableSpan): boolean => {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]))
  for (let at = parentOf(span); at !== undefined; at = byId.get(at) && parentOf(byId.get(at)!)) {
    if (at === ancestor.spanContext().spanId) return true
  }
  return false
}

/** Spans end a moment after the response is written; wait until the server span is exported. */
const settle = async (exporter: InMemorySpanExporter, count = 1): Promise<ReadonlyArray<ReadableSpan>> => {
  for (let i = 0; i < 100; i++) {
    const spans = exporter.getFinishedSpans()
    if (spans.filter(isChatServer).length >= count) return spans
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`no server span; got ${exporter.getFinishedSpans().map((s) => s.name).join(", ")}`)
}

describe("tracing a chat request end to end", () => {
  const exporter = new InMemorySpanExporter()
  let gw: ObservedGateway
  let upstream: FakeUpstream
  let key: string

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    gw = await startObservedGateway(fakeGatewayEnv(upstream), TracingTest(exporter))
    key = (await gw.newKey()).key
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })
  beforeEach(() => {
    exporter.reset()
    upstream.reset()
  })

  const ask = (stream: boolean, headers: Record<string, string> = {}) =>
    postChat(gw.url, {
      model: "fake/some-model",
      messages: [{ role: "user", content: "hi" }],
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {})
    }, { key, headers })

  it("continues the caller's trace; auth, policy and the attempt are inside it; the upstream gets a traceparent", async () => {
    upstream.handle(() => reply.json(completion({ content: "hello", model: "some-model-2024", usage: usage(7, 2) })))
    const response = await ask(false, { traceparent: traceparent() })
    expect(response.status).toBe(200)
    await response.text()
    const spans = await settle(exporter)

    const server = serverSpan(spans)
    expect(server.spanContext().traceId).toBe(CALLER_TRACE)
    expect(parentOf(server)).toBe(CALLER_SPAN)
    expect(server.name).toBe("POST")
    expect(server.attributes).toMatchObject({ "http.response.status_code": 200, "http.route": "/v1/chat/completions" })
    expect(response.headers.get(TRACE_ID_HEADER)).toBe(CALLER_TRACE)

    for (const name of ["Auth.authenticate", "Policy.toolsFor", "Provider.complete"]) {
      const span = one(spans, name)
      expect(span.spanContext().traceId, name).toBe(CALLER_TRACE)
      expect(descends(spans, span, server), `${name} under the server span`).toBe(true)
    }
    const attempt = one(spans, "Provider.complete")
    expect(attempt.attributes["gateway.provider"]).toBe("fake")

    // the upstream request carries the trace; its parent is the client span, inside the attempt
    const sent = TRACEPARENT.exec(String(upstream.last().headers["traceparent"]))
    expect(sent?.[1]).toBe(CALLER_TRACE)
    const client = spans.find((s) => s.spanContext().spanId === sent?.[2])
    expect(client?.kind).toBe(SpanKind.CLIENT)
    expect(client?.attributes["http.request.method"]).toBe("POST")
    expect(descends(spans, client!, attempt)).toBe(true)
  })

  it("starts a trace when the caller sends none, and answers its id", async () => {
    upstream.handle(() => reply.json(completion({ content: "hello" })))
    const response = await ask(false)
    await response.text()
    const spans = await settle(exporter)
    const server = serverSpan(spans)
    expect(parentOf(server)).toBeUndefined()
    expect(response.headers.get(TRACE_ID_HEADER)).toBe(server.spanContext().traceId)
    expect(TRACEPARENT.exec(String(upstream.last().headers["traceparent"]))?.[1]).toBe(server.spanContext().traceId)
  })

  it("a caller's unsampled trace is followed: nothing exported, no trace id answered", async () => {
    upstream.handle(() => reply.json(completion({ content: "hello" })))
    const response = await ask(false, { traceparent: traceparent(false) })
    await response.text()
    expect(upstream.last().headers["traceparent"]).toMatch(new RegExp(`^00-${CALLER_TRACE}-[0-9a-f]{16}-00$`))
    // a sampled request after it: once its spans are exported, the unsampled one's would have been too
    const next = await ask(false)
    await next.text()
    const spans = await settle(exporter)
    const sampled = next.headers.get(TRACE_ID_HEADER)
    expect(sampled).toMatch(/^[0-9a-f]{32}$/)
    expect(spans.filter((span) => span.spanContext().traceId !== sampled)).toEqual([])
    expect(response.headers.get(TRACE_ID_HEADER)).toBeNull()
  })

  it("a streamed attempt has its span in the trace", async () => {
    upstream.handle(() => reply.sse(textStream(["a", "b"])))
    const response = await ask(true, { traceparent: traceparent() })
    expect(await response.text()).toContain("[DONE]")
    const spans = await settle(exporter)
    const attempt = one(spans, "Provider.stream")
    expect(attempt.spanContext().traceId).toBe(CALLER_TRACE)
    expect(descends(spans, attempt, serverSpan(spans))).toBe(true)
    expect(TRACEPARENT.exec(String(upstream.last().headers["traceparent"]))?.[1]).toBe(CALLER_TRACE)
  })

  it("upstream attempt spans carry the GenAI attributes", async () => {
    upstream.handle((request) =>
      request.body.stream === true
        ? reply.sse(textStream(["a", "b"], usage(11, 2)))
        : reply.json(completion({ content: "hello", model: "some-model-2024", usage: usage(7, 2) }))
    )
    await (await ask(false)).text()
    await (await ask(true)).text()
    const spans = await settle(exporter, 2)
    const whole = one(spans, "Provider.complete")
    expect(whole.attributes).toMatchObject({
      [GEN_AI.system]: "fake",
      [GEN_AI.requestModel]: "some-model",
      [GEN_AI.responseModel]: "some-model-2024",
      [GEN_AI.inputTokens]: 7,
      [GEN_AI.outputTokens]: 2
    })
    expect(one(spans, "Provider.stream").attributes).toMatchObject({
      [GEN_AI.system]: "fake",
      [GEN_AI.requestModel]: "some-model",
      [GEN_AI.responseModel]: "some-model-2024",
      [GEN_AI.inputTokens]: 11,
      [GEN_AI.outputTokens]: 2
    })
  })

  it("a shared-tool run has its SvcTool.run span in the request's trace", async () => {
    const caller = await createCaller(gw)
    await setOrgTool(gw, caller.orgId, "svc_current_time", { activated: true })
    const response = await postChat(gw.url, {
      model: "local/echo",
      messages: [{ role: "user", content: "call svc_current_time {\"timezone\":\"UTC\"}" }],
      svc_tool_ids: ["svc_current_time"]
    }, { key: caller.key, headers: { traceparent: traceparent() } })
    expect(response.status).toBe(200)
    await response.text()
    const spans = await settle(exporter)
    const run = one(spans, "SvcTool.run")
    expect(run.spanContext().traceId).toBe(CALLER_TRACE)
    expect(spans.filter((s) => s.spanContext().traceId === CALLER_TRACE && s.kind === SpanKind.SERVER)).toHaveLength(1)
    expect(run.attributes).toMatchObject({ "svc.tool.id": "svc_current_time", "svc.tool.outcome": "ok" })
    expect(descends(spans, run, serverSpan(spans))).toBe(true)
    expect(named(spans, "Provider.complete").filter((s) => s.spanContext().traceId === CALLER_TRACE)).toHaveLength(2)
  })

  it("a secret in the query string never reaches a span: refused requests' URLs are redacted", async () => {
    const query = "?api_key=sk-query-secret-1&token=tok-query-secret-2&client_secret=cs-3&Signature=sig-4&model=m"
    const refused = await postChat(gw.url, { model: "local/echo", messages: [] }, {
      path: `/v1/chat/completions${query}`
    })
    expect(refused.status).toBe(401)
    const missing = await fetch(`${gw.url}/nowhere${query}`)
    expect(missing.status).toBe(404)
    await settle(exporter)
    await expect.poll(() => exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER).length)
      .toBeGreaterThanOrEqual(2)
    const attributes = JSON.stringify(exporter.getFinishedSpans().map((s) => s.attributes))
    for (const secret of ["sk-query-secret-1", "tok-query-secret-2", "cs-3", "sig-4"]) {
      expect(attributes).not.toContain(secret)
    }
    // what is no secret stays readable
    expect(attributes).toContain("model=m")
    expect(attributes).toContain("api_key=REDACTED")
  })
})
