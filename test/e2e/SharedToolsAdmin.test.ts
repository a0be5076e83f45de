/**
 * The shared-tools admin API over raw fetch: the installed catalogue, per-org activation and hydration,
 * and the per-key allow-list (`allowed_svc_tool_ids` on create, listings and PATCH). Runs over the real
 * plugins (`svc_current_time`, `svc_generate_uuid`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  createCaller,
  createKey,
  createOrg,
  type KeyInfo,
  type OrgToolSetting,
  setOrgTool
} from "../utils/SharedToolsHarness.ts"
import { expectError, startGateway, type TestGateway } from "../utils/TestGateway.ts"

const PLUGINS = ["svc_current_time", "svc_expand_output", "svc_generate_uuid"]

interface CatalogueEntry {
  readonly id: string
  readonly description: string
  readonly parameters: { readonly type?: string; readonly properties?: Readonly<Record<string, unknown>> }
}

describe("shared tools admin API", () => {
  let gw: TestGateway

  beforeAll(async () => {
    gw = await startGateway()
  })
  afterAll(() => gw?.close())

  const orgTools = async (orgId: string): Promise<ReadonlyArray<OrgToolSetting>> => {
    const listed = await gw.admin("GET", `/orgs/${orgId}/svc-tools`)
    expect(listed.status).toBe(200)
    expect(listed.json.object).toBe("list")
    return listed.json.data as ReadonlyArray<OrgToolSetting>
  }

  it("GET /svc-tools lists every installed tool with its description and JSON Schema parameters", async () => {
    const response = await gw.admin("GET", "/svc-tools")
    expect(response.status).toBe(200)
    expect(response.json.object).toBe("list")
    const data = response.json.data as ReadonlyArray<CatalogueEntry>
    expect(data.map((tool) => tool.id)).toEqual(PLUGINS)
    for (const tool of data) {
      expect(Object.keys(tool).sort()).toEqual(["description", "id", "parameters"])
      expect(tool.description.length).toBeGreaterThan(10)
      expect(tool.parameters.type).toBe("object")
    }
    expect(Object.keys(data[0]?.parameters.properties ?? {})).toEqual(["timezone"])
    expect(Object.keys(data[1]?.parameters.properties ?? {})).toEqual(["id", "offset", "max_lines"])
    expect(data[2]?.parameters.properties ?? {}).toEqual({})
  })

  it("the shared-tool admin routes need the admin token", async () => {
    const { orgId, key } = await createCaller(gw)
    const routes: ReadonlyArray<readonly [string, string, unknown?]> = [
      ["GET", "/svc-tools"],
      ["GET", `/orgs/${orgId}/svc-tools`],
      ["PUT", `/orgs/${orgId}/svc-tools/svc_current_time`, { activated: true }]
    ]
    for (const [method, path, body] of routes) {
      for (const token of [undefined, "wrong", key]) {
        const response = await fetch(`${gw.url}/admin/v1${path}`, {
          method,
          headers: {
            "content-type": "application/json",
            ...(token === undefined ? {} : { authorization: `Bearer ${token}` })
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) })
        })
        await expectError(response, 401, { code: "invalid_admin_token" })
      }
    }
    // the refused PUT changed nothing
    expect((await orgTools(orgId)).every((tool) => !tool.activated)).toBe(true)
  })

  it("GET /orgs/{org}/svc-tools: every installed tool, inactive until set", async () => {
    const orgId = await createOrg(gw)
    expect(await orgTools(orgId)).toEqual(
      PLUGINS.map((id) => ({ id, activated: false, hydrate_org: false, hydrate_key_ids: [] }))
    )
  })

  it("PUT activates a tool, with org and per-key hydration, and GET shows it", async () => {
    const orgId = await createOrg(gw)
    const { keyId } = await createKey(gw, orgId)
    const set = await setOrgTool(gw, orgId, "svc_current_time", {
      activated: true,
      hydrate_org: true,
      hydrate_key_ids: [keyId]
    })
    expect(set).toEqual({ id: "svc_current_time", activated: true, hydrate_org: true, hydrate_key_ids: [keyId] })
    expect(await orgTools(orgId)).toEqual([
      { id: "svc_current_time", activated: true, hydrate_org: true, hydrate_key_ids: [keyId] },
      { id: "svc_expand_output", activated: false, hydrate_org: false, hydrate_key_ids: [] },
      { id: "svc_generate_uuid", activated: false, hydrate_org: false, hydrate_key_ids: [] }
    ])
  })

  it("PUT without the hydration fields keeps them; with them replaces them; settings are per org", async () => {
    const orgId = await createOrg(gw)
    const other = await createOrg(gw)
    const { keyId } = await createKey(gw, orgId)
    await setOrgTool(gw, orgId, "svc_generate_uuid", { activated: true, hydrate_org: true, hydrate_key_ids: [keyId] })
    expect(await setOrgTool(gw, orgId, "svc_generate_uuid", { activated: false })).toEqual({
      id: "svc_generate_uuid",
      activated: false,
      hydrate_org: true,
      hydrate_key_ids: [keyId]
    })
    expect(
      await setOrgTool(gw, orgId, "svc_generate_uuid", { activated: true, hydrate_org: false, hydrate_key_ids: [] })
    )
      .toEqual({ id: "svc_generate_uuid", activated: true, hydrate_org: false, hydrate_key_ids: [] })
    expect((await orgTools(other)).every((tool) => !tool.activated && !tool.hydrate_org)).toBe(true)
  })

  it("PUT refuses an unknown tool, an unknown org, another org's key and a malformed body", async () => {
    const orgId = await createOrg(gw)
    const foreign = await createCaller(gw)

    const unknownTool = await gw.admin("PUT", `/orgs/${orgId}/svc-tools/svc_nope`, { activated: true })
    expect(unknownTool.status).toBe(404)
    expect(unknownTool.json.error.code).toBe("not_found")
    expect(unknownTool.json.error.message).toContain("svc_nope")

    const unknownOrg = await gw.admin("PUT", "/orgs/org_missing/svc-tools/svc_current_time", { activated: true })
    expect(unknownOrg.status).toBe(404)
    expect((await gw.admin("GET", "/orgs/org_missing/svc-tools")).status).toBe(404)

    const foreignKey = await gw.admin("PUT", `/orgs/${orgId}/svc-tools/svc_current_time`, {
      activated: true,
      hydrate_key_ids: [foreign.keyId]
    })
    expect(foreignKey.status).toBe(400)
    expect(foreignKey.json.error.param).toBe("hydrate_key_ids")
    expect(foreignKey.json.error.message).toContain(foreign.keyId)

    for (const body of [{}, { activated: "yes" }, { activated: true, hydrate_key_ids: "key_x" }]) {
      const bad = await gw.admin("PUT", `/orgs/${orgId}/svc-tools/svc_current_time`, body)
      expect(bad.status, JSON.stringify(body)).toBe(400)
      expect(bad.json.error.type).toBe("invalid_request_error")
    }
    // nothing was stored by the refused calls
    expect((await orgTools(orgId)).every((tool) => !tool.activated)).toBe(true)
  })

  it("key create accepts allowed_svc_tool_ids; the key, its listing and GET show it (null when absent)", async () => {
    const orgId = await createOrg(gw)
    const limited = await createKey(gw, orgId, ["svc_current_time"])
    const open = await createKey(gw, orgId)
    expect(limited.info.allowed_svc_tool_ids).toEqual(["svc_current_time"])
    expect(open.info.allowed_svc_tool_ids).toBeNull()

    const listed = await gw.admin("GET", `/orgs/${orgId}/keys`)
    expect(listed.status).toBe(200)
    const keys = listed.json.data as ReadonlyArray<KeyInfo>
    expect(keys.find((k) => k.id === limited.keyId)?.allowed_svc_tool_ids).toEqual(["svc_current_time"])
    expect(keys.find((k) => k.id === open.keyId)?.allowed_svc_tool_ids).toBeNull()

    const one = await gw.admin("GET", `/keys/${limited.keyId}`)
    expect(one.json.allowed_svc_tool_ids).toEqual(["svc_current_time"])

    const empty = await createKey(gw, orgId, [])
    expect(empty.info.allowed_svc_tool_ids).toEqual([])
  })

  it("key create refuses an allow-list naming a tool that is not installed", async () => {
    const orgId = await createOrg(gw)
    const refused = await gw.admin("POST", `/orgs/${orgId}/keys`, { name: "k", allowed_svc_tool_ids: ["svc_nope"] })
    expect(refused.status).toBe(400)
    expect(refused.json.error.param).toBe("allowed_svc_tool_ids")
    expect(refused.json.error.message).toContain("svc_nope")
  })

  it("PATCH /keys/{key}: sets the allow-list, back to null, renames and sets expires_at; only given fields change", async () => {
    const orgId = await createOrg(gw)
    const { keyId } = await createKey(gw, orgId)

    const restricted = await gw.admin("PATCH", `/keys/${keyId}`, { allowed_svc_tool_ids: ["svc_generate_uuid"] })
    expect(restricted.status).toBe(200)
    expect(restricted.json.allowed_svc_tool_ids).toEqual(["svc_generate_uuid"])

    const expiresAt = "2099-01-01T00:00:00.000Z"
    const renamed = await gw.admin("PATCH", `/keys/${keyId}`, { name: "renamed", expires_at: expiresAt })
    expect(renamed.status).toBe(200)
    expect(renamed.json).toMatchObject({
      name: "renamed",
      expires_at: expiresAt,
      allowed_svc_tool_ids: ["svc_generate_uuid"]
    })

    const reopened = await gw.admin("PATCH", `/keys/${keyId}`, { allowed_svc_tool_ids: null })
    expect(reopened.status).toBe(200)
    expect(reopened.json).toMatchObject({ name: "renamed", expires_at: expiresAt, allowed_svc_tool_ids: null })

    const listed = await gw.admin("GET", `/orgs/${orgId}/keys`)
    expect((listed.json.data as ReadonlyArray<KeyInfo>).find((k) => k.id === keyId)?.allowed_svc_tool_ids).toBeNull()
  })

  it("PATCH refuses an unknown key, an unknown tool and bad values", async () => {
    const { keyId } = await createCaller(gw)
    expect((await gw.admin("PATCH", "/keys/key_missing", { allowed_svc_tool_ids: null })).status).toBe(404)
    const unknownTool = await gw.admin("PATCH", `/keys/${keyId}`, {
      allowed_svc_tool_ids: ["svc_current_time", "svc_nope"]
    })
    expect(unknownTool.status).toBe(400)
    expect(unknownTool.json.error.param).toBe("allowed_svc_tool_ids")
    expect(unknownTool.json.error.message).toContain("svc_nope")
    expect((await gw.admin("PATCH", `/keys/${keyId}`, { allowed_svc_tool_ids: "svc_current_time" })).status).toBe(400)
    expect((await gw.admin("PATCH", `/keys/${keyId}`, { expires_at: "2001-01-01T00:00:00Z" })).status).toBe(400)
    // none of the refused edits stuck
    expect((await gw.admin("GET", `/keys/${keyId}`)).json.allowed_svc_tool_ids).toBeNull()
  })
})
