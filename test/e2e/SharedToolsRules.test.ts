/**
 * Which shared tools a request gets, seen from the fake upstream's `tools`: listed ids must be installed,
 * activated for the org and allowed for the key (else 400 `invalid_svc_tool_ids`); hydrated tools come
 * without being listed; listed and hydrated are injected once each; an allow-list also filters
 * hydration; `tool_choice: "none"` injects nothing; a client tool may not take a `svc_` name.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { fakeGatewayEnv, type FakeUpstream, startFakeUpstream } from "../utils/FakeUpstream.ts"
import {
  activate,
  answer,
  type Caller,
  createCaller,
  createKey,
  createOrg,
  errorOf,
  setOrgTool,
  toolNamesOf
} from "../utils/SharedToolsHarness.ts"
import { postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"
import { recordingTool, type ToolInvocation } from "../utils/TestSvcTools.ts"

const MODEL = "fake/rules-model"
const TOOL_IDS = ["svc_alpha", "svc_beta", "svc_gamma"]
const clientTool = { type: "function", function: { name: "lookup", parameters: { type: "object", properties: {} } } }

describe("shared tools: which are injected", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  const runs: Array<ToolInvocation> = []

  beforeAll(async () => {
    upstream = await startFakeUpstream(answer({ content: "plain answer" }))
    gw = await startGateway(fakeGatewayEnv(upstream), { tools: TOOL_IDS.map((id) => recordingTool(id, runs)) })
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })
  beforeEach(() => upstream.reset())

  const ask = (caller: Caller, extra: Readonly<Record<string, unknown>> = {}) =>
    postChat(gw.url, { model: MODEL, messages: [{ role: "user", content: "hello" }], ...extra }, { key: caller.key })

  /** Sends the request, expects 200, returns the shared tools the upstream was offered. */
  const offered = async (caller: Caller, extra: Readonly<Record<string, unknown>> = {}) => {
    upstream.reset()
    const response = await ask(caller, extra)
    expect(response.status, await response.clone().text()).toBe(200)
    return (toolNamesOf(upstream, 1) ?? []).filter((name) => name.startsWith("svc_"))
  }

  const expectInvalid = async (caller: Caller, listed: ReadonlyArray<string>, invalid: ReadonlyArray<string>) => {
    upstream.reset()
    const error = await errorOf(await ask(caller, { svc_tool_ids: listed }), 400)
    expect(error.code).toBe("invalid_svc_tool_ids")
    expect(error.param).toBe("svc_tool_ids")
    for (const id of invalid) expect(error.message).toContain(id)
    for (const id of listed.filter((id) => !invalid.includes(id))) expect(error.message).not.toContain(id)
    expect([...(error.invalid_svc_tool_ids ?? [])].sort()).toEqual([...invalid].sort())
    expect(upstream.chatRequests()).toHaveLength(0)
    return error
  }

  it("a listed id that is not installed → 400 invalid_svc_tool_ids", async () => {
    const caller = await createCaller(gw)
    const error = await expectInvalid(caller, ["svc_not_installed"], ["svc_not_installed"])
    expect(error.message).toMatch(/not installed/)
  })

  it("a listed id that is not activated for the org → 400, also once deactivated", async () => {
    const caller = await createCaller(gw)
    const error = await expectInvalid(caller, ["svc_alpha"], ["svc_alpha"])
    expect(error.message).toMatch(/not activated/)

    await activate(gw, caller.orgId, ["svc_alpha"])
    expect(await offered(caller, { svc_tool_ids: ["svc_alpha"] })).toEqual(["svc_alpha"])
    await setOrgTool(gw, caller.orgId, "svc_alpha", { activated: false })
    await expectInvalid(caller, ["svc_alpha"], ["svc_alpha"])
  })

  it("activation is per org: another org's activation does not count", async () => {
    const caller = await createCaller(gw)
    const other = await createOrg(gw)
    await activate(gw, other, ["svc_alpha"])
    await expectInvalid(caller, ["svc_alpha"], ["svc_alpha"])
  })

  it("a listed id the key is not allowed to use → 400; PATCHing the allow-list takes effect at once", async () => {
    const orgId = await createOrg(gw)
    await activate(gw, orgId, ["svc_alpha", "svc_beta"])
    const caller = await createKey(gw, orgId, ["svc_beta"])
    const error = await expectInvalid(caller, ["svc_alpha"], ["svc_alpha"])
    expect(error.message).toMatch(/not allowed/)
    expect(await offered(caller, { svc_tool_ids: ["svc_beta"] })).toEqual(["svc_beta"])

    expect((await gw.admin("PATCH", `/keys/${caller.keyId}`, { allowed_svc_tool_ids: null })).status).toBe(200)
    expect(await offered(caller, { svc_tool_ids: ["svc_alpha"] })).toEqual(["svc_alpha"])
    expect((await gw.admin("PATCH", `/keys/${caller.keyId}`, { allowed_svc_tool_ids: [] })).status).toBe(200)
    await expectInvalid(caller, ["svc_alpha", "svc_beta"], ["svc_alpha", "svc_beta"])
  })

  it("every invalid id is named, with its own reason, and listed in invalid_svc_tool_ids", async () => {
    const orgId = await createOrg(gw)
    await activate(gw, orgId, ["svc_alpha", "svc_beta"])
    const caller = await createKey(gw, orgId, ["svc_alpha", "svc_gamma"])
    // alpha: fine; beta: not allowed; gamma: not activated; svc_zeta: not installed
    const error = await expectInvalid(
      caller,
      ["svc_alpha", "svc_beta", "svc_gamma", "svc_zeta"],
      ["svc_beta", "svc_gamma", "svc_zeta"]
    )
    expect(error.message).toMatch(/not allowed/)
    expect(error.message).toMatch(/not activated/)
    expect(error.message).toMatch(/not installed/)
  })

  it("the same 400 comes before any stream starts", async () => {
    const caller = await createCaller(gw)
    const response = await ask(caller, { stream: true, svc_tool_ids: ["svc_alpha"] })
    const error = await errorOf(response, 400)
    expect(error.code).toBe("invalid_svc_tool_ids")
    expect(error.invalid_svc_tool_ids).toEqual(["svc_alpha"])
  })

  it("a listed tool is appended to the client's tools as a function named by its id", async () => {
    const caller = await createCaller(gw)
    await activate(gw, caller.orgId, ["svc_beta"])
    upstream.reset()
    const response = await ask(caller, { svc_tool_ids: ["svc_beta"], tools: [clientTool] })
    expect(response.status).toBe(200)
    const tools = upstream.chatRequests()[0]?.body.tools
    expect(tools).toEqual([
      clientTool,
      {
        type: "function",
        function: {
          name: "svc_beta",
          description: "Test tool svc_beta: echoes its text",
          parameters: expect.objectContaining({
            type: "object",
            properties: { text: expect.objectContaining({ type: "string" }) }
          })
        }
      }
    ])
  })

  it("svc_tool_ids omitted or empty: only tools hydrated for the org are injected", async () => {
    const caller = await createCaller(gw)
    upstream.reset()
    await ask(caller)
    expect(upstream.chatRequests()[0]?.body).not.toHaveProperty("tools")

    await activate(gw, caller.orgId, ["svc_alpha"])
    await setOrgTool(gw, caller.orgId, "svc_beta", { activated: true, hydrate_org: true })
    expect(await offered(caller)).toEqual(["svc_beta"])
    expect(await offered(caller, { svc_tool_ids: [] })).toEqual(["svc_beta"])
    expect(await offered(caller, { svc_tool_ids: null })).toEqual(["svc_beta"])
  })

  it("a tool hydrated for chosen keys is injected for them only", async () => {
    const orgId = await createOrg(gw)
    const chosen = await createKey(gw, orgId)
    const other = await createKey(gw, orgId)
    await setOrgTool(gw, orgId, "svc_gamma", { activated: true, hydrate_key_ids: [chosen.keyId] })
    expect(await offered(chosen)).toEqual(["svc_gamma"])
    expect(await offered(other)).toEqual([])
  })

  it("an activated tool that is not hydrated for the caller is used only when listed", async () => {
    const orgId = await createOrg(gw)
    const caller = await createKey(gw, orgId)
    const somebody = await createKey(gw, orgId)
    await setOrgTool(gw, orgId, "svc_alpha", { activated: true, hydrate_key_ids: [somebody.keyId] })
    expect(await offered(caller)).toEqual([])
    expect(await offered(caller, { svc_tool_ids: ["svc_alpha"] })).toEqual(["svc_alpha"])
  })

  it("listed and hydrated tools are both injected, once each", async () => {
    const caller = await createCaller(gw)
    await setOrgTool(gw, caller.orgId, "svc_alpha", { activated: true, hydrate_org: true })
    await setOrgTool(gw, caller.orgId, "svc_gamma", { activated: true, hydrate_key_ids: [caller.keyId] })
    await activate(gw, caller.orgId, ["svc_beta"])
    const names = await offered(caller, { svc_tool_ids: ["svc_beta", "svc_alpha", "svc_beta"] })
    expect([...names].sort()).toEqual(["svc_alpha", "svc_beta", "svc_gamma"])
  })

  it("a hydrated tool the key is not allowed to use is not injected (and is no error)", async () => {
    const orgId = await createOrg(gw)
    await setOrgTool(gw, orgId, "svc_alpha", { activated: true, hydrate_org: true })
    await setOrgTool(gw, orgId, "svc_beta", { activated: true, hydrate_org: true })
    const limited = await createKey(gw, orgId, ["svc_beta"])
    const none = await createKey(gw, orgId, [])
    expect(await offered(limited)).toEqual(["svc_beta"])
    expect(await offered(none)).toEqual([])
  })

  it("a hydrated tool that is not activated is not injected", async () => {
    const caller = await createCaller(gw)
    await setOrgTool(gw, caller.orgId, "svc_alpha", {
      activated: false,
      hydrate_org: true,
      hydrate_key_ids: [caller.keyId]
    })
    expect(await offered(caller)).toEqual([])
  })

  it("tool_choice none: nothing is injected, listed or hydrated", async () => {
    const caller = await createCaller(gw)
    await setOrgTool(gw, caller.orgId, "svc_alpha", { activated: true, hydrate_org: true })
    await activate(gw, caller.orgId, ["svc_beta"])
    upstream.reset()
    const response = await ask(caller, { tool_choice: "none", svc_tool_ids: ["svc_beta"], tools: [clientTool] })
    expect(response.status).toBe(200)
    const sent = upstream.chatRequests()[0]?.body
    expect(sent?.tools).toEqual([clientTool])
    expect(sent?.tool_choice).toBe("none")

    upstream.reset()
    expect((await ask(caller, { tool_choice: "none" })).status).toBe(200)
    expect(upstream.chatRequests()[0]?.body).not.toHaveProperty("tools")
  })

  it("a client tool whose name starts with svc_ is refused with a clear 400", async () => {
    const caller = await createCaller(gw)
    await activate(gw, caller.orgId, ["svc_alpha"])
    for (const name of ["svc_alpha", "svc_my_own"]) {
      upstream.reset()
      const tools = [clientTool, { type: "function", function: { name, parameters: { type: "object" } } }]
      const error = await errorOf(await ask(caller, { tools }), 400)
      expect(error.param).toBe("tools[1].function.name")
      expect(error.message).toContain("svc_")
      expect(error.message).toMatch(/reserved/)
      expect(upstream.chatRequests()).toHaveLength(0)
    }
    expect(runs).toHaveLength(0)
  })
})
