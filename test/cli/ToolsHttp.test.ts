/**
 * The shared-tools commands with `--url`, through a real gateway's admin API (`startGateway`): `--json`
 * must be what the admin API itself returns, and every failure must read the same as on the store.
 */
import { afterAll, assert, beforeAll, describe, it, layer } from "@effect/vitest"
import { Effect, Layer, Redacted, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { AdminClient } from "../../src/cli/AdminClient.ts"
import { ADMIN_TOKEN, startGateway, type TestGateway } from "../utils/TestGateway.ts"
import { unique } from "../utils/TestStore.ts"
import { type CliResult, CliStoreLive, runArgs, sharedStore, stdoutJson, untouchableStore } from "./CliHarness.ts"

const Identified = Schema.Struct({ id: Schema.String })
const JsonObject = Schema.Record(Schema.String, Schema.Unknown)
const [TIME, UUID] = ["svc_current_time", "svc_generate_uuid"] as const

let gw: TestGateway
beforeAll(async () => {
  gw = await startGateway()
})
afterAll(() => gw?.close())

/** The admin API's own answer, pretty-printed as `--json` prints it. */
const adminText = (method: string, path: string, body?: unknown) =>
  Effect.promise(() => gw.admin(method, path, body)).pipe(
    Effect.map((response) => JSON.stringify(response.json, null, 2))
  )

const viaUrl = (...args: ReadonlyArray<string>) =>
  runArgs(["--url", gw.url, "--admin-token", ADMIN_TOKEN, ...args], { store: untouchableStore })

const idOf = (result: CliResult) => {
  assert.strictEqual(result.code, 0, result.stderr)
  return Schema.decodeUnknownSync(Identified)(stdoutJson(result)).id
}

describe("svc-gateway --url: shared tools", () => {
  it.live("tools list: the API's catalogue, byte for byte with --json; ids and descriptions as text", () =>
    Effect.gen(function*() {
      const json = yield* viaUrl("tools", "list", "--json")
      assert.strictEqual(json.code, 0, json.stderr)
      assert.strictEqual(json.stdout, yield* adminText("GET", "/svc-tools"))
      assert.include(json.stdout, "\"parameters\"")

      const text = yield* viaUrl("tools", "list")
      assert.match(text.stdout, /^ID +DESCRIPTION\n/)
      assert.match(text.stdout, new RegExp(`\\n${UUID} +Returns`))
    }))

  it.live("tools set and tools org: the settings the API stores and shows", () =>
    Effect.gen(function*() {
      const orgId = idOf(yield* viaUrl("orgs", "create", "--name", unique("tools"), "--json"))
      const keyId = idOf(yield* viaUrl("keys", "create", "--org", orgId, "--name", "k", "--json"))

      const set = yield* viaUrl(
        "tools",
        "set",
        "--org",
        orgId,
        "--tool",
        UUID,
        "--activated",
        "true",
        "--hydrate-keys",
        keyId,
        "--json"
      )
      assert.strictEqual(set.code, 0, set.stderr)
      assert.deepStrictEqual(stdoutJson(set), {
        id: UUID,
        activated: true,
        hydrate_org: false,
        hydrate_key_ids: [keyId]
      })

      const text = yield* viaUrl(
        "tools",
        "set",
        "--org",
        orgId,
        "--tool",
        TIME,
        "--activated",
        "true",
        "--hydrate-org",
        "true"
      )
      assert.strictEqual(text.code, 0, text.stderr)
      assert.include(text.stdout, `Set shared tool ${TIME} for organization ${orgId}.`)
      assert.include(text.stdout, "hydrate org:   yes")

      const org = yield* viaUrl("tools", "org", "--org", orgId, "--json")
      assert.strictEqual(org.stdout, yield* adminText("GET", `/orgs/${orgId}/svc-tools`))
      const table = yield* viaUrl("tools", "org", "--org", orgId)
      assert.match(
        table.stdout,
        new RegExp(`${TIME} +yes +yes +-\nsvc_expand_output +no +no +-\n${UUID} +yes +no +${keyId}$`)
      )
    }))

  it.live("keys create --allowed-tools and keys update: the API's key; the allow-list applies to chats at once", () =>
    Effect.gen(function*() {
      const orgId = idOf(yield* viaUrl("orgs", "create", "--name", unique("allow"), "--json"))
      yield* viaUrl("tools", "set", "--org", orgId, "--tool", UUID, "--activated", "true")
      const created = yield* viaUrl(
        "keys",
        "create",
        "--org",
        orgId,
        "--name",
        "bot",
        "--allowed-tools",
        TIME,
        "--json"
      )
      const key = Schema.decodeUnknownSync(Schema.Struct({ id: Schema.String, key: Schema.String }))(
        stdoutJson(created)
      )
      // the created key is the stored one plus its secret, in the API's field order
      const { key: _secret, ...info } = Schema.decodeUnknownSync(JsonObject)(stdoutJson(created))
      assert.strictEqual(JSON.stringify(info, null, 2), yield* adminText("GET", `/keys/${key.id}`))

      const chat = () =>
        Effect.promise(() =>
          fetch(`${gw.url}/v1/chat/completions`, {
            method: "POST",
            headers: { authorization: `Bearer ${key.key}` },
            body: JSON.stringify({
              model: "local/echo",
              messages: [{ role: "user", content: "hi" }],
              svc_tool_ids: [UUID]
            })
          }).then((response) => response.status)
        )
      assert.strictEqual(yield* chat(), 400) // not allowed for the key

      const updated = yield* viaUrl("keys", "update", key.id, "--allowed-tools", "all", "--name", "bot2", "--json")
      assert.strictEqual(updated.code, 0, updated.stderr)
      assert.strictEqual(updated.stdout, yield* adminText("GET", `/keys/${key.id}`))
      assert.strictEqual(yield* chat(), 200) // the gateway forgot its cached key

      const text = yield* viaUrl(
        "keys",
        "update",
        key.id,
        "--allowed-tools",
        `${TIME},${UUID}`,
        "--expires-at",
        "2099-01-01T00:00:00Z"
      )
      assert.include(text.stdout, `Updated API key 'bot2' (${key.id}) of organization ${orgId}.`)
      assert.include(text.stdout, `allowed tools:  ${TIME}, ${UUID}`)
      const listed = yield* viaUrl("keys", "list", "--org", orgId)
      assert.match(listed.stdout, new RegExp(`bot2 .* 2099-01-01T00:00:00Z +- +${TIME}, ${UUID} +-$`))
    }))

  it.live("a wrong admin token: refused, exit 1", () =>
    Effect.gen(function*() {
      for (const args of [["tools", "list"], ["keys", "update", "key_1", "--name", "x"]]) {
        const result = yield* runArgs(["--url", gw.url, "--admin-token", "wrong", ...args], { store: untouchableStore })
        assert.strictEqual(result.code, 1)
        assert.include(result.stderr, "refused the admin token")
      }
    }))
})

layer(CliStoreLive, { excludeTestServices: true })(
  "the same shared-tools failures through --url and on the store",
  (it) => {
    const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, number]> = [
      ["tools org: unknown org", ["tools", "org", "--org", "org_nope"], 1],
      ["tools set: unknown org", ["tools", "set", "--org", "org_nope", "--tool", TIME, "--activated", "true"], 1],
      ["keys update: unknown key", ["keys", "update", "key_nope", "--allowed-tools", "all"], 1],
      // the key first: which tools its org has is told only to those who may change the key
      [
        "keys update: uninstalled tools on an unknown key",
        ["keys", "update", "key_nope", "--allowed-tools", `svc_nope,${TIME},svc_x`],
        1
      ],
      ["keys create: uninstalled tool", [
        "keys",
        "create",
        "--org",
        "org_nope",
        "--name",
        "k",
        "--allowed-tools",
        "svc_nope"
      ], 2],
      ["keys update: bad expiry", ["keys", "update", "key_nope", "--expires-at", "soon"], 2],
      ["keys update: padded name", ["keys", "update", "key_nope", "--name", " x"], 2],
      ["keys update: nothing to update", ["keys", "update", "key_nope"], 2]
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

    it.effect("tools set in an existing org: unknown tool (exit 1), another org's key (exit 2)", () =>
      Effect.gen(function*() {
        const store = yield* sharedStore
        const local = (...args: ReadonlyArray<string>) => runArgs(args, { store })
        const orgs = {
          local: idOf(yield* local("orgs", "create", "--name", unique("parity"), "--json")),
          remote: idOf(yield* viaUrl("orgs", "create", "--name", unique("parity"), "--json"))
        }
        const cases: ReadonlyArray<readonly [ReadonlyArray<string>, number]> = [
          [["--tool", "svc_nope", "--activated", "true"], 1],
          [["--tool", TIME, "--activated", "true", "--hydrate-keys", "key_elsewhere"], 2]
        ]
        for (const [args, code] of cases) {
          const a = yield* local("tools", "set", "--org", orgs.local, ...args)
          const b = yield* viaUrl("tools", "set", "--org", orgs.remote, ...args)
          assert.strictEqual(a.code, code, a.stderr)
          assert.deepStrictEqual(b, a)
        }
      }))
  }
)

describe("AdminClient.layerHttp: shared tools", () => {
  it.live("runs each shared-tools operation and returns the API's values", () =>
    Effect.gen(function*() {
      const admin = yield* AdminClient
      const tools = yield* admin.listTools
      assert.deepStrictEqual(tools.map((tool) => tool.id), [TIME, "svc_expand_output", UUID])
      const org = yield* admin.createOrg(unique("client"))
      const key = yield* admin.createKey(org.id, { name: "k", expires_at: null, allowed_svc_tool_ids: [TIME] })
      assert.deepStrictEqual(key.allowed_svc_tool_ids, [TIME])
      const setting = yield* admin.setOrgTool(org.id, TIME, { activated: true, hydrate_key_ids: [key.id] })
      assert.deepStrictEqual(setting, { id: TIME, activated: true, hydrate_org: false, hydrate_key_ids: [key.id] })
      assert.deepStrictEqual((yield* admin.orgTools(org.id))[0], setting)
      const updated = yield* admin.updateKey(key.id, { allowed_svc_tool_ids: null, expires_at: "2099-01-01T00:00:00Z" })
      assert.isNull(updated.allowed_svc_tool_ids)
      assert.strictEqual(updated.expires_at, "2099-01-01T00:00:00.000Z")
      assert.strictEqual(updated.name, "k")
      const missing = yield* Effect.flip(admin.setOrgTool(org.id, "svc_nope", { activated: true }))
      assert.strictEqual(missing.reason._tag, "NotFound")
      assert.strictEqual(missing.message, "No shared tool with id 'svc_nope'.")
    }).pipe(
      Effect.provide(
        AdminClient.layerHttp({ url: gw.url, adminToken: Redacted.make(ADMIN_TOKEN) }).pipe(
          Layer.provide(FetchHttpClient.layer)
        )
      )
    ))
})
