/**
 * Connection lifecycle: a client that leaves mid-stream makes the gateway drop its upstream request,
 * and SIGTERM drains the real server process (`src/main.ts` as a child process): the in-flight stream
 * completes, new connections are refused, and the process exits by itself within the grace period.
 * Every wait is bounded; the child is killed if a test fails before it exits.
 */
import type { ChildProcess } from "node:child_process"
import { rmSync } from "node:fs"
import { Agent, type IncomingMessage, request } from "node:http"
import { connect } from "node:net"
import OpenAI from "openai"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { chunk, fakeGatewayEnv, type FakeUpstream, reply, startFakeUpstream } from "../utils/FakeUpstream.ts"
import { startGatewayProcess, within } from "../utils/GatewayProcess.ts"
import { postChat, sseData, startGateway, type TestGateway } from "../utils/TestGateway.ts"

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** `count` content chunks, one every `delayMs`, then `[DONE]`. */
const slowStream = (count: number, delayMs: number) =>
  reply.sse([
    chunk({ role: "assistant", content: "" }),
    ...Array.from({ length: count }, (_, i) => chunk({ content: `t${i} ` }))
  ], {
    delayMs
  })

/** Reads SSE data payloads off a response body (fetch's or node:http's) as they arrive. */
const eventReader = (body: AsyncIterable<Uint8Array>) => {
  const chunks = body[Symbol.asyncIterator]()
  const decoder = new TextDecoder()
  let buffer = ""
  const next = async (): Promise<string | undefined> => {
    for (let i = 0; i < 10_000; i++) {
      const end = buffer.indexOf("\n\n")
      if (end >= 0) {
        const event = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const data = sseData(`${event}\n\n`)[0]
        if (data !== undefined) return data
        continue
      }
      const { done, value } = await chunks.next()
      if (done) return undefined
      buffer += decoder.decode(value, { stream: true })
    }
    throw new Error("too many reads")
  }
  const rest = async () => {
    const events: Array<string> = []
    for (let event = await next(); event !== undefined; event = await next()) events.push(event)
    return events
  }
  return { next, rest }
}

describe("a client that disconnects mid-stream", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let key: string

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(upstream))
    key = (await gw.newKey()).key
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })
  beforeEach(() => upstream.reset())

  const body = { model: "fake/some-model", messages: [{ role: "user" as const, content: "talk slowly" }], stream: true }

  it("fetch aborted after the first chunk: the upstream connection closes within a second", async () => {
    upstream.handle(() => slowStream(50, 100))
    const controller = new AbortController()
    const response = await postChat(gw.url, body, { key, signal: controller.signal })
    expect(response.status).toBe(200)
    const first = await within(5000, "first chunk", eventReader(response.body!).next())
    expect(first).toContain("chat.completion.chunk")
    expect(upstream.last().closedByClient()).toBe(false)
    const aborted = Date.now()
    controller.abort()
    expect(await upstream.last().waitForClientClose(1000)).toBe(true)
    expect(Date.now() - aborted).toBeLessThan(1000)
  })

  it("the SDK's stream aborted after the first chunk: the same", async () => {
    upstream.handle(() => slowStream(50, 100))
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 })
    const stream = await client.chat.completions.create({ ...body, stream: true })
    let received = 0
    // the SDK ends the iteration quietly once its own controller aborts; whether it throws is its business
    await within(
      5000,
      "first chunk",
      (async () => {
        for await (const c of stream) {
          expect(c.object).toBe("chat.completion.chunk")
          received++
          stream.controller.abort()
        }
      })()
    ).catch(() => undefined)
    expect(received).toBe(1)
    expect(await upstream.last().waitForClientClose(1000)).toBe(true)
  })

  it("the gateway still serves the next request normally", async () => {
    upstream.handle(() => slowStream(3, 10))
    const response = await postChat(gw.url, body, { key })
    const events = sseData(await response.text())
    expect(events.at(-1)).toBe("[DONE]")
    expect(upstream.last().closedByClient()).toBe(false)
  })
})

describe("SIGTERM drains the server process", () => {
  const GRACE_MS = 5000
  let upstream: FakeUpstream
  let child: ChildProcess | undefined
  const dataDirs: Array<string> = []
  let output = ""

  beforeAll(async () => {
    upstream = await startFakeUpstream()
  })
  afterEach(() => {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  })
  afterAll(async () => {
    await upstream?.close()
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
  })

  /** Starts `src/main.ts` on a free port with a fresh data directory and waits until it listens. */
  const startServer = async () => {
    const server = await startGatewayProcess(upstream, { GATEWAY_SHUTDOWN_GRACE: `${GRACE_MS / 1000} seconds` })
    dataDirs.push(server.dataDir)
    child = server.proc
    output = ""
    server.proc.stdout?.on("data", (data: Buffer) => (output += data.toString()))
    server.proc.stderr?.on("data", (data: Buffer) => (output += data.toString()))
    return server
  }

  /** Whether a new TCP connection to the port is refused (true) or accepted (false). */
  const refused = (port: number) =>
    new Promise<boolean>((resolve) => {
      const socket = connect({ port, host: "127.0.0.1" })
      socket.once("connect", () => {
        socket.destroy()
        resolve(false)
      })
      socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"))
    })

  /**
   * Starts a ~1.6 s stream (8 chunks, one every 200 ms), sends SIGTERM after its first chunk, and
   * checks the drain: new connections refused while the stream goes on, the stream complete with
   * [DONE], the process gone by itself soon after and within the grace period.
   */
  const drain = async (connection: "close" | "keep-alive") => {
    const server = await startServer()
    upstream.handle(() => slowStream(8, 200))
    // node:http, so that whether the client keeps its connection open is certain
    const agent = connection === "keep-alive" ? new Agent({ keepAlive: true }) : false
    try {
      await drainWith(server, agent)
    } finally {
      if (agent !== false) agent.destroy()
    }
  }

  const drainWith = async (server: Awaited<ReturnType<typeof startServer>>, agent: Agent | false) => {
    const response = await within(
      5000,
      "response headers",
      new Promise<IncomingMessage>((resolve, reject) => {
        const req = request(`${server.url}/v1/chat/completions`, {
          method: "POST",
          agent,
          headers: { authorization: `Bearer ${server.key}`, "content-type": "application/json" }
        }, resolve)
        req.once("error", reject)
        req.end(
          JSON.stringify({
            model: "fake/some-model",
            messages: [{ role: "user", content: "a slow one" }],
            stream: true
          })
        )
      })
    )
    expect(response.statusCode).toBe(200)
    expect(response.headers["connection"]).toBe(agent === false ? "close" : "keep-alive")
    const events = eventReader(response)
    const first = await within(5000, "first chunk", events.next())
    expect(first).toContain("chat.completion.chunk")

    const signalled = Date.now()
    expect(server.proc.kill("SIGTERM")).toBe(true)

    // new connections are refused soon after, while the stream is still going
    let refusedAt: number | undefined
    for (let i = 0; i < 20 && refusedAt === undefined; i++) {
      await sleep(100)
      if (await refused(server.port)) refusedAt = Date.now()
    }
    expect(refusedAt, `new connections were still accepted after SIGTERM:\n${output}`).toBeDefined()

    const rest = await within(GRACE_MS, "the rest of the stream", events.rest())
    const streamEnded = Date.now()
    expect(rest.at(-1)).toBe("[DONE]")
    const text = [first ?? "", ...rest.slice(0, -1)]
      .map((e) => JSON.parse(e) as { choices: Array<{ delta: { content?: string } }> })
      .map((c) => c.choices[0]?.delta.content ?? "")
      .join("")
    expect(text).toBe("t0 t1 t2 t3 t4 t5 t6 t7 ")
    expect(refusedAt!).toBeLessThan(streamEnded)
    expect(upstream.last().closedByClient()).toBe(false)

    const exit = await within(GRACE_MS + 2000, `process exit:\n${output}`, server.exited)
    expect(exit.signal, output).toBeNull()
    expect(exit.code, output).toBe(0)
    expect(exit.at - streamEnded, "exit after the stream ended (ms)").toBeLessThan(2000)
    expect(exit.at - signalled, "exit after SIGTERM (ms)").toBeLessThan(GRACE_MS)
  }

  it("a client that closes its connection: the stream completes, new connections are refused, the process exits", () =>
    drain("close"))

  // fetch and the SDK keep connections alive: once the last in-flight request is done, the server
  // must not sit out the rest of the grace period on an idle keep-alive connection.
  it("a keep-alive client: the same, and the process does not wait out the grace period", () => drain("keep-alive"))
})
