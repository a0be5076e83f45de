/**
 * The audit log through the admin API: each change made with the admin token or a person's token is
 * recorded with its actor, action, target, org, values before and after (never a secret), request id
 * and address; owners read every record, an org's admins its own, nobody else; filters by actor, action
 * and time, and refusals of bad ones.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ADMIN_TOKEN, startGateway, type TestGateway } from "../utils/TestGateway.ts"

describe("the audit log", () => {
  let gw: TestGateway
  let orgA: string
  let orgB: string
  let ana: { id: string; email: string; token: string; tokenId: string }
  let vicToken: string
  // other suites change things at the same time (on PostgreSQL, in the same database): look at this run's
  let started: string

  const call = async (token: string, method: string, path: string, body?: unknown, requestId?: string) => {
    const response = await fetch(`${gw.url}/admin/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        ...(requestId === undefined ? {} : { "x-request-id": requestId })
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { status: response.status, json: await response.json() as any }
  }
  const audit = async (query: string, token = ADMIN_TOKEN) => (await call(token, "GET", `/audit${query}`)).json

  beforeAll(async () => {
    gw = await startGateway()
    started = new Date(Date.now() - 1_000).toISOString()
    const suffix = Math.random().toString(36).slice(2)
    orgA = (await call(ADMIN_TOKEN, "POST", "/orgs", { name: `audit-a-${suffix}` }, "req-make-a")).json.id
    orgB = (await call(ADMIN_TOKEN, "POST", "/orgs", { name: `audit-b-${suffix}` })).json.id
    const email = `ana-${suffix}@example.com`
    const user = (await call(ADMIN_TOKEN, "POST", "/users", { email, name: "Ana" })).json
    await call(ADMIN_TOKEN, "PUT", `/users/${user.id}/roles`, { roles: [{ role: "admin", org_id: orgA }] })
    const token = (await call(ADMIN_TOKEN, "POST", `/users/${user.id}/tokens`, { name: "laptop" })).json
    ana = { id: user.id, email, token: token.token, tokenId: token.id }
    const vic = (await call(ADMIN_TOKEN, "POST", "/users", { email: `vic-${suffix}@example.com`, name: "Vic" })).json
    await call(ADMIN_TOKEN, "PUT", `/users/${vic.id}/roles`, { roles: [{ role: "viewer", org_id: orgA }] })
    vicToken = (await call(ADMIN_TOKEN, "POST", `/users/${vic.id}/tokens`, { name: "t" })).json.token
  })
  afterAll(() => gw?.close())

  it("records a change with its actor, target, values before and after, request id and address", async () => {
    const made = await call(ADMIN_TOKEN, "GET", `/orgs/${orgA}/audit?action=org.create`)
    const [record] = made.json.data
    expect(record).toMatchObject({
      actor: { kind: "admin_token", user_id: null, email: null, token_id: null },
      action: "org.create",
      target: { kind: "org", id: orgA },
      org_id: orgA,
      before: null,
      request_id: "req-make-a"
    })
    expect(record.after.id).toBe(orgA)
    expect(record.address).toMatch(/127\.0\.0\.1/)

    await call(ADMIN_TOKEN, "PATCH", `/orgs/${orgA}`, { limits: { rpm: 100 } })
    const [update] = (await call(ADMIN_TOKEN, "GET", `/orgs/${orgA}/audit?action=org.update&limit=1`)).json.data
    expect(update.before.limits.rpm).toBeNull()
    expect(update.after.limits.rpm).toBe(100)
  })

  it("never records a secret: not a key's, not a token's", async () => {
    const key = (await call(ana.token, "POST", `/orgs/${orgA}/keys`, { name: "audited key" })).json
    expect(key.key).toMatch(/^sk-svc-/)
    await call(ana.token, "DELETE", `/keys/${key.id}`)
    const all = JSON.stringify(await audit(`?from=${started}&limit=200`))
    expect(all).not.toContain(key.key)
    expect(all).not.toContain(ana.token)
    const [revoke] = (await call(ADMIN_TOKEN, "GET", `/orgs/${orgA}/audit?action=key.revoke&limit=1`)).json.data
    expect(revoke).toMatchObject({
      actor: { kind: "user", user_id: ana.id, email: ana.email, token_id: ana.tokenId },
      target: { kind: "key", id: key.id },
      org_id: orgA
    })
    expect(revoke.before.revoked_at).toBeNull()
    expect(revoke.after.revoked_at).not.toBeNull()
  })

  it("an org's admins read its records; owners every record; nobody else", async () => {
    await call(ana.token, "PUT", `/orgs/${orgA}/svc-tools/svc_current_time`, { activated: true })
    const own = await call(ana.token, "GET", `/orgs/${orgA}/audit`)
    expect(own.status).toBe(200)
    expect(own.json.data.every((r: any) => r.org_id === orgA)).toBe(true)
    expect(own.json.data.map((r: any) => r.action)).toContain("svc_tool.set")
    expect((await call(ana.token, "GET", `/orgs/${orgB}/audit`)).status).toBe(403)
    expect((await call(ana.token, "GET", "/audit")).status).toBe(403)
    expect((await call(vicToken, "GET", `/orgs/${orgA}/audit`)).status).toBe(403)
    const roles = (await audit(`?action=user.roles&actor=admin_token&from=${started}&limit=200`)).data
    expect(roles.some((r: any) => r.target.id === ana.id && r.after.roles[0].org_id === orgA)).toBe(true)
  })

  it("filters by actor, action and time; refuses bad filters", async () => {
    const byAna = (await audit(`?actor=${encodeURIComponent(ana.email)}&limit=200`)).data
    expect(byAna.length).toBeGreaterThan(0)
    expect(byAna.every((r: any) => r.actor.user_id === ana.id)).toBe(true)
    expect((await audit(`?actor=${ana.id}&limit=200`)).data).toEqual(byAna)
    const times = byAna.map((r: any) => r.created_at)
    expect([...times].sort().reverse()).toEqual(times)
    expect((await audit(`?from=2999-01-01T00:00:00Z`)).data).toEqual([])
    for (
      const query of ["?limit=0", "?from=yesterday", "?nope=1", "?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z"]
    ) {
      expect((await call(ADMIN_TOKEN, "GET", `/audit${query}`)).status, query).toBe(400)
    }
  })
})
