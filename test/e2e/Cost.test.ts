/**
 * What a request cost, through a real gateway to a fake upstream priced in the routing file ($2 input,
 * $1 cached input, $8 output per million tokens): a whole answer carries `x-svc-cost-usd`, its log row
 * the cost and its parts; a stream's row costs what the same whole answer does; a shared-tool loop's
 * rounds are each priced and added, and a request failing after a billed round keeps that round's cost;
 * an unpriced model costs null, with no header.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  completion,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  textStream,
  toolCall,
  usage
} from "../utils/FakeUpstream.ts"
import { type Caller, createCaller, script, setOrgTool } from "../utils/SharedToolsHarness.ts"
import { logRowOf, postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"
import { recordingTool, type ToolInvocation } from "../utils/TestSvcTools.ts"

interface CostRow {
  readonly cost_usd: number | null
  readonly cost_input_usd: number | null
  readonly cost_cached_input_usd: number | null
  readonly cost_cache_write_usd: number | null
  readonly cost_output_usd: number | null
}

describe("the cost of a request", () => {
  let upstream: FakeUpstream
  let gw: TestGateway
  let caller: Caller
  const runs: Array<ToolInvocation> = []

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    const price = { "*": { input: 2, cached_input: 1, output: 8 } }
    const tools = [recordingTool("svc_alpha", runs)]
    gw = await startGateway(
      fakeGatewayEnv(upstream, {
        providers: {
          fake: {
            adapter: "openai-compatible",
            base_url: `${upstream.url}/v1`,
            api_key_env: "FAKE_KEY",
            prices: price
          },
          unpriced: { adapter: "openai-compatible", base_url: `${upstream.url}/v1`, api_key_env: "FAKE_KEY" }
        },
        env: { GATEWAY_LOG_FLUSH_INTERVAL: "20 millis" }
      }),
      { tools }
    )
    caller = await createCaller(gw)
    await setOrgTool(gw, caller.orgId, "svc_alpha", { activated: true, hydrate_org: true })
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })

  const rowOf = (response: Response) => logRowOf<CostRow>(gw, caller.orgId, response.headers.get("x-svc-request-id")!)

  const ask = (model: string, stream = false) =>
    postChat(gw.url, {
      model,
      messages: [{ role: "user", content: "price me" }],
      ...(stream ? { stream: true } : {})
    }, { key: caller.key })

  it("a whole answer: x-svc-cost-usd, and the row's cost with its parts", async () => {
    upstream.reset()
    upstream.handle(() => reply.json(completion({ content: "ok", usage: usage(1000, 100, 200) })))
    const response = await ask("fake/some-model")
    expect(response.status).toBe(200)
    // 800 x 2 + 200 x 1 + 100 x 8 micro-dollars
    expect(response.headers.get("x-svc-cost-usd")).toBe("0.002600")
    expect(await rowOf(response)).toMatchObject({
      cost_usd: 0.0026,
      cost_input_usd: 0.0016,
      cost_cached_input_usd: 0.0002,
      cost_cache_write_usd: 0,
      cost_output_usd: 0.0008
    })
  })

  it("a streamed answer costs what the whole one does; the cost is in its row, not its headers", async () => {
    upstream.reset()
    upstream.handle(() => reply.sse(textStream(["o", "k"], usage(1000, 100, 200))))
    const response = await ask("fake/some-model", true)
    expect(response.status).toBe(200)
    await response.text()
    expect(response.headers.get("x-svc-cost-usd")).toBeNull()
    expect((await rowOf(response)).cost_usd).toBe(0.0026)
  })

  it("a shared-tool loop: each round is a billed call, and the costs add up", async () => {
    script(upstream, [
      { content: "Looking.", toolCalls: [toolCall("call_c1", "svc_alpha", { text: "x" })], usage: usage(1000, 100) },
      { content: "Done.", usage: usage(2000, 50) }
    ])
    const response = await ask("fake/loop-model")
    expect(response.status).toBe(200)
    // round 1: 1000 x 2 + 100 x 8 = 2800; round 2: 2000 x 2 + 50 x 8 = 4400
    expect(response.headers.get("x-svc-cost-usd")).toBe("0.007200")
    expect((await rowOf(response)).cost_usd).toBe(0.0072)
  })

  it("a request that fails after a billed tool-loop round keeps that round's cost in its row", async () => {
    script(upstream, [
      { content: "Looking.", toolCalls: [toolCall("call_f1", "svc_alpha", { text: "x" })], usage: usage(1000, 100) },
      () => reply.error(400, "the second round is refused", { type: "invalid_request_error" })
    ])
    const response = await ask("fake/failing-loop-model")
    expect(response.status).toBe(400)
    expect(response.headers.get("x-svc-cost-usd")).toBeNull()
    // round 1 was billed: 1000 x 2 + 100 x 8 micro-dollars
    expect(await rowOf(response)).toMatchObject({ cost_usd: 0.0028, cost_input_usd: 0.002, cost_output_usd: 0.0008 })
  })

  it("a model without a known price: no header, and a null cost rather than 0", async () => {
    upstream.reset()
    upstream.handle(() => reply.json(completion({ content: "ok", usage: usage(1000, 100) })))
    const response = await ask("unpriced/some-model")
    expect(response.status).toBe(200)
    expect(response.headers.get("x-svc-cost-usd")).toBeNull()
    expect(await rowOf(response)).toMatchObject({ cost_usd: null, cost_input_usd: null })
  })
})
