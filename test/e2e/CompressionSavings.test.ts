/**
 * Compression's saving in dollars through a real gateway: a fake upstream priced in the routing file
 * ($2 input, $0.50 cache reads, $8 output per million tokens). Saved tokens outside the upstream's
 * cached prefix save the input price, inside it only the cache read; the first cut of a conversation
 * under `aggressive` (which adds `svc_expand_output` to the tools and so breaks the cached prefix) is
 * charged against the saving; an unpriced model's saving is unknown. The analytics sum it per level.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  completion,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  usage
} from "../utils/FakeUpstream.ts"
import { createCaller } from "../utils/SharedToolsHarness.ts"
import { logRowOf, postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"

const PRETTY = JSON.stringify(
  { items: Array.from({ length: 40 }, (_, i) => ({ id: `item-${i}`, size: i * 7, tags: ["a", "b"] })) },
  null,
  2
)

const call = (id: string) => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name: "bash", arguments: "{}" } }]
})

const conversation = [
  { role: "user", content: "list the items" },
  call("call_1"),
  { role: "tool", tool_call_id: "call_1", content: PRETTY }
]

describe("compression's saving in dollars", () => {
  let upstream: FakeUpstream
  let gw: TestGateway
  let key: string
  let orgId: string

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    const base = { adapter: "openai-compatible", base_url: `${upstream.url}/v1`, api_key_env: "FAKE_KEY" }
    gw = await startGateway(fakeGatewayEnv(upstream, {
      providers: { fake: { ...base, prices: { "*": { input: 2, cached_input: 0.5, output: 8 } } }, unpriced: base },
      env: { GATEWAY_LOG_FLUSH_INTERVAL: "20 millis" }
    }))
    ;({ key, orgId } = await createCaller(gw))
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })

  /** Asks with the upstream reporting `cached` of 2,000 prompt tokens read from its cache. */
  const ask = async (
    model: string,
    cached: number,
    messages: ReadonlyArray<unknown> = conversation,
    level = "safe"
  ) => {
    upstream.reset()
    upstream.handle(() => reply.json(completion({ content: "ok", usage: usage(2_000, 10, cached) })))
    const response = await postChat(gw.url, { model, messages }, { key, headers: { "x-svc-compression": level } })
    expect(response.status).toBe(200)
    await response.text()
    const saved = Number(response.headers.get("x-svc-tokens-saved"))
    const row = await logRowOf<{ compression_saved_usd: number | null; prompt_tokens_saved: number }>(
      gw,
      orgId,
      response.headers.get("x-svc-request-id")!
    )
    return { saved, row }
  }

  it("outside the cached prefix a saved token saves the input price; inside it, the cache read", async () => {
    const fresh = await ask("fake/m", 0)
    expect(fresh.saved).toBeGreaterThan(100)
    expect(fresh.row.compression_saved_usd).toBe(fresh.saved * 2 / 1_000_000)
    // the whole prompt read from the cache: the change sat inside it
    const cached = await ask("fake/m", 2_000)
    expect(cached.row.compression_saved_usd).toBe(cached.saved * 0.5 / 1_000_000)
  })

  it("an unpriced model's saving in dollars is unknown, not 0", async () => {
    const { row, saved } = await ask("unpriced/m", 0)
    expect(saved).toBeGreaterThan(100)
    expect(row.compression_saved_usd).toBeNull()
  })

  it("aggressive's first cut breaks the previous turn's cached prefix, and that is counted against it", async () => {
    const repeated = ["inflight", "glob", "rimraf", "uuid", "request", "har-validator", "querystring", "domexception"]
      .map((name) => `npm warn deprecated ${name}: this module is not supported, use another one`)
    const turn = [
      { role: "user", content: "install it" },
      call("call_a"),
      { role: "tool", tool_call_id: "call_a", content: ["first run", ...repeated].join("\n") },
      call("call_b"),
      { role: "tool", tool_call_id: "call_b", content: ["second run", ...repeated].join("\n") }
    ]
    const { row, saved } = await ask("fake/m", 0, turn, "aggressive")
    expect(saved).toBeGreaterThan(0)
    const tools = (upstream.last().body.tools ?? []) as Array<{ function: { name: string } }>
    expect(tools.map((tool) => tool.function.name)).toContain("svc_expand_output")
    // a few dozen tokens saved at $2, against most of 2,000 tokens read again at $2 instead of $0.50
    expect(row.compression_saved_usd).toBeLessThan(0)
    expect(row.compression_saved_usd).toBeGreaterThan(-2_000 * 1.5 / 1_000_000)
  })

  it("an agent (tools of its own) gets svc_expand_output from its first turn: its tools never change, nothing breaks", async () => {
    const bash = { type: "function", function: { name: "bash", parameters: { type: "object", properties: {} } } }
    const toolNames = () =>
      ((upstream.last().body.tools ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name)
    upstream.reset()
    upstream.handle(() => reply.json(completion({ content: "ok", usage: usage(2_000, 10) })))
    // the first turn: nothing to cut yet, the tool offered all the same
    const first = await postChat(gw.url, {
      model: "fake/m",
      messages: [{ role: "user", content: "install it" }],
      tools: [bash]
    }, { key, headers: { "x-svc-compression": "aggressive" } })
    expect(first.status).toBe(200)
    await first.text()
    expect(toolNames()).toEqual(["bash", "svc_expand_output"])
    // a later turn that cuts: the same tools, and the saving is not charged a broken cache
    const repeated = ["inflight", "glob", "rimraf", "uuid", "request", "har-validator", "querystring", "domexception"]
      .map((name) => `npm warn deprecated ${name}: this module is not supported, use another one`)
    const later = await postChat(gw.url, {
      model: "fake/m",
      tools: [bash],
      messages: [
        { role: "user", content: "install it" },
        call("call_a"),
        { role: "tool", tool_call_id: "call_a", content: ["first run", ...repeated].join("\n") },
        call("call_b"),
        { role: "tool", tool_call_id: "call_b", content: ["second run", ...repeated].join("\n") }
      ]
    }, { key, headers: { "x-svc-compression": "aggressive" } })
    expect(later.status).toBe(200)
    await later.text()
    expect(toolNames()).toEqual(["bash", "svc_expand_output"])
    const saved = Number(later.headers.get("x-svc-tokens-saved"))
    expect(saved).toBeGreaterThan(0)
    const row = await logRowOf<{ compression_saved_usd: number }>(gw, orgId, later.headers.get("x-svc-request-id")!)
    expect(row.compression_saved_usd).toBe(saved * 2 / 1_000_000)
  })

  it("the analytics sum the saving per compression level", async () => {
    const groups = async () => (await gw.admin("GET", `/orgs/${orgId}/analytics?group_by=compression`)).json.data
    const levels = (await groups()) as Array<{ group: string; compression_saved_usd: number; requests: number }>
    const safe = levels.find((group) => group.group === "safe")
    const aggressive = levels.find((group) => group.group === "aggressive")
    expect(safe?.requests).toBe(3)
    expect(safe?.compression_saved_usd).toBeGreaterThan(0)
    // the agent's saving less the other request's broken cache
    expect(aggressive?.requests).toBe(3)
    const requests = (await gw.admin("GET", `/orgs/${orgId}/requests?limit=200`)).json.data as Array<
      { compression_level: string; compression_saved_usd: number | null }
    >
    const micro = (usd: number | null) => Math.round((usd ?? 0) * 1_000_000)
    const sum = requests.filter((r) => r.compression_level === "safe").reduce(
      (n, r) => n + micro(r.compression_saved_usd),
      0
    )
    expect(micro(safe!.compression_saved_usd)).toBe(sum)
  })
})
