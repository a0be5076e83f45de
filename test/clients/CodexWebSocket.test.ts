/**
 * The real Codex on its WebSocket transport (`supports_websockets = true` on its provider), through
 * the gateway (`npm run test:clients`): every request goes over a socket to `/v1/responses` (a proxy in
 * front of the gateway sees each connection's first line; none is a POST), a `local/echo` answer comes
 * back, and a turn with Codex's own `exec_command` tool completes through a chat-completions upstream,
 * Codex sending only the new items after the first request (`previous_response_id`) and the gateway
 * giving the upstream the whole conversation each time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  chunk,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  textStream,
  type UpstreamRequest,
  usageChunk
} from "../utils/FakeUpstream.ts"
import { startGateway, type TestGateway } from "../utils/TestGateway.ts"
import { until } from "../utils/Until.ts"
import { ensureCodex, runCodex } from "./Codex.ts"
import { type FirstLineProxy, firstLineProxy } from "./FirstLineProxy.ts"

const MARK = "svc-gateway-codex-ws-ok"

const toolOutputs = (request: UpstreamRequest) =>
  (request.body.messages ?? []).filter((m) => m["role"] === "tool").map((m) => JSON.stringify(m["content"])).join("\n")

const userTexts = (request: UpstreamRequest) =>
  (request.body.messages ?? []).filter((m) => m["role"] === "user").map((m) => JSON.stringify(m["content"])).join("\n")

describe("Codex over its WebSocket transport", () => {
  let gw: TestGateway
  let chat: FakeUpstream
  let proxy: FirstLineProxy
  let key: string
  let orgId: string

  beforeAll(async () => {
    ensureCodex()
    chat = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(chat, { env: { GATEWAY_LOG_FLUSH_INTERVAL: "20 millis" } }))
    proxy = await firstLineProxy(gw.url)
    ;({ key, orgId } = await gw.newKey())
  }, 360_000)
  afterAll(async () => {
    await proxy?.close()
    await gw?.close()
    await chat?.close()
  })

  const logged =
    async () => ((await gw.admin("GET", `/orgs/${orgId}/requests?model=fake/gpt-codex`)).json.data as Array<
      { status: number }
    >)

  const viaSocketOnly = () => {
    expect(proxy.firstLines.length).toBeGreaterThan(0)
    expect(proxy.firstLines.filter((line) => !line.startsWith("GET /v1/responses "))).toEqual([])
  }

  it("answers with local/echo, every request over the socket", async () => {
    const run = await runCodex({ baseUrl: proxy.url, apiKey: key, model: "local/echo", prompt: MARK, websockets: true })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout.trim()).toBe(MARK)
    expect(run.outbound).toEqual([])
    expect(run.stderr).not.toContain("Falling back")
    viaSocketOnly()
  })

  it("runs exec_command through a chat-completions upstream; the socket sends new items, the upstream gets all", async () => {
    chat.handle((request) =>
      toolOutputs(request).includes(MARK)
        ? reply.sse(textStream(["Over the socket: ", `${MARK}.`]))
        : reply.sse([
          chunk({
            role: "assistant",
            tool_calls: [{
              index: 0,
              id: "call_ws",
              type: "function",
              function: { name: "exec_command", arguments: "" }
            }]
          }),
          chunk(
            { tool_calls: [{ index: 0, function: { arguments: JSON.stringify({ cmd: `echo ${MARK}` }) } }] },
            "tool_calls"
          ),
          usageChunk()
        ])
    )
    const run = await runCodex({
      baseUrl: proxy.url,
      apiKey: key,
      model: "fake/gpt-codex",
      prompt: "print the marker please",
      websockets: true
    })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout).toContain(`Over the socket: ${MARK}.`)
    viaSocketOnly()
    const [first, second] = chat.requests
    expect(first && userTexts(first)).toContain("print the marker please")
    // the second request continued the first on the socket; the upstream still got the whole conversation
    expect(toolOutputs(second!)).toContain(MARK)
    expect(userTexts(second!)).toContain("print the marker please")
    expect(JSON.stringify(second!.body.messages)).toContain("call_ws")
    // no request was refused on the way (a continuation the gateway could not follow would be a 400 that
    // Codex answers by sending everything again on a new socket): both model calls logged as answered
    await until("both requests are logged", async () => (await logged()).length >= 2)
    expect((await logged()).map((row) => row.status)).toEqual([200, 200])
  })
})
