/**
 * `--url`: the commands through a real gateway's admin API (`startGateway`), and `AdminClient.layerHttp`
 * on its own. The output must be what the admin API itself returns, and every failure must read the
 * same as on the store.
 */
import { afterAll, assert, beforeAll, describe, it, layer } from "@effect/vitest"
import { Effect, Layer, Redacted, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { createServer } from "node:http"
import { AdminClient } from "../../src/cli/AdminClient.ts"
import { ADMIN_TOKEN, startGateway, type TestGateway } from "../utils/TestGateway.ts"
import { unique } from "../utils/TestStore.ts"
import { type CliResult, CliStoreLive, runArgs, sharedStore, stdoutJson, untouchableStore } from "./CliHarness.ts"

const Created = Schema.Struct({ id: Schema.String, key: Schema.String, org_id: Schema.String })
const Identified = Schema.Struct({ id: Schema.String })

let gw: TestGateway
beforeAll(async () => {
  gw = await startGateway()
})
afterAll(() => gw?.close())

/** The admin API's own answer, to compare the CLI's `--json` with. */
const adminJson = (method: string, path: string, body?: unknown) =>
  Effect.promise(() => gw.admin(method, path, body)).pipe(Effect.map((response) => response.json as unknown))

const viaUrl = (...args: ReadonlyArray<string>) =>
  runArgs(["--url", gw.url, "--admin-token", ADMIN_TOKEN, ...args], { store: untouchableStore })

const idOf = (result: CliResult) => Schema.decodeUnknownSync(Identified)(stdoutJson(result)).id

describe("svc-gateway --url", () => {
  it.live("orgs create and list go through the admin API; --json is the API's JSON, byte for byte", () =>
    Effect.gen(function*() {
      const name = unique("remote")
      const created = yield* viaUrl("orgs", "create", "--name", name, "--json")
      assert.strictEqual(created.code, 0, created.stderr)
      const orgId = idOf(created)
      assert.strictEqual(created.stdout, JSON.stringify(yield* adminJson("GET", `/orgs/${orgId}`), null, 2))

      const listed = yield* viaUrl("orgs", "list", "--json")
      assert.strictEqual(listed.stdout, JSON.stringify(yield* adminJson("GET", "/orgs"), null, 2))

      const text = yield* viaUrl("orgs", "list")
      assert.match(text.stdout, new RegExp(`${orgId} +${name}`))
    }))

  it.live("with a person's token: what her role allows, and the API's refusal of the rest (exit 1)", () =>
    Effect.gen(function*() {
      const orgId = idOf(yield* viaUrl("orgs", "create", "--name", unique("viewed"), "--json"))
      const user = yield* adminJson("POST", "/users", { email: `${unique("viewer")}@example.com`, name: "V" })
      const userId = (user as { id: string }).id
      yield* adminJson("PUT", `/users/${userId}/roles`, { roles: [{ role: "viewer", org_id: orgId }] })
      const token = (yield* adminJson("POST", `/users/${userId}/tokens`, { name: "cli" })) as { token: string }
      const asViewer = (...args: ReadonlyArray<string>) =>
        runArgs(["--url", gw.url, "--admin-token", token.token, ...args], { store: untouchableStore })
      const listed = yield* asViewer("keys", "list", "--org", orgId, "--json")
      assert.strictEqual(listed.code, 0, listed.stderr)
      const refused = yield* asViewer("keys", "create", "--org", orgId, "--name", "nope")
      assert.strictEqual(refused.code, 1)
      assert.include(refused.stderr, `is not an admin of organization '${orgId}'`)
    }))

  it.live("keys create, list and revoke; the created key works against the gateway until revoked", () =>
    Effect.gen(function*() {
      const orgId = idOf(yield* viaUrl("orgs", "create", "--name", unique("keys"), "--json"))
      const created = yield* viaUrl("keys", "create", "--org", orgId, "--name", "ci", "--json")
      assert.strictEqual(created.code, 0, created.stderr)
      const key = Schema.decodeUnknownSync(Created)(stdoutJson(created))
      assert.strictEqual(key.org_id, orgId)

      const chat = () =>
        Effect.promise(() =>
          fetch(`${gw.url}/v1/chat/completions`, {
            method: "POST",
            headers: { authorization: `Bearer ${key.key}` },
            body: JSON.stringify({ model: "local/echo", messages: [{ role: "user", content: "hi" }] })
          }).then((response) => response.status)
        )
      assert.strictEqual(yield* chat(), 200)

      const listed = yield* viaUrl("keys", "list", "--org", orgId, "--json")
      assert.strictEqual(listed.stdout, JSON.stringify(yield* adminJson("GET", `/orgs/${orgId}/keys`), null, 2))
      assert.notInclude(listed.stdout, key.key)

      const revoked = yield* viaUrl("keys", "revoke", key.id)
      assert.strictEqual(revoked.code, 0, revoked.stderr)
      assert.include(revoked.stdout, `Revoked API key 'ci' (${key.id})`)
      assert.strictEqual(yield* chat(), 401)
    }))

  it.live("GATEWAY_URL and GATEWAY_ADMIN_TOKEN stand in for the flags", () =>
    Effect.gen(function*() {
      const result = yield* runArgs(["orgs", "list", "--json"], {
        store: untouchableStore,
        env: { GATEWAY_URL: gw.url, GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN }
      })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(result.stdout, JSON.stringify(yield* adminJson("GET", "/orgs"), null, 2))
    }))

  it.live("a wrong admin token: refused, exit 1, the token's flag and variable named", () =>
    Effect.gen(function*() {
      const result = yield* runArgs(["--url", gw.url, "--admin-token", "wrong", "orgs", "list"], {
        store: untouchableStore
      })
      assert.strictEqual(result.code, 1)
      assert.strictEqual(
        result.stderr,
        `Error: The gateway at ${gw.url} refused the admin token: check --admin-token or GATEWAY_ADMIN_TOKEN.`
      )
    }))

  it.live("nothing listening: a clear message, exit 1", () =>
    Effect.gen(function*() {
      const result = yield* runArgs(["--url", "http://127.0.0.1:9", "--admin-token", "t", "orgs", "list"], {
        store: untouchableStore
      })
      assert.strictEqual(result.code, 1)
      assert.match(result.stderr, /^Error: Could not reach the gateway at http:\/\/127\.0\.0\.1:9: /)
    }))

  it.live("a --url with a path: the gateway's own 404 message, exit 1", () =>
    Effect.gen(function*() {
      const result = yield* runArgs(["--url", `${gw.url}/v1`, "--admin-token", ADMIN_TOKEN, "orgs", "list"], {
        store: untouchableStore
      })
      assert.strictEqual(result.code, 1)
      assert.strictEqual(result.stderr, "Error: No route for GET /v1/admin/v1/orgs.")
    }))

  it.live("a server that is not a gateway: an unexpected answer, exit 1", () =>
    Effect.gen(function*() {
      const server = createServer((_request, response) => {
        response.writeHead(200, { "content-type": "text/html" }).end("<html>hello</html>")
      })
      yield* Effect.acquireRelease(
        Effect.callback<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
        () => Effect.sync(() => void server.close())
      )
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      const result = yield* runArgs(["--url", `http://127.0.0.1:${port}`, "--admin-token", "t", "orgs", "list"], {
        store: untouchableStore
      })
      assert.strictEqual(result.code, 1)
      assert.strictEqual(
        result.stderr,
        `Error: The server at http://127.0.0.1:${port} answered 200 with an unexpected body; is --url the gateway's address?`
      )
    }))
})

layer(CliStoreLive, { excludeTestServices: true })("the same failures through --url and on the store", (it) => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, number]> = [
    ["unknown org (list)", ["keys", "list", "--org", "org_nope"], 1],
    ["unknown org (create)", ["keys", "create", "--org", "org_nope", "--name", "k"], 1],
    ["unknown key", ["keys", "revoke", "key_nope"], 1],
    ["bad expiry", ["keys", "create", "--org", "org_nope", "--name", "k", "--expires-at", "soon"], 2],
    ["past expiry", ["keys", "create", "--org", "org_nope", "--name", "k", "--expires-at", "2001-01-01T00:00:00Z"], 2],
    ["padded name", ["orgs", "create", "--name", " x"], 2],
    ["empty name", ["orgs", "create", "--name", ""], 2]
  ]
  for (const [what, args, code] of cases) {
    it.effect(what, () =>
      Effect.gen(function*() {
        const local = yield* runArgs(args, { store: yield* sharedStore })
        const remote = yield* viaUrl(...args)
        assert.strictEqual(local.code, code, local.stderr)
        assert.deepStrictEqual(remote, local)
      }))
  }
})

describe("AdminClient.layerHttp", () => {
  const client = () =>
    AdminClient.layerHttp({ url: `${gw.url}/`, adminToken: Redacted.make(ADMIN_TOKEN) }).pipe(
      Layer.provide(FetchHttpClient.layer)
    )

  it.live("runs each admin operation and returns the API's values", () =>
    Effect.gen(function*() {
      const admin = yield* AdminClient
      const org = yield* admin.createOrg(unique("client"))
      assert.deepStrictEqual((yield* admin.listOrgs).find((o) => o.id === org.id), org)
      const key = yield* admin.createKey(org.id, { name: "k", expires_at: "2099-01-01T00:00:00Z" })
      assert.strictEqual(key.expires_at, "2099-01-01T00:00:00.000Z")
      const { key: _secret, ...info } = key
      assert.deepStrictEqual(yield* admin.listKeys(org.id), [info])
      const revoked = yield* admin.revokeKey(key.id)
      assert.isNotNull(revoked.revoked_at)
      const missing = yield* Effect.flip(admin.listKeys("org_missing"))
      assert.strictEqual(missing.reason._tag, "NotFound")
      assert.strictEqual(missing.message, "No organization with id 'org_missing'.")
    }).pipe(Effect.provide(client())))

  it.live("a gateway that accepts and never answers: Unavailable after the timeout", () =>
    Effect.gen(function*() {
      const server = createServer(() => {}) // holds every request open
      yield* Effect.acquireRelease(
        Effect.callback<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
        () =>
          Effect.sync(() => {
            server.closeAllConnections()
            server.close()
          })
      )
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      const url = `http://127.0.0.1:${port}`
      const error = yield* Effect.flip(Effect.flatMap(Effect.service(AdminClient), (admin) => admin.listOrgs)).pipe(
        Effect.provide(
          AdminClient.layerHttp({ url, adminToken: Redacted.make("t"), timeout: "200 millis" }).pipe(
            Layer.provide(FetchHttpClient.layer)
          )
        )
      )
      assert.strictEqual(error.reason._tag, "Unavailable")
      assert.strictEqual(error.message, `The gateway at ${url} did not answer in time.`)
    }))
})
