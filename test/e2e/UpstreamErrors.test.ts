/**
 * Upstream failures as the client sees them, over raw `fetch` (and the SDK where its behaviour is the
 * point): the provider's 4xx passed through with its status and message, 5xx and broken connections as
 * 502, a silent upstream as 504, and failures after the SSE headers as a last `data: {"error":...}`
 * event with no `[DONE]`. The gateway runs with short upstream timeouts.
 */
import OpenAI from "openai"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  chunk,
  fakeGatewayEnv,
  type FakeUpstream,
  refusedUrl,
  reply,
  startFakeUpstream,
  textStream
} from "../utils/FakeUpstream.ts"
import {
  expectError,
  expectErrorBody,
  postChat,
  sseData,
  startGateway,
  type TestGateway
} from "../utils/TestGateway.ts"

const FIRST_BYTE_MS = 400
const IDLE_MS = 400
const ask = (model: string, stream = false) => ({
  model,
  messages: [{ role: "user", content: "hi" }],
  ...(stream ? { stream: true } : {})
})

describe("upstream errors", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let key: string

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    const dead = await refusedUrl()
    gw = await startGateway(fakeGatewayEnv(upstream, {
      providers: { dead: { adapter: "openai-compatible", base_url: `${dead}/v1`, api_key_env: "FAKE_KEY" } },
      env: {
        GATEWAY_UPSTREAM_FIRST_BYTE_TIMEOUT: `${FIRST_BYTE_MS} millis`,
        GATEWAY_UPSTREAM_IDLE_TIMEOUT: `${IDLE_MS} millis`,
        // every case here fails the same target: retried quickly, and never skipped by its breaker
        GATEWAY_UPSTREAM_RETRY_BACKOFF: "5 millis",
        GATEWAY_CIRCUIT_FAILURES: "0"
      }
    }))
    key = (await gw.newKey()).key
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })
  beforeEach(() => upstream.reset())

  const chat = (body: unknown) => postChat(gw.url, body, { key })

  /** A streamed response read to its end: the data payloads, the last one parsed. */
  const readStream = async (response: Response) => {
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
    const events = sseData(await response.text())
    return { events, last: JSON.parse(events.at(-1) ?? "null") as unknown }
  }

  describe("the provider's 4xx passes through with its status and message", () => {
    const cases = [
      {
        status: 400,
        message: "Invalid value for 'temperature': must be <= 2.",
        type: "invalid_request_error",
        code: "invalid_value",
        param: "temperature"
      },
      {
        status: 404,
        message: "The model 'some-model' does not exist or you do not have access to it.",
        type: "invalid_request_error",
        code: "model_not_found",
        param: null
      },
      {
        status: 429,
        message: "Rate limit reached for some-model: 3 requests per minute.",
        type: "requests",
        code: "rate_limit_exceeded",
        param: null
      }
    ] as const
    for (const c of cases) {
      it(`upstream ${c.status}, whole and streamed`, async () => {
        upstream.handle(() => reply.error(c.status, c.message, c))
        for (const stream of [false, true]) {
          const error = await expectError(await chat(ask("fake/some-model", stream)), c.status, {
            type: c.type,
            code: c.code,
            param: c.param
          })
          expect(error.message).toBe(c.message)
        }
        // a 429 is retried twice on the same target before the client gets it; other 4xx never
        expect(upstream.chatRequests()).toHaveLength(c.status === 429 ? 6 : 2)
      })
    }

    it("the SDK raises the provider's status and message", async () => {
      upstream.handle(() => reply.error(429, "Slow down.", { type: "requests", code: "rate_limit_exceeded" }))
      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 })
      const failure = await client.chat.completions.create({
        model: "fake/some-model",
        messages: [{ role: "user", content: "hi" }]
      })
        .then(() => undefined, (error: unknown) => error)
      expect(failure).toBeInstanceOf(OpenAI.RateLimitError)
      expect((failure as InstanceType<typeof OpenAI.RateLimitError>).message).toContain("Slow down.")
      expect((failure as InstanceType<typeof OpenAI.RateLimitError>).code).toBe("rate_limit_exceeded")
    })
  })

  it("upstream 500 is 502, whole and streamed", async () => {
    upstream.handle(() =>
      reply.error(500, "The server had an error while processing your request.", { type: "server_error" })
    )
    for (const stream of [false, true]) {
      const error = await expectError(await chat(ask("fake/some-model", stream)), 502, { type: "upstream_error" })
      expect(error.message).toContain("fake")
      expect(error.message).toContain("500")
    }
  })

  it("an upstream that answers garbage is 502", async () => {
    upstream.handle(() => reply.json("<html>bad gateway</html>"))
    const error = await expectError(await chat(ask("fake/some-model")), 502, { type: "upstream_error" })
    expect(error.message).toContain("fake")
  })

  it("a refused connection is 502, whole and streamed", async () => {
    for (const stream of [false, true]) {
      const error = await expectError(await chat(ask("dead/some-model", stream)), 502, {
        type: "upstream_error",
        code: "upstream_unreachable"
      })
      expect(error.message).toContain("dead")
    }
  })

  it("an upstream that sends no headers in time is 504, and the gateway drops that request", async () => {
    upstream.handle(() => reply.hang)
    for (const stream of [false, true]) {
      const started = Date.now()
      const error = await expectError(await chat(ask("fake/some-model", stream)), 504, {
        type: "upstream_error",
        code: "upstream_timeout"
      })
      const elapsed = Date.now() - started
      expect(elapsed).toBeGreaterThanOrEqual(FIRST_BYTE_MS - 50)
      expect(elapsed).toBeLessThan(FIRST_BYTE_MS + 2500)
      expect(error.message).toMatch(/timed out/)
      expect(await upstream.last().waitForClientClose(1000)).toBe(true)
    }
  })

  describe("after the SSE headers: a last error event and no [DONE]", () => {
    it("the upstream closes the socket mid-stream", async () => {
      upstream.handle(() =>
        reply.sse([chunk({ role: "assistant", content: "" }), chunk({ content: "half an" })], { end: "destroy" })
      )
      const { events, last } = await readStream(await chat(ask("fake/some-model", true)))
      expect(events).not.toContain("[DONE]")
      expect(events.some((e) => e.includes("half an"))).toBe(true)
      expect(expectErrorBody(last, { type: "upstream_error" }).message).toContain("fake")
    })

    it("the upstream sends an error event", async () => {
      upstream.handle(() =>
        reply.sse([
          chunk({ role: "assistant", content: "" }),
          chunk({ content: "partial" }),
          { error: { message: "The model is overloaded.", type: "server_error", param: null, code: null } }
        ], { end: "end" })
      )
      const { events, last } = await readStream(await chat(ask("fake/some-model", true)))
      expect(events).not.toContain("[DONE]")
      expect(events.some((e) => e.includes("partial"))).toBe(true)
      expect(expectErrorBody(last).message).toContain("The model is overloaded.")
    })

    it("the upstream ends the body without [DONE]", async () => {
      upstream.handle(() => reply.sse(textStream(["cut"]).slice(0, 2), { end: "end" }))
      const { events, last } = await readStream(await chat(ask("fake/some-model", true)))
      expect(events).not.toContain("[DONE]")
      expect(expectErrorBody(last, { type: "upstream_error" }).message.length).toBeGreaterThan(0)
    })

    it("the upstream goes silent mid-stream (idle timeout)", async () => {
      upstream.handle(() =>
        reply.sse([chunk({ role: "assistant", content: "" }), chunk({ content: "and then" })], { end: "hang" })
      )
      const started = Date.now()
      const { events, last } = await readStream(await chat(ask("fake/some-model", true)))
      expect(Date.now() - started).toBeLessThan(IDLE_MS + 2500)
      expect(events).not.toContain("[DONE]")
      expect(events.some((e) => e.includes("and then"))).toBe(true)
      expectErrorBody(last, { type: "upstream_error", code: "upstream_timeout" })
      expect(await upstream.last().waitForClientClose(1000)).toBe(true)
    })

    it("the SDK raises the error instead of ending quietly", async () => {
      upstream.handle(() =>
        reply.sse([chunk({ role: "assistant", content: "" }), chunk({ content: "x" })], { end: "destroy" })
      )
      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 })
      const stream = await client.chat.completions.create({
        model: "fake/some-model",
        messages: [{ role: "user", content: "hi" }],
        stream: true
      })
      const seen: Array<string> = []
      const failure = await (async () => {
        for await (const c of stream) seen.push(c.choices[0]?.delta.content ?? "")
      })().then(() => undefined, (error: unknown) => error)
      expect(seen.join("")).toBe("x")
      expect(failure).toBeInstanceOf(OpenAI.APIError)
    })
  })
})
