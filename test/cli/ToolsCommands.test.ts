/**
 * The shared-tools commands on a real store (the in-memory embedded store, or PostgreSQL when DATABASE_URL is set,
 * hence unique names): `tools list|org|set`, `keys update`, and the allow-list of `keys create|list`.
 * Text and `--json` output, and every failure with the admin API's message and its exit code.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import { plugins } from "../../plugins/index.ts"
import { checkAllowedTools } from "../../src/admin/AdminInput.ts"
import { NOTHING_TO_UPDATE } from "../../src/cli/KeysCommand.ts"
import { describeError } from "../../src/http/ErrorResponse.ts"
import { ToolRegistry } from "../../src/tools/ToolRegistry.ts"
import { unique } from "../utils/TestStore.ts"
import { CliStoreLive, runArgs, sharedStore, stdoutJson, untouchableStore } from "./CliHarness.ts"

const Identified = Schema.Struct({ id: Schema.String })
const KeyJson = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  expires_at: Schema.NullOr(Schema.String),
  allowed_svc_tool_ids: Schema.NullOr(Schema.Array(Schema.String))
})
const OrgToolJson = Schema.Struct({
  id: Schema.String,
  activated: Schema.Boolean,
  hydrate_org: Schema.Boolean,
  hydrate_key_ids: Schema.Array(Schema.String)
})
const listOf = <S extends Schema.Top>(item: S) =>
  Schema.Struct({ object: Schema.Literal("list"), data: Schema.Array(item) })

const decode = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, value: unknown) =>
  Schema.decodeUnknownSync(schema)(value)

const [TIME, UUID] = ["svc_current_time", "svc_generate_uuid"] as const

/** The message `checkAllowedTools` gives for `ids`: what the admin API answers, to compare against. */
const allowListMessage = (ids: ReadonlyArray<string>): string => {
  const check = Effect.flatMap(
    Effect.service(ToolRegistry).pipe(Effect.provide(ToolRegistry.layer), Effect.orDie),
    (registry) => checkAllowedTools(ids, registry)
  )
  const result = Effect.runSync(Effect.result(check))
  if (Result.isSuccess(result)) throw new Error(`${ids.join(",")} should be refused`)
  return describeError(result.failure).body.error.message
}

/** Every installed tool, never set in the org. */
const inactive = () =>
  plugins.map((tool) => ({ id: tool.id, activated: false, hydrate_org: false, hydrate_key_ids: [] }))

layer(CliStoreLive)("the shared-tools commands on the store", (it) => {
  const run = (...args: ReadonlyArray<string>) => Effect.flatMap(sharedStore, (store) => runArgs(args, { store }))

  /** Runs a `--json` command that must succeed; its stdout, decoded. */
  const runJson = <S extends Schema.Top & { readonly DecodingServices: never }>(
    schema: S,
    ...args: ReadonlyArray<string>
  ) =>
    Effect.map(run(...args, "--json"), (result) => {
      assert.strictEqual(result.code, 0, result.stderr)
      return decode(schema, stdoutJson(result))
    })

  const newOrg = Effect.map(runJson(Identified, "orgs", "create", "--name", unique("tools")), (org) => org.id)
  const newKey = (orgId: string, ...extra: ReadonlyArray<string>) =>
    runJson(KeyJson, "keys", "create", "--org", orgId, "--name", "k", ...extra)

  it.effect("tools list: the installed catalogue; --json is the admin API's list, parameters included", () =>
    Effect.gen(function*() {
      const text = yield* run("tools", "list")
      assert.strictEqual(text.code, 0, text.stderr)
      assert.match(text.stdout, /^ID +DESCRIPTION\n/)
      for (const tool of plugins) assert.include(text.stdout, `${tool.id}  `)
      assert.include(text.stdout, plugins[0]!.description)
      assert.notInclude(text.stdout, "properties")

      const json = yield* run("tools", "ls", "--json")
      assert.deepStrictEqual(stdoutJson(json), {
        object: "list",
        data: plugins.map((tool) => ({ id: tool.id, description: tool.description, parameters: tool.jsonSchema }))
      })
    }))

  it.effect("tools org: every installed tool, inactive until set", () =>
    Effect.gen(function*() {
      const orgId = yield* newOrg
      const text = yield* run("tools", "org", "--org", orgId)
      assert.strictEqual(text.code, 0, text.stderr)
      assert.match(text.stdout, /^TOOL +ACTIVATED +HYDRATE ORG +HYDRATE KEYS\n/)
      assert.match(text.stdout, new RegExp(`${TIME} +no +no +-`))
      assert.deepStrictEqual(yield* runJson(listOf(OrgToolJson), "tools", "org", "--org", orgId), {
        object: "list",
        data: inactive()
      })
    }))

  it.effect("tools set: activates and hydrates; what is left out stays; --hydrate-keys none clears", () =>
    Effect.gen(function*() {
      const orgId = yield* newOrg
      const a = yield* newKey(orgId)
      const b = yield* newKey(orgId)
      const set = (...args: ReadonlyArray<string>) => run("tools", "set", "--org", orgId, ...args)

      const text = yield* set("--tool", TIME, "--activated", "true", "--hydrate-org", "true")
      assert.strictEqual(text.code, 0, text.stderr)
      assert.strictEqual(
        text.stdout,
        `Set shared tool ${TIME} for organization ${orgId}.\n` +
          "  activated:     yes\n  hydrate org:   yes\n  hydrate keys:  -"
      )

      const keys = yield* runJson(
        OrgToolJson,
        "tools",
        "set",
        "--org",
        orgId,
        "--tool",
        UUID,
        "--activated",
        "true",
        "--hydrate-keys",
        `${a.id}, ${b.id},${a.id}`
      )
      assert.deepStrictEqual(keys, { id: UUID, activated: true, hydrate_org: false, hydrate_key_ids: [a.id, b.id] })

      // deactivated: the hydration is kept, and the text says it is dormant
      const off = yield* set("--tool", UUID, "--activated", "false")
      assert.include(off.stdout, `hydrate keys:  ${a.id}, ${b.id}`)
      assert.include(off.stdout, "Hydration takes effect only while the tool is activated.")

      const listed = yield* run("tools", "org", "--org", orgId)
      assert.match(listed.stdout, new RegExp(`${TIME} +yes +yes +-\n`))
      assert.match(listed.stdout, new RegExp(`${UUID} +no +no +${a.id}, ${b.id}$`))

      const cleared = yield* runJson(
        OrgToolJson,
        "tools",
        "set",
        "--org",
        orgId,
        "--tool",
        UUID,
        "--activated",
        "true",
        "--hydrate-keys",
        "none"
      )
      assert.deepStrictEqual(cleared.hydrate_key_ids, [])
      const org = yield* runJson(listOf(OrgToolJson), "tools", "org", "--org", orgId)
      // the two set here are activated; svc_expand_output was never set
      assert.deepStrictEqual(
        org.data.map((s) => [s.id, s.activated]),
        plugins.map((tool) => [tool.id, tool.id !== "svc_expand_output"])
      )
    }))

  it.effect("tools set: an unknown org or tool is the admin API's 404 (exit 1), another org's key its 400 (exit 2)", () =>
    Effect.gen(function*() {
      const orgId = yield* newOrg
      const other = yield* newKey(yield* newOrg)
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, number, string]> = [
        [["--org", "org_nope", "--tool", TIME], 1, "Error: No organization with id 'org_nope'."],
        [["--org", orgId, "--tool", "svc_nope"], 1, "Error: No shared tool with id 'svc_nope'."],
        [
          ["--org", orgId, "--tool", TIME, "--hydrate-keys", `${other.id},key_nope`],
          2,
          `Error: Invalid value for 'hydrate_key_ids': no API key of this organization has the id '${other.id}', 'key_nope'.`
        ]
      ]
      for (const [args, code, message] of cases) {
        const result = yield* run("tools", "set", ...args, "--activated", "true", "--json")
        assert.strictEqual(result.code, code, args.join(" "))
        assert.strictEqual(result.stderr, message)
        assert.strictEqual(result.stdout, "")
      }
      const org = yield* run("tools", "org", "--org", "org_nope")
      assert.strictEqual(org.code, 1)
      assert.strictEqual(org.stderr, "Error: No organization with id 'org_nope'.")
      assert.deepStrictEqual((yield* runJson(listOf(OrgToolJson), "tools", "org", "--org", orgId)).data, inactive())
    }))

  it.effect("keys create --allowed-tools stores the allow-list (all: null, none: empty); keys list shows it", () =>
    Effect.gen(function*() {
      const orgId = yield* newOrg
      assert.deepStrictEqual(
        (yield* newKey(orgId, "--allowed-tools", `${UUID}, ${TIME},${UUID}`)).allowed_svc_tool_ids,
        [UUID, TIME]
      )
      assert.isNull((yield* newKey(orgId, "--allowed-tools", "all")).allowed_svc_tool_ids)
      assert.deepStrictEqual((yield* newKey(orgId, "--allowed-tools", "none")).allowed_svc_tool_ids, [])

      const text = yield* run("keys", "create", "--org", orgId, "--name", "bot", "--allowed-tools", TIME)
      assert.match(text.stdout, new RegExp(`allowed tools: +${TIME}\\n`))
      const listed = yield* run("keys", "list", "--org", orgId)
      // keys made within one millisecond list in any order (by creation time, then id): compare as sets
      assert.deepStrictEqual(
        listed.stdout.split("\n").slice(1).map((line) => line.replace(/^.* - +/, "").replace(/ +-$/, "")).sort(),
        [`${UUID}, ${TIME}`, "all", "none", TIME].sort()
      )
    }))

  it.effect("keys update: changes only what is given; --expires-at never and --allowed-tools all clear", () =>
    Effect.gen(function*() {
      const orgId = yield* newOrg
      const key = yield* newKey(orgId, "--expires-at", "2099-01-01T00:00:00Z")

      const text = yield* run("keys", "update", key.id, "--allowed-tools", TIME)
      assert.strictEqual(text.code, 0, text.stderr)
      assert.strictEqual(
        text.stdout,
        `Updated API key 'k' (${key.id}) of organization ${orgId}.\n` +
          `  name:           k\n  description:    -\n  expires:        2099-01-01T00:00:00Z\n  allowed tools:  ${TIME}\n  limits:         none`
      )
      const limited = yield* run("keys", "update", key.id, "--rpm", "60", "--tokens-per-day", "1000000")
      assert.strictEqual(limited.code, 0, limited.stderr)
      assert.include(limited.stdout, "  limits:         60 requests/min, 1000000 tokens/day")
      const unlimited = yield* run("keys", "update", key.id, "--rpm", "none", "--tokens-per-day", "none")
      assert.include(unlimited.stdout, "  limits:         none")
      const badLimit = yield* run("keys", "update", key.id, "--rpm", "0")
      assert.strictEqual(badLimit.code, 2)
      assert.include(badLimit.stderr, "a whole number above 0, or none")

      const renamed = yield* runJson(KeyJson, "keys", "update", key.id, "--name", "renamed", "--expires-at", "never")
      assert.deepStrictEqual(renamed, { id: key.id, name: "renamed", expires_at: null, allowed_svc_tool_ids: [TIME] })
      const all = yield* runJson(
        KeyJson,
        "keys",
        "update",
        key.id,
        "--allowed-tools",
        "all",
        "--expires-at",
        "2098-01-01T00:00:00Z"
      )
      assert.deepStrictEqual(all, {
        id: key.id,
        name: "renamed",
        expires_at: "2098-01-01T00:00:00.000Z",
        allowed_svc_tool_ids: null
      })
      const none = yield* runJson(KeyJson, "keys", "update", key.id, "--allowed-tools", "none")
      assert.deepStrictEqual(none.allowed_svc_tool_ids, [])

      yield* run("keys", "revoke", key.id)
      const revoked = yield* run("keys", "update", key.id, "--name", "gone")
      assert.strictEqual(revoked.code, 0, revoked.stderr)
      assert.match(revoked.stdout, /\n {2}revoked: +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    }))

  it.effect("keys update refusals: the admin API's messages and exit codes; the key stays as it was", () =>
    Effect.gen(function*() {
      const orgId = yield* newOrg
      const key = yield* newKey(orgId, "--allowed-tools", TIME)
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, number, string]> = [
        [["key_nope", "--name", "x"], 1, "Error: No API key with id 'key_nope'."],
        [
          [key.id, "--allowed-tools", `svc_nope,${TIME},svc_gone`],
          2,
          `Error: ${allowListMessage(["svc_nope", TIME, "svc_gone"])}`
        ],
        [
          [key.id, "--expires-at", "2001-01-01T00:00:00Z"],
          2,
          "Error: Invalid value for 'expires_at': the time is in the past."
        ],
        [[key.id, "--name", " padded"], 2, "Error: Invalid value for 'name': Expected no leading or trailing spaces."]
      ]
      for (const [args, code, message] of cases) {
        const result = yield* run("keys", "update", ...args)
        assert.strictEqual(result.code, code, args.join(" "))
        assert.strictEqual(result.stderr, message)
        assert.strictEqual(result.stdout, "")
      }
      assert.include(allowListMessage(["svc_nope"]), "'svc_nope' is not a shared tool of this organization")

      const create = yield* run("keys", "create", "--org", orgId, "--name", "k", "--allowed-tools", "svc_nope")
      assert.strictEqual(create.code, 2)
      assert.strictEqual(create.stderr, `Error: ${allowListMessage(["svc_nope"])}`)

      const keys = yield* runJson(listOf(KeyJson), "keys", "list", "--org", orgId)
      assert.deepStrictEqual(keys.data, [key])
    }))
})

describe("usage mistakes in the shared-tools commands", () => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
    ["nothing to update", ["keys", "update", "key_1"], `Error: ${NOTHING_TO_UPDATE}`],
    [
      "nothing to update, --url",
      ["--url", "http://127.0.0.1:9", "keys", "update", "key_1", "--json"],
      `Error: ${NOTHING_TO_UPDATE}`
    ],
    [
      "--activated not true or false",
      ["tools", "set", "--org", "o", "--tool", "t", "--activated", "yes"],
      `Error: Invalid value for flag --activated: "yes". Expected: "true" | "false"`
    ],
    ["--activated missing", ["tools", "set", "--org", "o", "--tool", "t"], "Error: Missing required flag: --activated"],
    ["--hydrate-org not true or false", [
      "tools",
      "set",
      "--org",
      "o",
      "--tool",
      "t",
      "--activated",
      "true",
      "--hydrate-org",
      "1"
    ], "Error: Invalid value for flag --hydrate-org"],
    [
      "--hydrate-keys without ids",
      ["tools", "set", "--org", "o", "--tool", "t", "--activated", "true", "--hydrate-keys", " , "],
      "Error: Invalid value for flag --hydrate-keys: \" , \". Expected: key ids separated by commas (key_a,key_b), or none"
    ],
    [
      "--allowed-tools without ids",
      ["keys", "update", "key_1", "--allowed-tools", ","],
      "Error: Invalid value for flag --allowed-tools: \",\". Expected: tool ids separated by commas (svc_a,svc_b), all or none"
    ],
    [
      "--allowed-tools empty on create",
      ["keys", "create", "--org", "o", "--name", "k", "--allowed-tools", ""],
      "Error: Missing value for flag --allowed-tools"
    ],
    ["tools org without --org", ["tools", "org"], "Error: Missing required flag: --org"],
    ["an unknown tools command", ["tools", "add"], "Error: Unknown subcommand \"add\""]
  ]

  for (const [what, args, message] of cases) {
    it.effect(`${what}: a short note on stderr, exit 2, the store never opened`, () =>
      Effect.gen(function*() {
        const result = yield* runArgs(args, { store: untouchableStore })
        assert.strictEqual(result.code, 2, result.stderr)
        assert.isTrue(result.stderr.startsWith(message), result.stderr)
        assert.strictEqual(result.stdout, "")
        assert.notInclude(result.stderr, "    at ")
      }))
  }

  it.effect("the usage notes show how the new commands are typed", () =>
    Effect.gen(function*() {
      const set = yield* runArgs(["tools", "set", "--org", "o"], { store: untouchableStore })
      assert.include(
        set.stderr,
        "Usage: svc-gateway tools set --org <org_id> --tool <tool_id> --activated <true|false> " +
          "[--hydrate-org <true|false>] [--hydrate-keys <key_ids>] [--json]"
      )
      const update = yield* runArgs(["keys", "update"], { store: untouchableStore })
      assert.include(
        update.stderr,
        "Usage: svc-gateway keys update [--name <string>] [--description <text>] [--expires-at <date_time>] [--allowed-tools <tool_ids>] " +
          "[--rpm <n|none>] [--tpm <n|none>] [--tokens-per-day <n|none>] [--tokens-per-month <n|none>] " +
          "[--usd-per-day <usd|none>] [--usd-per-month <usd|none>] [--json] <key_id>"
      )
    }))

  it.effect("help for the tools commands: on stdout, exit 0, the store never opened", () =>
    Effect.gen(function*() {
      for (const args of [["tools"], ["tools", "set", "--help"], ["keys", "update", "--help"]]) {
        const result = yield* runArgs(args, { store: untouchableStore })
        assert.strictEqual(result.code, 0, args.join(" "))
        assert.include(result.stdout, "USAGE")
      }
      const root = yield* runArgs(["--help"], { store: untouchableStore })
      assert.include(root.stdout, "tools")
    }))
})
