/**
 * The registered MCP servers as stored: names unique on the gateway, another org's server not found,
 * the last tool list or error kept, the OAuth record kept sealed with when it was authorized, and an
 * authorization begun finished once, by its own browser. Runs on the embedded store and, in CI, on
 * PostgreSQL.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { McpServers } from "../../src/mcp/McpServers.ts"
import { Orgs } from "../../src/orgs/Orgs.ts"
import { FreshStore, unique } from "../utils/TestStore.ts"

const Store = McpServers.layer.pipe(Layer.provideMerge(Orgs.layer), Layer.provideMerge(FreshStore()))
const letters = () => unique("x").replace(/[^a-z]/g, "").slice(0, 10) + "s"

const server = (orgId: string, name: string, oauth = false) => ({
  orgId,
  name,
  url: "https://mcp.example.com/mcp",
  headerNames: oauth ? [] : ["Authorization"],
  headersSealed: oauth ? null : "v1.sealed",
  oauth
})

describe("registered MCP servers", () => {
  it.effect("names unique on the gateway; another org's server is not found", () =>
    Effect.gen(function*() {
      const servers = yield* McpServers
      const orgs = yield* Orgs
      const a = yield* orgs.create(unique("mcp-a"))
      const b = yield* orgs.create(unique("mcp-b"))
      const name = letters()
      const created = yield* servers.create(server(a.id, name))
      assert.deepStrictEqual(created.info.header_names, ["Authorization"])
      const taken = yield* Effect.flip(servers.create(server(b.id, name)))
      assert.strictEqual(taken.reason._tag, "Conflict")
      assert.strictEqual((yield* Effect.flip(servers.get(b.id, created.info.id))).reason._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(servers.remove(b.id, created.info.id))).reason._tag, "NotFound")
      assert.deepStrictEqual((yield* servers.list(b.id)).map((s) => s.info.id), [])

      yield* servers.saveRefresh(created.info.id, {
        vetted: {
          tools: [{ id: `svc_mcp_${name}_a`, remoteName: "a", description: "A", inputSchema: { type: "object" } }],
          rejected: [{ name: "b c", reason: "why" }]
        }
      })
      yield* servers.saveRefresh(created.info.id, { error: "down" })
      const kept = yield* servers.get(a.id, created.info.id)
      assert.deepStrictEqual(kept.info.tools, [{ id: `svc_mcp_${name}_a`, name: "a", description: "A" }])
      assert.strictEqual(kept.info.last_error, "down")
      assert.isNotNull(kept.info.refreshed_at)
      yield* servers.remove(a.id, created.info.id)
      assert.deepStrictEqual(yield* servers.list(a.id), [])
    }).pipe(Effect.provide(Store)))

  it.effect("keeps the OAuth record with when it was authorized; an authorization is finished once, by its browser", () =>
    Effect.gen(function*() {
      const servers = yield* McpServers
      const org = yield* (yield* Orgs).create(unique("mcp-oauth"))
      const created = yield* servers.create(server(org.id, letters(), true))
      assert.isTrue(created.info.oauth)
      assert.isNull(created.info.authorized_at)
      yield* servers.saveOAuth(created.info.id, "v1.client-only", false)
      assert.isNull((yield* servers.get(org.id, created.info.id)).info.authorized_at)
      yield* servers.saveOAuth(created.info.id, "v1.with-tokens", true)
      const authorized = yield* servers.get(org.id, created.info.id)
      assert.isNotNull(authorized.info.authorized_at)
      assert.strictEqual(authorized.oauthSealed, "v1.with-tokens")

      const state = unique("state")
      yield* servers.beginOAuth({ state, serverId: created.info.id, codeVerifier: "verifier", browserSecret: "mine" })
      assert.isTrue(Option.isNone(yield* servers.takeOAuth(state, "theirs")))
      assert.isTrue(Option.isNone(yield* servers.takeOAuth(state, "mine")))
      const again = unique("state")
      yield* servers.beginOAuth({ state: again, serverId: created.info.id, codeVerifier: "v2", browserSecret: "mine" })
      assert.deepStrictEqual(
        yield* servers.takeOAuth(again, "mine"),
        Option.some({ serverId: created.info.id, codeVerifier: "v2" })
      )
    }).pipe(Effect.provide(Store)))
})
