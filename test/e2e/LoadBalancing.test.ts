/**
 * A balanced route over real sockets: `team/chat` spread over two providers of one fake upstream
 * (`east` asks for model `e`, `west` for model `w`, so the upstream tells them apart). A session's
 * requests stay on one target; sessions spread over both; a 429 moves the request to the other target
 * at once and rests the target until its `Retry-After`, whole and streamed; per-target series in
 * `/metrics`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  completion,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  textStream
} from "../utils/FakeUpstream.ts"
import { completionOf, postChat, sseData, startGateway, type TestGateway } from "../utils/TestGateway.ts"

describe("load balancing over a balanced route", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let key: string

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    const provider = { adapter: "openai-compatible", base_url: `${upstream.url}/v1`, api_key_env: "FAKE_KEY" }
    gw = await startGateway(fakeGatewayEnv(upstream, {
      providers: { east: provider, west: provider },
      routes: [{ match: "team/chat", targets: [{ provider: "east", model: "e" }, { provider: "west", model: "w" }] }],
      env: { GATEWAY_UPSTREAM_RETRY_BACKOFF: "30 seconds", GATEWAY_CIRCUIT_FAILURES: "0" }
    }))
    key = (await gw.newKey()).key
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })
  beforeEach(() => upstream.reset())

  const answering = (limited: ReadonlySet<string> = new Set()) =>
    upstream.handle((request) => {
      const model = String(request.body.model)
      if (limited.has(model)) return reply.error(429, "rate limited", { headers: { "retry-after": "30" } })
      return request.body.stream === true
        ? reply.sse(textStream([`from ${model}`]))
        : reply.json(completion({ content: `from ${model}` }))
    })

  const ask = async (session: string, stream = false) => {
    const response = await postChat(gw.url, {
      model: "team/chat",
      messages: [{ role: "user", content: "hi" }],
      ...(stream ? { stream: true } : {})
    }, { key, headers: { "x-svc-session-id": session } })
    expect(response.status).toBe(200)
    const attempts = Number(response.headers.get("x-svc-attempts"))
    if (stream) {
      const text = sseData(await response.text())
        .filter((data) => data !== "[DONE]")
        .map((data) => JSON.parse(data).choices?.[0]?.delta?.content ?? "")
        .join("")
      return { text, attempts }
    }
    return { text: (await completionOf(response)).choices[0]!.message.content, attempts }
  }

  it("a session's requests stay on one target; sessions spread over both", async () => {
    answering()
    const seen = new Set<string>()
    for (let s = 0; s < 12; s++) {
      const first = (await ask(`spread-${s}`)).text
      for (let i = 0; i < 3; i++) expect((await ask(`spread-${s}`, i === 1)).text).toBe(first)
      seen.add(first!)
    }
    expect([...seen].sort()).toEqual(["from e", "from w"])
  })

  it("a 429 goes to the other target at once and rests the first until its Retry-After", async () => {
    answering(new Set(["e"]))
    // sessions until one is drawn to east: it is answered by west on the second call, with no wait
    let session = 0
    for (;; session++) {
      const { attempts, text } = await ask(`limited-${session}`)
      expect(text).toBe("from w")
      if (attempts === 2) break
      expect(session).toBeLessThan(40)
    }
    const calledEast = () => upstream.chatRequests().filter((r) => r.body.model === "e").length
    expect(calledEast()).toBe(1)
    // resting: no request calls east again, whatever its session drew, whole or streamed
    for (let s = 0; s < 10; s++) {
      expect(await ask(`rest-${s}`, s % 2 === 0)).toEqual({ text: "from w", attempts: 1 })
    }
    expect(calledEast()).toBe(1)
    const metrics = await (await fetch(`${gw.url}/metrics`)).text()
    expect(metrics).toContain(`svc_gateway_target_calls_total{target="east/e",outcome="rate_limited"} 1`)
    expect(metrics).toMatch(/svc_gateway_target_calls_total\{target="west\/w",outcome="ok"\} \d+/)
    expect(metrics).toMatch(/svc_gateway_balanced_picks_total\{route="team\/chat",target="west\/w"\} \d+/)
  })
})
