/**
 * Failover over real sockets: `fake/primary` falls back to `fake/backup` (one fake upstream serves
 * both, told apart by the model id it receives), and `dead/primary` (a provider on a closed port) falls
 * back to `fake/backup` too. Retryable failures before any output fail over, whole and streamed; a
 * client error (400) and a failure after the first chunk do not.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  chunk,
  completion,
  type FakeUpstream,
  fakeGatewayEnv,
  refusedUrl,
  type Reply,
  reply,
  startFakeUpstream,
  textStream
} from "../utils/FakeUpstream.ts"
import { completionOf, expectError, expectErrorBody, postChat, sseData, startGateway, type TestGateway } from "../utils/TestGateway.ts"

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
      env: { GATEWAY_UPSTREAM_FIRST_BYTE_TIMEOUT: "400 millis" }
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
    upstream.handle((request) => request.body.model === "backup" ? backupAnswer(request.body.stream) : answer(request.body.stream))

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

  it("primary 503 → the backup answers, whole and streamed", async () => {
    primary(() => reply.error(503, "The engine is currently overloaded.", { type: "server_error" }))
    await expectBackupAnswers("fake/primary")
    expect(modelsSeen()).toEqual(["primary", "backup", "primary", "backup"])
  })

  it("primary 429 → the backup answers", async () => {
    primary(() => reply.error(429, "Rate limit reached.", { type: "requests", code: "rate_limit_exceeded" }))
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
    primary(() => reply.sse([chunk({ role: "assistant", content: "" }), chunk({ content: "primary speaking" })], { end: "destroy" }))
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
    expect(modelsSeen()).toEqual(["primary", "backup", "primary", "backup"])
  })

  it("an address without fallbacks is tried once", async () => {
    upstream.handle(() => reply.error(503, "Overloaded.", { type: "server_error" }))
    await expectError(await postChat(gw.url, ask("fake/backup", false), { key }), 502, { type: "upstream_error" })
    expect(modelsSeen()).toEqual(["backup"])
  })
})
