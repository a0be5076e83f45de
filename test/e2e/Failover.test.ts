/**
 * Retries and failover over real sockets: `fake/primary` falls back to `fake/backup` (one fake upstream
 * serves both, told apart by the model id it receives), and `dead/primary` (a provider on a closed port)
 * falls back to `fake/backup` too. 429 and 5xx retry the same target (twice, 5 ms backoff here) and then
 * fail over, whole and streamed; a refused connection, a timeout, a cut answer and the gateway's own
 * credentials refused fail over at once; a client error (400) and a failure after the first token do not.
 * Circuit breakers are off here (Failover.test.ts in test/unit and FaultInjection.test.ts test them).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  chunk,
  completion,
  fakeGatewayEnv,
  type FakeUpstream,
  refusedUrl,
  type Reply,
  reply,
  startFakeUpstream,
  textStream
} from "../utils/FakeUpstream.ts"
import {
  completionOf,
  expectError,
  expectErrorBody,
  postChat,
  sseData,
  startGateway,
  type TestGateway
} from "../utils/TestGateway.ts"

const ask = (model: string, stream: boolean) => ({
  model,
  messages: [{ role: "user", content: "who answers?" }],
  ...(stream ? { stream: true, stream_options: { include_usage: true } } : {})
})

/** The backup's answer, whole or streamed as the request asks. */
const backupAnswer = (stream: boolean | undefined): Reply =>
  stream === true ? reply.sse(textStream(["from ", "backup"])) : reply.json(completion({ content: "from backup" }))

describe("failover to the configured fallbacks", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let key: string

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    const dead = await refusedUrl()
    gw = await startGateway(fakeGatewayEnv(upstream, {
      providers: { dead: { adapter: "openai-compatible", base_url: `${dead}/v1`, api_key_env: "FAKE_KEY" } },
      fallbacks: { "fake/primary": ["fake/backup"], "dead/primary": ["fake/backup"] },
      env: {
        GATEWAY_UPSTREAM_FIRST_BYTE_TIMEOUT: "400 millis",
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

  /** Scripts the primary; the backup always answers. */
  const primary = (answer: (stream: boolean | undefined) => Reply) =>
    upstream.handle((request) =>
      request.body.model === "backup" ? backupAnswer(request.body.stream) : answer(request.body.stream)
    )

  const modelsSeen = () => upstream.chatRequests().map((r) => r.body.model)

  /** Asks whole and streamed, expecting the backup's answer under the address the client used. */
  const expectBackupAnswers = async (model: string) => {
    const body = await completionOf(await postChat(gw.url, ask(model, false), { key }))
    expect(body.choices[0]?.message.content).toBe("from backup")
    expect(body.model).toBe(model)

    const streamed = await postChat(gw.url, ask(model, true), { key })
    expect(streamed.status).toBe(200)
    const events = sseData(await streamed.text())
    expect(events.at(-1)).toBe("[DONE]")
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e))
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("")).toBe("from backup")
    expect(chunks.every((c) => c.model === model)).toBe(true)
    expect(chunks.at(-1).usage.total_tokens).toBeGreaterThan(0)
  }

  const thrice = ["primary", "primary", "primary"]

  it("primary 503 → retried twice, then the backup answers, whole and streamed", async () => {
    primary(() => reply.error(503, "The engine is currently overloaded.", { type: "server_error" }))
    await expectBackupAnswers("fake/primary")
    expect(modelsSeen()).toEqual([...thrice, "backup", ...thrice, "backup"])
  })

  it("primary 429 → retried twice, then the backup answers", async () => {
    primary(() => reply.error(429, "Rate limit reached.", { type: "requests", code: "rate_limit_exceeded" }))
    await expectBackupAnswers("fake/primary")
    expect(modelsSeen()).toEqual([...thrice, "backup", ...thrice, "backup"])
  })

  it("primary 503 once → the retry answers; the headers say who answered after how many calls", async () => {
    let calls = 0
    upstream.handle((request) =>
      calls++ === 0 ? reply.error(503, "Busy.", { type: "server_error" }) : backupAnswer(request.body.stream)
    )
    const response = await postChat(gw.url, ask("fake/primary", false), { key })
    expect((await completionOf(response)).choices[0]?.message.content).toBe("from backup")
    expect(response.headers.get("x-svc-provider")).toBe("fake")
    expect(response.headers.get("x-svc-attempts")).toBe("2")
    expect(modelsSeen()).toEqual(["primary", "primary"])
  })

  it("429 with Retry-After: 1 → the retry waits a second for the same target", async () => {
    let calls = 0
    upstream.handle((request) =>
      calls++ === 0
        ? reply.error(429, "Slow down.", { type: "requests", headers: { "retry-after": "1" } })
        : backupAnswer(request.body.stream)
    )
    const started = performance.now()
    const response = await postChat(gw.url, ask("fake/backup", true), { key })
    expect(response.status).toBe(200)
    expect(response.headers.get("x-svc-attempts")).toBe("2")
    await response.text()
    expect(performance.now() - started).toBeGreaterThanOrEqual(990)
    expect(modelsSeen()).toEqual(["backup", "backup"])
  })

  it("429 with a Retry-After past the cap (10 s) → the backup at once", async () => {
    primary(() => reply.error(429, "Come back tomorrow.", { type: "requests", headers: { "retry-after": "86400" } }))
    const started = performance.now()
    await expectBackupAnswers("fake/primary")
    expect(performance.now() - started).toBeLessThan(2_000)
    expect(modelsSeen()).toEqual(["primary", "backup", "primary", "backup"])
  })

  it("primary 401 (the gateway's own key refused) → the backup at once, counted in /metrics", async () => {
    primary(() =>
      reply.error(401, "Incorrect API key provided.", { type: "invalid_request_error", code: "invalid_api_key" })
    )
    await expectBackupAnswers("fake/primary")
    expect(modelsSeen()).toEqual(["primary", "backup", "primary", "backup"])
    const metrics = await (await fetch(`${gw.url}/metrics`)).text()
    expect(metrics).toMatch(/svc_gateway_upstream_credentials_rejected_total\{provider="fake"\} [1-9]/)
  })

  it("a stream cut after its role-only first chunk → the backup answers, the client sees only it", async () => {
    primary((stream) =>
      stream === true ? reply.sse([chunk({ role: "assistant", content: "" })], { end: "destroy" }) : reply.destroy
    )
    await expectBackupAnswers("fake/primary")
    expect(modelsSeen()).toEqual(["primary", "backup", "primary", "backup"])
  })

  it("primary connection refused → the backup answers, whole and streamed", async () => {
    upstream.handle((request) => backupAnswer(request.body.stream))
    await expectBackupAnswers("dead/primary")
    expect(modelsSeen()).toEqual(["backup", "backup"])
  })

  it("primary silent past the first-byte timeout → the backup answers", async () => {
    primary(() => reply.hang)
    await expectBackupAnswers("fake/primary")
    expect(modelsSeen()).toEqual(["primary", "backup", "primary", "backup"])
  })

  it("primary stream cut before its first chunk → the backup answers", async () => {
    primary((stream) => stream === true ? reply.sse([], { end: "destroy" }) : reply.destroy)
    await expectBackupAnswers("fake/primary")
    expect(modelsSeen()).toEqual(["primary", "backup", "primary", "backup"])
  })

  it("primary 400 does not fail over: the client gets the 400", async () => {
    primary(() => reply.error(400, "Invalid value for 'seed'.", { param: "seed", code: "invalid_value" }))
    for (const stream of [false, true]) {
      const error = await expectError(await postChat(gw.url, ask("fake/primary", stream), { key }), 400, {
        param: "seed",
        code: "invalid_value"
      })
      expect(error.message).toBe("Invalid value for 'seed'.")
    }
    expect(modelsSeen()).toEqual(["primary", "primary"])
  })

  it("a stream that fails after its first chunk does not fail over", async () => {
    primary(() =>
      reply.sse([chunk({ role: "assistant", content: "" }), chunk({ content: "primary speaking" })], { end: "destroy" })
    )
    const response = await postChat(gw.url, ask("fake/primary", true), { key })
    expect(response.status).toBe(200)
    const events = sseData(await response.text())
    expect(events.some((e) => e.includes("primary speaking"))).toBe(true)
    expect(events.some((e) => e.includes("backup"))).toBe(false)
    expect(events).not.toContain("[DONE]")
    expectErrorBody(JSON.parse(events.at(-1) ?? "null"))
    expect(modelsSeen()).toEqual(["primary"])
  })

  it("when the backup fails too, the client gets the last failure", async () => {
    upstream.handle(() => reply.error(503, "Everything is down.", { type: "server_error" }))
    for (const stream of [false, true]) {
      const error = await expectError(await postChat(gw.url, ask("fake/primary", stream), { key }), 502, {
        type: "upstream_error"
      })
      expect(error.message).toContain("Everything is down.")
    }
    const round = [...thrice, "backup", "backup", "backup"]
    expect(modelsSeen()).toEqual([...round, ...round])
  })

  it("an address without fallbacks is tried on its own target only", async () => {
    upstream.handle(() => reply.error(503, "Overloaded.", { type: "server_error" }))
    await expectError(await postChat(gw.url, ask("fake/backup", false), { key }), 502, { type: "upstream_error" })
    expect(modelsSeen()).toEqual(["backup", "backup", "backup"])
  })
})
