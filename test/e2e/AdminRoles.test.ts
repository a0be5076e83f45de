/**
 * Users, roles and personal access tokens on the admin API: an org admin of A trying every route on B
 * gets 403 (and sees nothing of B in lists); on A she does an admin's work, and grants only admin and
 * viewer on A; a viewer of A reads A and changes nothing; an owner user does what the admin token does;
 * `/me` says who the caller is; a token revoked, or whose user is disabled, is a 401 that says so.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startGateway, type TestGateway } from "../utils/TestGateway.ts"

interface Person {
  readonly id: string
  readonly token: string
}

describe("roles on the admin API", () => {
  let gw: TestGateway
  let orgA: string
  let orgB: string
  let keyB: string
  let ana: Person
  let vic: Person
  let olga: Person

  /** A call with a person's token. */
  const as = async (token: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${gw.url}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await response.text()
    // spend.csv answers CSV
    const json: any = text.startsWith("{") ? JSON.parse(text) : text
    return { status: response.status, json }
  }

  /** A user made by the admin token, with the given roles and a token of her own. */
  const person = async (email: string, roles: ReadonlyArray<{ role: string; org_id?: string }>): Promise<Person> => {
    const user = await gw.admin("POST", "/users", { email, name: email.split("@")[0] })
    expect(user.status, JSON.stringify(user.json)).toBe(201)
    expect((await gw.admin("PUT", `/users/${user.json.id}/roles`, { roles })).status).toBe(200)
    const token = await gw.admin("POST", `/users/${user.json.id}/tokens`, { name: "laptop" })
    expect(token.status).toBe(201)
    expect(token.json.token).toMatch(/^pat-svc-[0-9A-Za-z]{40}$/)
    return { id: user.json.id, token: token.json.token }
  }

  beforeAll(async () => {
    gw = await startGateway()
    const suffix = Math.random().toString(36).slice(2)
    orgA = (await gw.admin("POST", "/orgs", { name: `team-a-${suffix}` })).json.id
    orgB = (await gw.admin("POST", "/orgs", { name: `team-b-${suffix}` })).json.id
    keyB = (await gw.admin("POST", `/orgs/${orgB}/keys`, { name: "b's key" })).json.id
    ana = await person(`ana-${suffix}@example.com`, [{ role: "admin", org_id: orgA }])
    vic = await person(`vic-${suffix}@example.com`, [{ role: "viewer", org_id: orgA }])
    olga = await person(`olga-${suffix}@example.com`, [{ role: "owner" }])
  })
  afterAll(() => gw?.close())

  /** Every route that touches one organization, with a body where it takes one. */
  const orgRoutes = (org: string, key: string): ReadonlyArray<readonly [string, string, unknown?]> => [
    ["GET", `/orgs/${org}`],
    ["PATCH", `/orgs/${org}`, { log_content: false }],
    ["POST", `/orgs/${org}/keys`, { name: "k" }],
    ["GET", `/orgs/${org}/keys`],
    ["GET", `/keys/${key}`],
    ["PATCH", `/keys/${key}`, { name: "renamed" }],
    ["DELETE", `/keys/${key}`],
    ["GET", `/orgs/${org}/svc-tools`],
    ["PUT", `/orgs/${org}/svc-tools/svc_current_time`, { activated: true }],
    ["GET", `/orgs/${org}/requests`],
    ["GET", `/orgs/${org}/requests/req_nope`],
    ["GET", `/orgs/${org}/analytics?group_by=none`],
    ["GET", `/orgs/${org}/spend?group_by=day`],
    ["GET", `/orgs/${org}/spend.csv?group_by=day`],
    ["GET", `/orgs/${org}/sessions`],
    ["GET", `/orgs/${org}/sessions/s-nope`],
    ["GET", `/orgs/${org}/alerts`]
  ]
  const WRITES = new Set(["POST", "PATCH", "PUT", "DELETE"])

  it("/me says who the caller is", async () => {
    expect((await gw.admin("GET", "/me")).json).toEqual({ kind: "admin_token", user: null, token_id: null })
    const me = await as(ana.token, "GET", "/me")
    expect(me.status).toBe(200)
    expect(me.json.kind).toBe("user")
    expect(me.json.user.roles).toEqual([{ role: "admin", org_id: orgA }])
    expect(me.json.token_id).toMatch(/^pat_/)
  })

  it("an org admin of A gets 403 on every route of B, and a clear message", async () => {
    for (const [method, path, body] of orgRoutes(orgB, keyB)) {
      const answer = await as(ana.token, method, path, body)
      expect(answer.status, `${method} ${path}`).toBe(403)
      expect(answer.json.error.code, `${method} ${path}`).toBe("forbidden")
      expect(answer.json.error.message, `${method} ${path}`).toContain(orgB)
    }
    // B's key is untouched
    expect((await gw.admin("GET", `/keys/${keyB}`)).json).toMatchObject({ name: "b's key", revoked_at: null })
  })

  it("an org admin cannot see other orgs, make orgs, read the whole gateway or grant beyond her own", async () => {
    const orgs = await as(ana.token, "GET", "/orgs")
    expect(orgs.json.data.map((org: { id: string }) => org.id)).toEqual([orgA])
    for (
      const [method, path, body] of [
        ["POST", "/orgs", { name: "mine" }],
        ["GET", "/analytics?group_by=none"],
        ["GET", "/spend?group_by=day"],
        ["GET", "/spend.csv?group_by=day"],
        ["GET", "/circuits"],
        ["POST", "/users", { email: "x@example.com", name: "x" }],
        ["PATCH", `/users/${vic.id}`, { disabled: true }],
        ["PUT", `/users/${vic.id}/roles`, { roles: [{ role: "admin", org_id: orgB }] }],
        ["PUT", `/users/${vic.id}/roles`, { roles: [{ role: "owner" }] }],
        ["POST", `/users/${vic.id}/tokens`, { name: "not hers" }],
        ["GET", `/users/${vic.id}/tokens`]
      ] as const
    ) {
      expect((await as(ana.token, method, path, body)).status, `${method} ${path}`).toBe(403)
    }
  })

  it("on her own org, an org admin does an admin's work", async () => {
    const key = await as(ana.token, "POST", `/orgs/${orgA}/keys`, { name: "ana's key" })
    expect(key.status).toBe(201)
    for (const [method, path, body] of orgRoutes(orgA, key.json.id)) {
      const answer = await as(ana.token, method, path, body)
      expect([200, 201, 404], `${method} ${path}: ${JSON.stringify(answer.json)}`).toContain(answer.status)
      if (answer.status === 404) expect(path).toMatch(/nope/)
    }
  })

  it("an org admin gives and takes roles on her org only; the user's other roles stay, unseen by her", async () => {
    const suffix = Math.random().toString(36).slice(2)
    const bo = (await gw.admin("POST", "/users", { email: `bo-${suffix}@example.com`, name: "Bo" })).json.id
    await gw.admin("PUT", `/users/${bo}/roles`, { roles: [{ role: "viewer", org_id: orgB }] })
    const granted = await as(ana.token, "PUT", `/users/${bo}/roles`, { roles: [{ role: "viewer", org_id: orgA }] })
    expect(granted.status).toBe(200)
    expect(granted.json.roles).toEqual([{ role: "viewer", org_id: orgA }])
    const all = (await gw.admin("GET", `/users/${bo}`)).json.roles
    expect(all).toEqual(expect.arrayContaining([{ role: "viewer", org_id: orgA }, { role: "viewer", org_id: orgB }]))
    expect(all).toHaveLength(2)
    // taken away again: B's role is still there
    await as(ana.token, "PUT", `/users/${bo}/roles`, { roles: [] })
    expect((await gw.admin("GET", `/users/${bo}`)).json.roles).toEqual([{ role: "viewer", org_id: orgB }])
  })

  it("a viewer of A reads A and changes nothing", async () => {
    const key = (await gw.admin("POST", `/orgs/${orgA}/keys`, { name: "for vic" })).json.id
    for (const [method, path, body] of orgRoutes(orgA, key)) {
      const answer = await as(vic.token, method, path, body)
      if (WRITES.has(method)) {
        expect(answer.status, `${method} ${path}`).toBe(403)
        expect(answer.json.error.message).toContain("admin")
      } else {
        expect([200, 404], `${method} ${path}`).toContain(answer.status)
      }
    }
    expect((await as(vic.token, "GET", "/users")).status).toBe(403)
  })

  it("an owner user does what the admin token does", async () => {
    const suffix = Math.random().toString(36).slice(2)
    expect((await as(olga.token, "POST", "/orgs", { name: `olga-${suffix}` })).status).toBe(201)
    for (
      const path of ["/analytics?group_by=none", "/spend?group_by=day", "/circuits", "/users", `/orgs/${orgB}/keys`]
    ) {
      expect((await as(olga.token, "GET", path)).status, path).toBe(200)
    }
  })

  it("a person manages her own tokens; a revoked token and a disabled user are refused, saying why", async () => {
    const made = await as(ana.token, "POST", `/users/${ana.id}/tokens`, { name: "ci" })
    expect(made.status).toBe(201)
    const listed = await as(ana.token, "GET", `/users/${ana.id}/tokens`)
    expect(listed.json.data.map((t: { name: string }) => t.name)).toEqual(["laptop", "ci"])
    expect(JSON.stringify(listed.json)).not.toContain(made.json.token)
    expect((await as(made.json.token, "GET", "/me")).status).toBe(200)
    expect((await as(ana.token, "DELETE", `/users/${ana.id}/tokens/${made.json.id}`)).json.revoked_at).not.toBeNull()
    const revoked = await as(made.json.token, "GET", "/me")
    expect(revoked.status).toBe(401)
    expect(revoked.json.error.message).toContain("revoked")

    expect((await gw.admin("PATCH", `/users/${vic.id}`, { disabled: true })).json.disabled_at).not.toBeNull()
    const disabled = await as(vic.token, "GET", "/me")
    expect(disabled.status).toBe(401)
    expect(disabled.json.error.message).toContain("disabled")
    await gw.admin("PATCH", `/users/${vic.id}`, { disabled: false })
    expect((await as(vic.token, "GET", "/me")).status).toBe(200)

    expect((await as("pat-svc-" + "x".repeat(40), "GET", "/me")).status).toBe(401)
  })

  it("refuses bad input plainly", async () => {
    expect((await gw.admin("POST", "/users", { email: "not-an-email", name: "x" })).status).toBe(400)
    // emails are compared lower-cased; the store may be shared with earlier runs: a name of this run's
    const local = `case-${Math.random().toString(36).slice(2)}`
    const taken = await gw.admin("POST", "/users", { email: `${local.toUpperCase()}@Example.com`, name: "x" })
    const again = await gw.admin("POST", "/users", { email: `${local}@example.com`, name: "x" })
    expect([taken.status, again.status]).toEqual([201, 409])
    const owner = await gw.admin("PUT", `/users/${vic.id}/roles`, { roles: [{ role: "owner", org_id: orgA }] })
    expect(owner.status).toBe(400)
    expect(owner.json.error.param).toBe("roles[0].org_id")
    const noOrg = await gw.admin("PUT", `/users/${vic.id}/roles`, { roles: [{ role: "admin" }] })
    expect(noOrg.status).toBe(400)
    const unknownOrg = await gw.admin("PUT", `/users/${vic.id}/roles`, {
      roles: [{ role: "admin", org_id: "org_nope" }]
    })
    expect(unknownOrg.status).toBe(404)
    expect((await gw.admin("GET", "/users/user_nope")).status).toBe(404)
  })
})
