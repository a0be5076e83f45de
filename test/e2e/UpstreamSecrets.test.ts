/**
 * An upstream whose error messages echo the gateway's provider key (or another credential): no client,
 * in any format, status or stream position, reads it; what the message says besides stays. The fake's
 * provider key is `UPSTREAM_KEY`, which the gateway sends it as `Authorization: Bearer`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  chunk,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  UPSTREAM_KEY
} from "../utils/FakeUpstream.ts"
import { postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"

const LEAK = `Incorrect API key provided: ${UPSTREAM_KEY}; header was Authorization: Bearer ${UPSTREAM_KEY}`

describe("provider secrets in upstream messages", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let key: string

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(upstream, {
      env: { GATEWAY_UPSTREAM_RETRIES: "0", GATEWAY_CIRCUIT_FAILURES: "0" }
    }))
    key = (await gw.newKey()).key
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })
  beforeEach(() => upstream.reset())

  const ask = async (path: string, body: unknown) => {
    const response = await postChat(gw.url, body, { key, path, headers: { "anthropic-version": "2023-06-01" } })
    return { status: response.status, text: await response.text() }
  }
  const chat = { model: "fake/m", messages: [{ role: "user", content: "hi" }] }
  const messages = { model: "fake/m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }

  for (const status of [400, 404, 422, 500, 503]) {
    it(`a ${status} that echoes the key: the message reaches chat and Messages clients without it`, async () => {
      upstream.handle(() => reply.error(status, LEAK))
      for (const [path, body] of [["/v1/chat/completions", chat], ["/v1/messages", messages]] as const) {
        const answer = await ask(path, body)
        // a 5xx: 502 to chat clients, the upstream's own status to Messages clients (Claude Code retries on it)
        expect(answer.status, path).toBe(status < 500 || path === "/v1/messages" ? status : 502)
        expect(answer.text, path).not.toContain(UPSTREAM_KEY)
        expect(answer.text, path).toContain("Incorrect API key provided: [redacted]")
      }
    })
  }

  it("an error event in the middle of a stream is redacted too", async () => {
    upstream.handle(() =>
      reply.sse([
        chunk({ role: "assistant", content: "" }),
        chunk({ content: "partial" }),
        { error: { message: LEAK, type: "server_error" } }
      ])
    )
    const answer = await ask("/v1/chat/completions", { ...chat, stream: true })
    expect(answer.status).toBe(200)
    expect(answer.text).toContain("partial")
    expect(answer.text).not.toContain(UPSTREAM_KEY)
    expect(answer.text).toContain("[redacted]")
  })
})
