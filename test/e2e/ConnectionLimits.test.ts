/**
 * What a client cannot hold the gateway with, over raw sockets: a body declared larger than the limit
 * is refused with 413 at once, before any of it is sent, and the connection is closed; a client that
 * sends its headers a byte at a time is cut once the headers timeout passes (1 s here, 20 s by
 * default), while a stream that lasts longer than the request timeout is not cut; a client that hangs up
 * halfway through its body leaves nothing behind.
 */
import { connect, type Socket } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fakeGatewayEnv, type FakeUpstream, reply, startFakeUpstream, textStream } from "../utils/FakeUpstream.ts"
import { postChat, sseData, startGateway, type TestGateway } from "../utils/TestGateway.ts"

/** A socket to the gateway and everything it received, with a promise of its close. */
const open = async (url: string) => {
  const { hostname, port } = new URL(url)
  const socket: Socket = connect(Number(port), hostname)
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()))
  let received = ""
  socket.on("data", (part: Buffer) => (received += part.toString("latin1")))
  socket.on("error", () => {})
  const closed = new Promise<number>((resolve) => {
    const started = Date.now()
    socket.once("close", () => resolve(Date.now() - started))
  })
  return { socket, received: () => received, closed }
}

describe("connection limits", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let key: string

  beforeAll(async () => {
    upstream = await startFakeUpstream(() => reply.sse(textStream(["a", "b", "c", "d", "e", "f"]), { delayMs: 300 }))
    gw = await startGateway(fakeGatewayEnv(upstream, {
      env: {
        GATEWAY_BODY_LIMIT_BYTES: "65536",
        GATEWAY_HEADERS_TIMEOUT: "1 second",
        GATEWAY_REQUEST_TIMEOUT: "1 second"
      }
    }))
    key = (await gw.newKey()).key
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })

  const streamHi = (model: string) =>
    postChat(gw.url, { model, stream: true, messages: [{ role: "user", content: "hi" }] }, { key })

  it("a body declared over the limit: 413 before a byte of it is sent, and the connection closed", async () => {
    const client = await open(gw.url)
    client.socket.write(
      "POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\n" +
        `Authorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n`
    )
    await client.closed
    expect(client.received()).toMatch(/^HTTP\/1\.1 413 /)
    expect(client.received()).toContain("\"code\":\"request_too_large\"")
    expect(client.received().toLowerCase()).toContain("connection: close")
  })

  it("a client that hangs up halfway through its body: nothing goes upstream, and the gateway goes on", async () => {
    const before = upstream.requests.length
    const client = await open(gw.url)
    client.socket.write(
      "POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\n" +
        `Authorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n` +
        "{\"model\":\"fake/m\",\"messages\":[{\"role\":\"user\","
    )
    client.socket.destroy()
    await client.closed
    const response = await streamHi("fake/m")
    expect(response.status).toBe(200)
    expect(sseData(await response.text())).toContain("[DONE]")
    expect(upstream.requests.length).toBe(before + 1)
  })

  it("headers sent a byte at a time: the connection is cut after the headers timeout", async () => {
    const client = await open(gw.url)
    const head = `GET /health HTTP/1.1\r\nHost: gateway\r\nX-Slow: ${"x".repeat(200)}\r\n\r\n`
    let sent = 0
    const trickle = setInterval(() => {
      if (sent < head.length && !client.socket.destroyed) client.socket.write(head[sent++]!)
    }, 100)
    const after = await client.closed
    clearInterval(trickle)
    // cut long before the headers were whole (they would take 24 s at this pace); Node checks every 250 ms
    expect(sent).toBeLessThan(head.length)
    expect(after).toBeLessThan(10_000)
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 |^$/)
  })

  it("a stream that lasts longer than the request timeout is not cut", async () => {
    const response = await streamHi("fake/slow")
    expect(response.status).toBe(200)
    const started = Date.now()
    const text = await response.text()
    // six pieces 300 ms apart: past the 1 s request timeout
    expect(Date.now() - started).toBeGreaterThan(1_000)
    const pieces = sseData(text).filter((data) => data !== "[DONE]").map((data) =>
      JSON.parse(data).choices?.[0]?.delta?.content ?? ""
    )
    expect(pieces.join("")).toBe("abcdef")
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true)
  })
})
