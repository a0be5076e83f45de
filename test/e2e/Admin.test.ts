/**
 * The admin API under `/admin/v1` over raw `fetch`: the admin token guard, organizations, and API keys
 * (the secret shown once, listings without it, expiry checks, revocation), with OpenAI-shaped errors.
 * The store may be a shared PostgreSQL database, so assertions never assume it starts empty.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ADMIN_TOKEN, expectError, postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"

const hello = { model: "local/echo", messages: [{ role: "user", content: "hi admin" }] }
const unique = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10)}`

describe("admin API", () => {
  let gw: TestGateway

  beforeAll(async () => {
    gw = await startGateway()
  })
  afterAll(() => gw?.close())

  const adminFetch = (method: string, path: string, token: string | undefined, body?: unknown) =>
    fetch(`${gw.url}/admin/v1${path}`, {
      method,
      headers: {
        "content-type": "application/json",
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` })
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })

  const newOrg = async () => {
    const created = await gw.admin("POST", "/orgs", { name: unique("org") })
    expect(created.status).toBe(201)
    return created.json as { id: string; name: string; created_at: string }
  }

  describe("the admin token", () => {
    const routes: ReadonlyArray<readonly [string, string, unknown?]> = [
      ["GET", "/orgs"],
      ["POST", "/orgs", { name: "intruder" }],
      ["GET", "/orgs/org_x/keys"],
      ["POST", "/orgs/org_x/keys", { name: "k" }],
      ["DELETE", "/keys/key_x"]
    ]

    for (const [method, path, body] of routes) {
      it(`${method} ${path}: 401 without it, with a wrong one, or with an API key`, async () => {
        const { key } = await gw.newKey()
        for (const token of [undefined, "wrong-token", `${ADMIN_TOKEN}x`, key]) {
          const error = await expectError(await adminFetch(method, path, token, body), 401, {
            type: "authentication_error",
            code: "invalid_admin_token",
            param: null
          })
          expect(error.message).toContain("GATEWAY_ADMIN_TOKEN")
        }
      })
    }

    it("a refused request changes nothing", async () => {
      const name = unique("never")
      await adminFetch("POST", "/orgs", "wrong-token", { name })
      const orgs = await gw.admin("GET", "/orgs")
      expect(orgs.json.data.map((o: { name: string }) => o.name)).not.toContain(name)
    })
  })

  describe("organizations", () => {
    it("create, list and get", async () => {
      const name = unique("acme")
      const created = await gw.admin("POST", "/orgs", { name })
      expect(created.status).toBe(201)
      expect(created.json).toEqual({
        id: expect.stringMatching(/^org_/),
        name,
        created_at: expect.any(String),
        log_content: false,
        compression: null,
        limits: {
          rpm: null,
          tpm: null,
          tokens_per_day: null,
          tokens_per_month: null,
          usd_per_day: null,
          usd_per_month: null
        },
        alerts: null
      })
      expect(Number.isNaN(Date.parse(created.json.created_at))).toBe(false)

      const listed = await gw.admin("GET", "/orgs")
      expect(listed.status).toBe(200)
      expect(listed.json.object).toBe("list")
      expect(listed.json.data).toContainEqual(created.json)

      const got = await gw.admin("GET", `/orgs/${created.json.id}`)
      expect(got.status).toBe(200)
      expect(got.json).toEqual(created.json)
    })

    it("an invalid name is 400 on `name`", async () => {
      for (const body of [{ name: "" }, { name: 42 }, {}, { name: "  padded  " }]) {
        const response = await adminFetch("POST", "/orgs", ADMIN_TOKEN, body)
        await expectError(response, 400, { type: "invalid_request_error", param: "name" })
      }
    })

    it("an unknown org is 404", async () => {
      for (
        const [method, path, body] of [
          ["GET", "/orgs/org_doesnotexist"],
          ["GET", "/orgs/org_doesnotexist/keys"],
          ["POST", "/orgs/org_doesnotexist/keys", { name: "k" }]
        ] as const
      ) {
        const error = await expectError(await adminFetch(method, path, ADMIN_TOKEN, body), 404, {
          type: "invalid_request_error",
          code: "not_found"
        })
        expect(error.message).toContain("org_doesnotexist")
      }
    })
  })

  describe("API keys", () => {
    it("create returns the secret once; listings and lookups show only its prefix", async () => {
      const org = await newOrg()
      const created = await gw.admin("POST", `/orgs/${org.id}/keys`, { name: "ci" })
      expect(created.status).toBe(201)
      const key = created.json
      expect(key).toMatchObject({ org_id: org.id, name: "ci", expires_at: null, revoked_at: null })
      expect(key.id).toMatch(/^key_/)
      expect(key.key).toMatch(/^sk-svc-[0-9A-Za-z]{40}$/)
      expect(key.key.startsWith(key.prefix)).toBe(true)
      expect(key.prefix.length).toBeLessThan(key.key.length)

      const listed = await gw.admin("GET", `/orgs/${org.id}/keys`)
      expect(listed.status).toBe(200)
      expect(listed.json.object).toBe("list")
      expect(listed.json.data).toHaveLength(1)
      const entry = listed.json.data[0]
      expect(entry.prefix).toBe(key.prefix)
      expect(entry).not.toHaveProperty("key")
      expect(JSON.stringify(listed.json)).not.toContain(key.key)

      const got = await gw.admin("GET", `/keys/${key.id}`)
      expect(got.status).toBe(200)
      expect(got.json).not.toHaveProperty("key")
      expect(got.json.prefix).toBe(key.prefix)

      // and the key works at once
      const chat = await postChat(gw.url, hello, { key: key.key })
      expect(chat.status).toBe(200)
    })

    it("a future expires_at is kept", async () => {
      const org = await newOrg()
      const expiresAt = new Date(Date.now() + 86_400_000).toISOString()
      const created = await gw.admin("POST", `/orgs/${org.id}/keys`, { name: "tmp", expires_at: expiresAt })
      expect(created.status).toBe(201)
      expect(Date.parse(created.json.expires_at)).toBe(Date.parse(expiresAt))
    })

    it("a description is set at creation, changed or cleared by PATCH, and shown wherever the key is", async () => {
      const org = await newOrg()
      const created = await gw.admin("POST", `/orgs/${org.id}/keys`, { name: "ci", description: "nightly builds" })
      expect(created.status).toBe(201)
      expect(created.json.description).toBe("nightly builds")
      const plain = await gw.admin("POST", `/orgs/${org.id}/keys`, { name: "plain" })
      expect(plain.json.description).toBeNull()

      const changed = await gw.admin("PATCH", `/keys/${created.json.id}`, { description: "release builds" })
      expect(changed.status).toBe(200)
      expect(changed.json.description).toBe("release builds")
      expect((await gw.admin("GET", `/keys/${created.json.id}`)).json.description).toBe("release builds")
      const listed = await gw.admin("GET", `/orgs/${org.id}/keys`)
      expect(listed.json.data.map((key: { description: string | null }) => key.description)).toEqual([
        "release builds",
        null
      ])
      const cleared = await gw.admin("PATCH", `/keys/${created.json.id}`, { description: null })
      expect(cleared.json.description).toBeNull()
    })

    it("a description that is not text, or too long, is 400 on `description`; nothing changes", async () => {
      const org = await newOrg()
      for (const description of [42, ["a"], "x".repeat(1001)]) {
        const response = await adminFetch("POST", `/orgs/${org.id}/keys`, ADMIN_TOKEN, { name: "bad", description })
        await expectError(response, 400, { type: "invalid_request_error", param: "description" })
      }
      expect((await gw.admin("GET", `/orgs/${org.id}/keys`)).json.data).toEqual([])
      const key = await gw.admin("POST", `/orgs/${org.id}/keys`, { name: "kept", description: "as it was" })
      const refused = await adminFetch("PATCH", `/keys/${key.json.id}`, ADMIN_TOKEN, { description: 7 })
      await expectError(refused, 400, { param: "description" })
      expect((await gw.admin("GET", `/keys/${key.json.id}`)).json.description).toBe("as it was")
    })

    it("a bad expires_at is 400 on `expires_at`", async () => {
      const org = await newOrg()
      const past = new Date(Date.now() - 60_000).toISOString()
      for (const expires_at of [past, "tomorrow", "2030-13-45T00:00:00Z", "2030-01-01", 1_900_000_000]) {
        const response = await adminFetch("POST", `/orgs/${org.id}/keys`, ADMIN_TOKEN, { name: "bad", expires_at })
        const error = await expectError(response, 400, { type: "invalid_request_error", param: "expires_at" })
        expect(error.message).toContain("expires_at")
      }
      const listed = await gw.admin("GET", `/orgs/${org.id}/keys`)
      expect(listed.json.data).toEqual([])
    })

    it("revoke: the key stops working at once, and revoking again keeps the first time", async () => {
      const { key, keyId } = await gw.newKey()
      expect((await postChat(gw.url, hello, { key })).status).toBe(200)
      const first = await gw.admin("DELETE", `/keys/${keyId}`)
      expect(first.status).toBe(200)
      expect(first.json).toMatchObject({ id: keyId, revoked_at: expect.any(String) })
      expect(first.json).not.toHaveProperty("key")
      await expectError(await postChat(gw.url, hello, { key }), 401, { code: "revoked_api_key" })
      const again = await gw.admin("DELETE", `/keys/${keyId}`)
      expect(again.status).toBe(200)
      expect(again.json.revoked_at).toBe(first.json.revoked_at)
    })

    it("an unknown key is 404", async () => {
      for (const method of ["GET", "DELETE"]) {
        const error = await expectError(await adminFetch(method, "/keys/key_doesnotexist", ADMIN_TOKEN), 404, {
          code: "not_found"
        })
        expect(error.message).toContain("key_doesnotexist")
      }
    })
  })
})
