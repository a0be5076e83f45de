/**
 * Which shared tools a request gets. The pure `selectTools`, one rule per test (validation of listed
 * ids, hydration for the org and for a key, the key's allow-list, `tool_choice: "none"`, carried ids of
 * a continued turn); then the store-backed `Policy` on the in-memory embedded store: the org's settings, their
 * upsert and its errors, and that a change is seen by the next request at once.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Caller } from "../../../src/kernel/Caller.ts"
import { ApiKeys } from "../../../src/keys/ApiKeys.ts"
import { Orgs } from "../../../src/orgs/Orgs.ts"
import { type OrgToolSetting, Policy, selectTools } from "../../../src/tools/Policy.ts"
import type { SvcTool } from "../../../src/tools/SvcTool.ts"
import { ToolRegistry } from "../../../src/tools/ToolRegistry.ts"
import { notFoundOf, RepositoriesLive, unique } from "../../utils/TestStore.ts"
import { echoTool, testCaller } from "../../utils/ToolFixtures.ts"

// ---------------------------------------------------------------------------------------------------
// selectTools

const catalogue: ReadonlyArray<SvcTool> = ["svc_a", "svc_b", "svc_c", "svc_d"].map((id) => echoTool(id))
const registry = { get: (id: string) => catalogue.find((tool) => tool.id === id), all: catalogue }

const setting = (id: string, fields: Partial<Omit<OrgToolSetting, "id">> = {}): OrgToolSetting => ({
  id,
  activated: true,
  hydrate_org: false,
  hydrate_key_ids: [],
  ...fields
})
const settingsOf = (...settings: ReadonlyArray<OrgToolSetting>): ReadonlyMap<string, OrgToolSetting> =>
  new Map(settings.map((entry) => [entry.id, entry]))

/** The injected ids, or the invalid ones with why, as one comparable value. */
const select = (
  settings: ReadonlyMap<string, OrgToolSetting>,
  listed: ReadonlyArray<string>,
  options: { caller?: Caller; toolChoice?: "none" | "auto"; carried?: ReadonlyArray<string> } = {}
) => {
  const selected = selectTools(registry, settings, options.caller ?? testCaller(), {
    listed,
    toolChoice: options.toolChoice,
    carried: options.carried
  })
  return "invalid" in selected ? { invalid: selected.invalid } : { tools: selected.tools.map((tool) => tool.id) }
}

const onlyAllowed = (...ids: ReadonlyArray<string>) => testCaller({ allowedSvcToolIds: ids })

describe("selectTools: listed ids", () => {
  it("an installed, activated, allowed id is injected", () => {
    assert.deepStrictEqual(select(settingsOf(setting("svc_a")), ["svc_a"]), { tools: ["svc_a"] })
    assert.deepStrictEqual(
      select(settingsOf(setting("svc_a")), ["svc_a"], { caller: onlyAllowed("svc_a") }),
      { tools: ["svc_a"] }
    )
  })

  it("an id that is not installed is refused: not installed", () => {
    assert.deepStrictEqual(select(settingsOf(setting("svc_a")), ["svc_zzz"]), {
      invalid: [{ id: "svc_zzz", why: "not installed" }]
    })
  })

  it("an id that is not activated (never set, or set off) is refused: not activated", () => {
    const why = "not activated for this organization"
    assert.deepStrictEqual(select(settingsOf(), ["svc_a"]), { invalid: [{ id: "svc_a", why }] })
    assert.deepStrictEqual(
      select(settingsOf(setting("svc_a", { activated: false, hydrate_org: true })), ["svc_a"]),
      { invalid: [{ id: "svc_a", why }] }
    )
  })

  it("an id the key does not allow is refused: not allowed for this API key", () => {
    const why = "not allowed for this API key"
    assert.deepStrictEqual(
      select(settingsOf(setting("svc_a"), setting("svc_b")), ["svc_a"], { caller: onlyAllowed("svc_b") }),
      { invalid: [{ id: "svc_a", why }] }
    )
    assert.deepStrictEqual(
      select(settingsOf(setting("svc_a")), ["svc_a"], { caller: onlyAllowed() }),
      { invalid: [{ id: "svc_a", why }] }
    )
  })

  it("every invalid id is named in one error, in the listed order, and nothing is injected", () => {
    const settings = settingsOf(setting("svc_a", { hydrate_org: true }), setting("svc_b"), setting("svc_c"))
    assert.deepStrictEqual(
      select(settings, ["svc_d", "svc_b", "svc_nope", "svc_c", "svc_b"], { caller: onlyAllowed("svc_a", "svc_b") }),
      {
        invalid: [
          { id: "svc_d", why: "not activated for this organization" },
          { id: "svc_nope", why: "not installed" },
          { id: "svc_c", why: "not allowed for this API key" }
        ]
      }
    )
  })

  it("an id listed twice is injected once", () => {
    assert.deepStrictEqual(select(settingsOf(setting("svc_a")), ["svc_a", "svc_a"]), { tools: ["svc_a"] })
  })

  it("tools come in catalogue order, whatever the listed order", () => {
    const settings = settingsOf(setting("svc_a"), setting("svc_c"), setting("svc_d"))
    assert.deepStrictEqual(select(settings, ["svc_d", "svc_a", "svc_c"]), { tools: ["svc_a", "svc_c", "svc_d"] })
  })
})

describe("selectTools: hydration", () => {
  const settings = settingsOf(
    setting("svc_a", { hydrate_org: true }),
    setting("svc_b", { hydrate_key_ids: ["key_1"] }),
    setting("svc_c"),
    setting("svc_d", { hydrate_key_ids: ["key_other"] })
  )

  it("an omitted or empty list injects only the tools hydrated for the org or for this key", () => {
    assert.deepStrictEqual(select(settings, []), { tools: ["svc_a", "svc_b"] })
  })

  it("key-level hydration applies to its keys only", () => {
    assert.deepStrictEqual(select(settings, [], { caller: testCaller({ keyId: "key_other" }) }), {
      tools: ["svc_a", "svc_d"]
    })
    assert.deepStrictEqual(select(settings, [], { caller: testCaller({ keyId: "key_3" }) }), { tools: ["svc_a"] })
  })

  it("listed and hydrated tools are injected once each", () => {
    assert.deepStrictEqual(select(settings, ["svc_a", "svc_c"]), { tools: ["svc_a", "svc_b", "svc_c"] })
  })

  it("an activated tool that is not hydrated is injected only when listed", () => {
    assert.notInclude(select(settings, []).tools ?? [], "svc_c")
    assert.include(select(settings, ["svc_c"]).tools ?? [], "svc_c")
  })

  it("a hydrated tool the key does not allow is not injected (and is no error)", () => {
    assert.deepStrictEqual(select(settings, [], { caller: onlyAllowed("svc_b", "svc_c") }), { tools: ["svc_b"] })
    assert.deepStrictEqual(select(settings, [], { caller: onlyAllowed() }), { tools: [] })
  })

  it("a hydrated tool that is not activated is not injected", () => {
    const off = settingsOf(setting("svc_a", { activated: false, hydrate_org: true, hydrate_key_ids: ["key_1"] }))
    assert.deepStrictEqual(select(off, []), { tools: [] })
  })

  it("a hydrated setting of a tool no longer installed is ignored", () => {
    assert.deepStrictEqual(select(settingsOf(setting("svc_removed", { hydrate_org: true })), []), { tools: [] })
  })
})

describe("selectTools: tool_choice", () => {
  const settings = settingsOf(setting("svc_a", { hydrate_org: true }), setting("svc_b"))

  it("\"none\" injects nothing, neither listed nor hydrated tools", () => {
    assert.deepStrictEqual(select(settings, ["svc_b"], { toolChoice: "none" }), { tools: [] })
    assert.deepStrictEqual(select(settings, [], { toolChoice: "none" }), { tools: [] })
  })

  it("\"none\" still refuses invalid listed ids: validation comes first", () => {
    assert.deepStrictEqual(select(settings, ["svc_b", "svc_c"], { toolChoice: "none" }), {
      invalid: [{ id: "svc_c", why: "not activated for this organization" }]
    })
  })

  it("\"auto\" is the same as no tool_choice", () => {
    assert.deepStrictEqual(select(settings, ["svc_b"], { toolChoice: "auto" }), select(settings, ["svc_b"]))
  })
})

describe("selectTools: carried ids of a continued turn", () => {
  it("are injected again while still installed, activated and allowed, without being listed", () => {
    assert.deepStrictEqual(select(settingsOf(setting("svc_c")), [], { carried: ["svc_c"] }), { tools: ["svc_c"] })
  })

  it("are dropped silently once deactivated, disallowed for the key, or uninstalled", () => {
    const settings = settingsOf(setting("svc_a", { activated: false }), setting("svc_b"), setting("svc_c"))
    assert.deepStrictEqual(
      select(settings, [], { carried: ["svc_a", "svc_b", "svc_c", "svc_gone"], caller: onlyAllowed("svc_c") }),
      { tools: ["svc_c"] }
    )
  })

  it("are not injected with tool_choice \"none\"", () => {
    assert.deepStrictEqual(select(settingsOf(setting("svc_c")), [], { carried: ["svc_c"], toolChoice: "none" }), {
      tools: []
    })
  })
})

// ---------------------------------------------------------------------------------------------------
// the store-backed Policy

const PolicyLive = Policy.layer.pipe(
  Layer.provideMerge(ToolRegistry.layer),
  Layer.provideMerge(RepositoriesLive)
)

/** A new org with one key, and that key as a caller. */
const newOrg = Effect.gen(function*() {
  const org = yield* (yield* Orgs).create(unique("policy-org"))
  const key = yield* (yield* ApiKeys).create(org.id, { name: "k", expiresAt: null })
  const caller: Caller = {
    keyId: key.id,
    keyName: key.name,
    orgId: org.id,
    allowedSvcToolIds: null,
    logContent: false,
    compression: null
  }
  return { org, key, caller, policy: yield* Policy }
})

const idsOf = (tools: ReadonlyArray<SvcTool>) => tools.map((tool) => tool.id)

layer(PolicyLive)("Policy on the store", (it) => {
  it.effect("orgTools lists every installed tool, inactive and unhydrated by default", () =>
    Effect.gen(function*() {
      const { org, policy } = yield* newOrg
      const registry = yield* ToolRegistry
      assert.deepStrictEqual(
        yield* policy.orgTools(org.id),
        registry.all.map((tool) => ({ id: tool.id, activated: false, hydrate_org: false, hydrate_key_ids: [] }))
      )
    }))

  it.effect("setOrgTool inserts, then updates the same row; omitted hydration fields are kept", () =>
    Effect.gen(function*() {
      const { key, org, policy } = yield* newOrg
      const first = yield* policy.setOrgTool(org.id, "svc_current_time", {
        activated: true,
        hydrateOrg: true,
        hydrateKeyIds: [key.id, key.id]
      })
      assert.deepStrictEqual(first, {
        id: "svc_current_time",
        activated: true,
        hydrate_org: true,
        hydrate_key_ids: [key.id]
      })
      const second = yield* policy.setOrgTool(org.id, "svc_current_time", { activated: false })
      assert.deepStrictEqual(second, { ...first, activated: false })
      const listed = yield* policy.orgTools(org.id)
      assert.deepStrictEqual(listed.find((entry) => entry.id === "svc_current_time"), second)
      assert.deepStrictEqual(listed.find((entry) => entry.id === "svc_generate_uuid")?.activated, false)
      const cleared = yield* policy.setOrgTool(org.id, "svc_current_time", { activated: true, hydrateKeyIds: [] })
      assert.deepStrictEqual(cleared.hydrate_key_ids, [])
      assert.isTrue(cleared.hydrate_org)
    }))

  it.effect("setOrgTool on a tool that is not installed: NotFound", () =>
    Effect.gen(function*() {
      const { org, policy } = yield* newOrg
      const error = yield* Effect.flip(policy.setOrgTool(org.id, "svc_nope", { activated: true }))
      if (error._tag === "RequestError") return assert.fail("expected NotFound, got RequestError")
      assert.deepStrictEqual(notFoundOf(error), {
        entity: "shared tool",
        id: "svc_nope"
      })
    }))

  it.effect("hydrate_key_ids naming another org's key: RequestError on that field; nothing stored", () =>
    Effect.gen(function*() {
      const { org, policy } = yield* newOrg
      const other = yield* newOrg
      const error = yield* Effect.flip(
        policy.setOrgTool(org.id, "svc_generate_uuid", { activated: true, hydrateKeyIds: [other.key.id] })
      )
      assert.strictEqual(error._tag, "RequestError")
      if (error._tag !== "RequestError" || error.reason._tag !== "InvalidField") return assert.fail("InvalidField")
      assert.strictEqual(error.reason.param, "hydrate_key_ids")
      assert.include(error.reason.message, other.key.id)
      const stored = (yield* policy.orgTools(org.id)).find((entry) => entry.id === "svc_generate_uuid")
      assert.isFalse(stored?.activated)
    }))

  it.effect("an unknown org: NotFound from orgTools and setOrgTool", () =>
    Effect.gen(function*() {
      const policy = yield* Policy
      const listError = yield* Effect.flip(policy.orgTools("org_missing"))
      assert.deepStrictEqual(notFoundOf(listError), { entity: "organization", id: "org_missing" })
      const setError = yield* Effect.flip(policy.setOrgTool("org_missing", "svc_current_time", { activated: true }))
      if (setError._tag === "RequestError") return assert.fail("expected NotFound, got RequestError")
      assert.deepStrictEqual(notFoundOf(setError), { entity: "organization", id: "org_missing" })
    }))

  it.effect("a change through setOrgTool is seen by the next toolsFor at once (the cache is dropped)", () =>
    Effect.gen(function*() {
      const { caller, org, policy } = yield* newOrg
      assert.deepStrictEqual(idsOf(yield* policy.toolsFor(caller, { listed: [], toolChoice: undefined })), [])
      yield* policy.setOrgTool(org.id, "svc_current_time", { activated: true, hydrateOrg: true })
      assert.deepStrictEqual(idsOf(yield* policy.toolsFor(caller, { listed: [], toolChoice: undefined })), [
        "svc_current_time"
      ])
      yield* policy.setOrgTool(org.id, "svc_current_time", { activated: false })
      assert.deepStrictEqual(idsOf(yield* policy.toolsFor(caller, { listed: [], toolChoice: undefined })), [])
    }))

  it.effect("toolsFor: listed, key-hydrated, and invalid ids as RequestError InvalidSvcToolIds", () =>
    Effect.gen(function*() {
      const { caller, key, org, policy } = yield* newOrg
      const otherKey = yield* (yield* ApiKeys).create(org.id, { name: "other", expiresAt: null })
      yield* policy.setOrgTool(org.id, "svc_generate_uuid", { activated: true, hydrateKeyIds: [key.id] })
      yield* policy.setOrgTool(org.id, "svc_current_time", { activated: true })
      assert.deepStrictEqual(idsOf(yield* policy.toolsFor(caller, { listed: [], toolChoice: undefined })), [
        "svc_generate_uuid"
      ])
      assert.deepStrictEqual(
        idsOf(yield* policy.toolsFor({ ...caller, keyId: otherKey.id }, { listed: [], toolChoice: undefined })),
        []
      )
      assert.deepStrictEqual(
        idsOf(yield* policy.toolsFor(caller, { listed: ["svc_current_time"], toolChoice: undefined })),
        ["svc_current_time", "svc_generate_uuid"]
      )
      const error = yield* Effect.flip(
        policy.toolsFor(caller, { listed: ["svc_nope", "svc_current_time"], toolChoice: undefined })
      )
      if (error._tag !== "RequestError" || error.reason._tag !== "InvalidSvcToolIds") {
        return assert.fail(`expected InvalidSvcToolIds, got ${error._tag}`)
      }
      assert.deepStrictEqual(error.reason.invalid, [{ id: "svc_nope", why: "not installed" }])
    }))
})
