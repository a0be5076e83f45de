/**
 * The Responses API over a WebSocket (`GET /v1/responses`, Codex's transport with
 * `supports_websockets`), with a WebSocket client over a real socket: a request's stream comes back as
 * one event per frame; a warm-up (`generate: false`) calls no model; `previous_response_id` continues
 * the connection's previous response with only the new items, and the upstream gets the whole
 * conversation; refusals are error events after which the connection keeps working; a wrong key is a
 * 401 at the handshake, and a plain GET is a 405.
 */
import { request as httpRequest } from "node:http"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  completion,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  textStream
} from "../utils/FakeUpstream.ts"
import { startGateway, type TestGateway } from "../utils/TestGateway.ts"

type Event = Record<string, any>

/** A socket to the gateway's Responses path and the events it received, awaited by condition. */
const connect = async (gw: TestGateway, key: string) => {
  const socket = new WebSocket(`${gw.url.replace("http", "ws")}/v1/responses`, {
    headers: { authorization: `Bearer ${key}`, "session-id": "ws-session-1" }
  } as never)
  const events: Array<Event> = []
  let waiting: (() => void) | undefined
  socket.onmessage = (message) => {
    events.push(JSON.parse(String(message.data)))
    waiting?.()
  }
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve()
    socket.onerror = () => reject(new Error("the handshake failed"))
  })
  /** Sends `event` and resolves with the events up to the one that ends it (`response.completed`, an error). */
  const send = (event: unknown) =>
    new Promise<Array<Event>>((resolve) => {
      const from = events.length
      waiting = () => {
        const end = events.findIndex((e, i) =>
          i >= from && ["response.completed", "response.failed", "error"].includes(e["type"])
        )
        if (end !== -1) resolve(events.slice(from, end + 1))
      }
      socket.send(typeof event === "string" ? event : JSON.stringify(event))
    })
  return { send, close: () => socket.close() }
}

const user = (text: string) => ({ type: "message", role: "user", content: [{ type: "input_text", text }] })

describe("the Responses API over a WebSocket", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let key: string

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(upstream, { env: { GATEWAY_BODY_LIMIT_BYTES: "65536" } }))
    key = (await gw.newKey()).key
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })
  beforeEach(() => upstream.reset())

  it("a request's stream comes back one event per frame, ending with response.completed", async () => {
    const socket = await connect(gw, key)
    const events = await socket.send({ type: "response.create", model: "local/echo", input: "echo me", stream: true })
    expect(events[0]!["type"]).toBe("response.created")
    expect(events.filter((e) => e["type"] === "response.output_text.delta").map((e) => e["delta"]).join("")).toBe(
      "echo me"
    )
    expect(events.at(-1)!["response"]["output"][0]["content"][0]["text"]).toBe("echo me")
    socket.close()
  })

  it("a warm-up calls no model; the next request continues it, and the one after continues that", async () => {
    upstream.handle((request) =>
      request.body.stream === true
        ? reply.sse(textStream([`turn ${(request.body.messages ?? []).length}`]))
        : reply.json(completion({ content: "whole" }))
    )
    const socket = await connect(gw, key)
    const warm = await socket.send({
      type: "response.create",
      model: "fake/coder",
      generate: false,
      input: [{ type: "message", role: "developer", content: [{ type: "input_text", text: "be brief" }] }]
    })
    expect(warm.map((e) => e["type"])).toEqual(["response.created", "response.completed"])
    expect(upstream.chatRequests()).toHaveLength(0)

    const first = await socket.send({
      type: "response.create",
      model: "fake/coder",
      previous_response_id: warm.at(-1)!["response"]["id"],
      input: [user("first question")]
    })
    expect(first.at(-1)!["type"]).toBe("response.completed")
    const second = await socket.send({
      type: "response.create",
      model: "fake/coder",
      previous_response_id: first.at(-1)!["response"]["id"],
      input: [user("second question")]
    })
    expect(second.at(-1)!["type"]).toBe("response.completed")
    // the upstream got the whole conversation each time: developer, question (then answer, question)
    const [one, two] = upstream.chatRequests().map((r) => r.body.messages!.map((m) => m["role"]))
    expect(one).toEqual(["developer", "user"])
    expect(two).toEqual(["developer", "user", "assistant", "user"])
    expect(JSON.stringify(upstream.chatRequests()[1]!.body.messages)).toContain("turn 2")
    socket.close()
  })

  it("refusals are error events, and the connection keeps working after each", async () => {
    const socket = await connect(gw, key)
    const refusals: Array<[unknown, number, string]> = [
      ["not json", 400, "invalid_json"],
      [{ type: "session.update" }, 400, "unsupported_event"],
      [
        { type: "response.create", model: "local/echo", previous_response_id: "resp_nope", input: "x" },
        400,
        "previous_response_not_found"
      ],
      [{ type: "response.create", model: "nobody/nothing", input: "x" }, 404, "model_not_found"],
      [{ type: "response.create", model: "local/echo", input: "x".repeat(70_000) }, 413, "request_too_large"]
    ]
    for (const [event, status, code] of refusals) {
      const [error] = await socket.send(event)
      expect(error, code).toMatchObject({ type: "error", status, error: { code } })
      expect(typeof error!["error"]["message"]).toBe("string")
    }
    const events = await socket.send({ type: "response.create", model: "local/echo", input: "still here" })
    expect(events.at(-1)!["type"]).toBe("response.completed")
    socket.close()
  })

  it("a wrong key is a 401 at the handshake; a GET without an upgrade is a 405", async () => {
    const handshake = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(`${gw.url}/v1/responses`, {
        headers: {
          connection: "Upgrade",
          upgrade: "websocket",
          "sec-websocket-version": "13",
          "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
          authorization: "Bearer sk-wrong"
        }
      })
      request.on("response", (response) => {
        let body = ""
        response.on("data", (part: Buffer) => (body += part.toString()))
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }))
      })
      request.on("upgrade", () => reject(new Error("upgraded with a wrong key")))
      request.on("error", reject)
      request.end()
    })
    expect(handshake.status).toBe(401)
    expect(JSON.parse(handshake.body).error.type).toBe("authentication_error")
    const plain = await fetch(`${gw.url}/v1/responses`, { headers: { authorization: `Bearer ${key}` } })
    expect(plain.status).toBe(405)
    expect(plain.headers.get("allow")).toBe("POST")
  })
})

describe("an idle Responses WebSocket", () => {
  let gw: TestGateway
  let key: string

  beforeAll(async () => {
    gw = await startGateway({ GATEWAY_SOCKET_IDLE_TIMEOUT: "1 second" })
    key = (await gw.newKey()).key
  })
  afterAll(() => gw?.close())

  it("is closed once it has been silent for the idle timeout, after answering what it was asked", async () => {
    const socket = new WebSocket(`${gw.url.replace("http", "ws")}/v1/responses`, {
      headers: { authorization: `Bearer ${key}` }
    } as never)
    const events: Array<string> = []
    const closed = new Promise<number>((resolve) => {
      socket.onclose = (event) => resolve(event.code)
    })
    socket.onmessage = (message) => events.push(JSON.parse(String(message.data)).type)
    await new Promise<void>((resolve) => (socket.onopen = () => resolve()))
    socket.send(JSON.stringify({ type: "response.create", model: "local/echo", input: "one" }))
    const code = await closed
    expect(events.at(-1)).toBe("response.completed")
    expect(code).toBe(1000)
  })
})
