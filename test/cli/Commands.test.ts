/**
 * The commands against a real store (the in-memory embedded store, or PostgreSQL when DATABASE_URL is set, hence
 * unique names and no assumption that the store starts empty): text and `--json` output, and every
 * kind of failure with its message and exit code.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { parseExpiry } from "../../src/admin/AdminInput.ts"
import {
  ApiKey as KeyInfoWire,
  CreatedApiKey as CreatedKeyWire,
  Org as OrgWire
} from "../../src/admin/AdminResources.ts"
import { SHOWN_ONCE } from "../../src/cli/KeysCommand.ts"
import { unique } from "../utils/TestStore.ts"
import { CliStoreLive, runArgs, sharedStore, stdoutJson, untouchableStore } from "./CliHarness.ts"

const OrgJson = OrgWire
const KeyJson = KeyInfoWire
const CreatedKeyJson = CreatedKeyWire
const listOf = <S extends Schema.Top>(item: S) =>
  Schema.Struct({ object: Schema.Literal("list"), data: Schema.Array(item) })

const decode = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, value: unknown) =>
  Schema.decodeUnknownSync(schema)(value)

const ORG_ID = /^org_[0-9A-Za-z]{20}$/
const KEY_ID = /^key_[0-9A-Za-z]{20}$/
const KEY_ID_IN_TEXT = /key_[0-9A-Za-z]{20}/
const SECRET = /sk-svc-[0-9A-Za-z]{40}/

/** The message `parseExpiry` gives for `value`: what the admin API answers, to compare against. */
const expiryMessage = (value: string) => {
  const result = Effect.runSync(Effect.result(parseExpiry(value)))
  if (Result.isSuccess(result)) throw new Error(`${value} should be refused`)
  return result.failure.reason.message
}

layer(CliStoreLive)("svc-gateway commands on the store", (it) => {
  const run = (...args: ReadonlyArray<string>) => Effect.flatMap(sharedStore, (store) => runArgs(args, { store }))

  /** A new org through the CLI; returns its id. */
  const newOrg = Effect.gen(function*() {
    const result = yield* run("orgs", "create", "--name", unique("org"), "--json")
    assert.strictEqual(result.code, 0, result.stderr)
    return decode(OrgJson, stdoutJson(result)).id
  })

  it.effect("a change made on the store is audited as the CLI's", () =>
    Effect.gen(function*() {
      const orgId = yield* newOrg
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ readonly actor_kind: string; readonly action: string }>`SELECT actor_kind, action
      FROM audit_log WHERE target_id = ${orgId}`
      assert.deepStrictEqual(rows.map((row) => ({ ...row })), [{ actor_kind: "cli", action: "org.create" }])
    }))

  it.effect("orgs create prints the org; orgs list shows it, as text and as JSON", () =>
    Effect.gen(function*() {
      const name = unique("Acme Inc.")
      const created = yield* run("orgs", "create", "--name", name)
      assert.strictEqual(created.code, 0)
      assert.include(created.stdout, `Created organization '${name}'.`)
      const id = created.stdout.match(/org_[0-9A-Za-z]{20}/)?.[0]
      assert.isDefined(id)
      assert.strictEqual(created.stderr, "")

      const text = yield* run("orgs", "list")
      assert.strictEqual(text.code, 0)
      assert.match(text.stdout, /^ID +NAME +CREATED\n/)
      assert.match(
        text.stdout,
        new RegExp(`${id} +${name.replace(".", "\\.")} +\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ`)
      )

      const json = decode(listOf(OrgJson), stdoutJson(yield* run("orgs", "list", "--json")))
      const org = json.data.find((o) => o.id === id)
      assert.deepStrictEqual(org?.name, name)
    }))

  it.effect("orgs create --json prints exactly the org object the admin API returns", () =>
    Effect.gen(function*() {
      const name = unique("json")
      const result = yield* run("orgs", "create", "--json", "--name", name)
      assert.strictEqual(result.code, 0)
      const parsed = stdoutJson(result)
      const org = decode(OrgJson, parsed)
      assert.match(org.id, ORG_ID)
      assert.strictEqual(org.name, name)
      assert.deepStrictEqual(Object.keys(parsed as object), [
        "id",
        "name",
        "created_at",
        "log_content",
        "compression",
        "limits",
        "alerts"
      ])
      assert.strictEqual(result.stderr, "")
    }))

  it.effect("keys create prints the secret once with a warning; keys list never shows it", () =>
    Effect.gen(function*() {
      const orgId = yield* newOrg
      const created = yield* run("keys", "create", "--org", orgId, "--name", "ci")
      assert.strictEqual(created.code, 0, created.stderr)
      const secret = created.stdout.match(SECRET)?.[0]
      assert.isDefined(secret)
      assert.include(created.stdout, `Created API key 'ci' in organization ${orgId}.`)
      assert.match(created.stdout, /expires: +never\n/)
      assert.match(created.stdout, /allowed tools: +all\n/)
      assert.include(created.stdout, SHOWN_ONCE)

      const listed = yield* run("keys", "list", "--org", orgId)
      assert.strictEqual(listed.code, 0)
      assert.match(
        listed.stdout,
        /^ID +NAME +PREFIX +CREATED +LAST USED +EXPIRES +REVOKED +ALLOWED TOOLS +DESCRIPTION\n/
      )
      assert.match(listed.stdout, /key_\w{20} +ci +sk-svc-\w{6} +\S+ +never +never +- +all +-$/)
      assert.notInclude(listed.stdout, secret!)
    }))

  it.effect("keys create and update --description: shown by create, update and list; empty text clears it", () =>
    Effect.gen(function*() {
      const orgId = yield* newOrg
      const created = yield* run("keys", "create", "--org", orgId, "--name", "ci", "--description", "nightly builds")
      assert.strictEqual(created.code, 0, created.stderr)
      assert.match(created.stdout, /description: +nightly builds\n/)
      const keyId = created.stdout.match(KEY_ID_IN_TEXT)![0]

      const listed = yield* run("keys", "list", "--org", orgId)
      assert.match(listed.stdout, / +all +nightly builds$/)
      const json = decode(listOf(KeyJson), stdoutJson(yield* run("keys", "list", "--org", orgId, "--json")))
      assert.strictEqual(json.data[0]!.description, "nightly builds")

      const changed = yield* run("keys", "update", keyId, "--description", "release builds")
      assert.strictEqual(changed.code, 0, changed.stderr)
      assert.match(changed.stdout, /description: +release builds\n/)
      const cleared = yield* run("keys", "update", keyId, "--description", "", "--json")
      assert.isNull(decode(KeyJson, stdoutJson(cleared)).description)
    }))

  it.effect("keys create --json: the API's object with the secret on stdout, the warning on stderr", () =>
    Effect.gen(function*() {
      const orgId = yield* newOrg
      const result = yield* run(
        "keys",
        "create",
        "--org",
        orgId,
        "--name",
        "trial",
        "--expires-at",
        "2099-01-31T00:00:00Z",
        "--json"
      )
      assert.strictEqual(result.code, 0, result.stderr)
      const key = decode(CreatedKeyJson, stdoutJson(result))
      assert.match(key.id, KEY_ID)
      assert.match(key.key, SECRET)
      assert.strictEqual(key.expires_at, "2099-01-31T00:00:00.000Z")
      assert.strictEqual(key.org_id, orgId)
      assert.isTrue(key.key.startsWith(key.prefix))
      assert.include(result.stderr, "shown only this once")

      const list = decode(listOf(KeyJson), stdoutJson(yield* run("keys", "list", "--org", orgId, "--json")))
      assert.deepStrictEqual(list.data.map((k) => k.id), [key.id])
      assert.notProperty(list.data[0], "key")
    }))

  it.effect("keys create takes the limits the admin API takes; a bad one is refused, exit 2, no key made", () =>
    Effect.gen(function*() {
      const orgId = yield* newOrg
      const result = yield* run(
        "keys",
        "create",
        "--org",
        orgId,
        "--name",
        "batch",
        "--rpm",
        "60",
        "--tokens-per-day",
        "1000000",
        "--json"
      )
      assert.strictEqual(result.code, 0, result.stderr)
      const key = decode(CreatedKeyJson, stdoutJson(result))
      assert.deepStrictEqual(key.limits, {
        rpm: 60,
        tpm: null,
        tokens_per_day: 1000000,
        tokens_per_month: null,
        usd_per_day: null,
        usd_per_month: null
      })

      const refused = yield* run("keys", "create", "--org", orgId, "--name", "bad", "--rpm", "0")
      assert.strictEqual(refused.code, 2)
      assert.include(refused.stderr, "Invalid value for flag --rpm")
      const list = decode(listOf(KeyJson), stdoutJson(yield* run("keys", "list", "--org", orgId, "--json")))
      assert.deepStrictEqual(list.data.map((k) => k.name), ["batch"])
    }))

  it.effect("keys revoke revokes; revoking again keeps the first time; the list shows it", () =>
    Effect.gen(function*() {
      const orgId = yield* newOrg
      const key = decode(
        CreatedKeyJson,
        stdoutJson(yield* run("keys", "create", "--org", orgId, "--name", "old", "--json"))
      )
      const text = yield* run("keys", "revoke", key.id)
      assert.strictEqual(text.code, 0)
      assert.match(
        text.stdout,
        new RegExp(`^Revoked API key 'old' \\(${key.id}\\) of organization ${orgId} at \\S+Z\\.`)
      )

      const again = decode(KeyJson, stdoutJson(yield* run("keys", "revoke", key.id, "--json")))
      assert.isNotNull(again.revoked_at)
      assert.include(text.stdout, again.revoked_at!.replace(/\.\d+Z$/, "Z"))

      const listed = yield* run("keys", "list", "--org", orgId)
      assert.match(listed.stdout, /old .* \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ +all +-$/)
    }))

  it.effect("an unknown organization or key: the admin API's message, exit 1", () =>
    Effect.gen(function*() {
      for (
        const args of [["keys", "list", "--org", "org_nope"], ["keys", "create", "--org", "org_nope", "--name", "k"]]
      ) {
        const result = yield* run(...args)
        assert.strictEqual(result.code, 1)
        assert.strictEqual(result.stderr, "Error: No organization with id 'org_nope'.")
        assert.strictEqual(result.stdout, "")
      }
      const json = yield* run("keys", "list", "--org", "org_nope", "--json")
      assert.strictEqual(json.code, 1)
      assert.strictEqual(json.stdout, "")
      const revoke = yield* run("keys", "revoke", "key_nope")
      assert.strictEqual(revoke.code, 1)
      assert.strictEqual(revoke.stderr, "Error: No API key with id 'key_nope'.")
    }))

  it.effect("an invalid --expires-at: the admin API's message (parseExpiry's), exit 2", () =>
    Effect.gen(function*() {
      const orgId = yield* newOrg
      for (const value of ["tomorrow", "2030-13-45T00:00:00Z", "2001-01-01T00:00:00Z"]) {
        const result = yield* run("keys", "create", "--org", orgId, "--name", "k", "--expires-at", value)
        assert.strictEqual(result.code, 2, value)
        assert.strictEqual(result.stderr, `Error: ${expiryMessage(value)}`)
      }
      assert.include(expiryMessage("2001-01-01T00:00:00Z"), "in the past")
      const keys = decode(listOf(KeyJson), stdoutJson(yield* run("keys", "list", "--org", orgId, "--json")))
      assert.deepStrictEqual(keys.data, [])
    }))

  it.effect("a name the admin API refuses is refused the same way, exit 2", () =>
    Effect.gen(function*() {
      const padded = yield* run("orgs", "create", "--name", " padded ")
      assert.strictEqual(padded.code, 2)
      assert.strictEqual(padded.stderr, "Error: Invalid value for 'name': Expected no leading or trailing spaces.")
      const long = yield* run("orgs", "create", "--name", "x".repeat(201))
      assert.strictEqual(long.code, 2)
      assert.include(long.stderr, "Expected at most 200 characters")
    }))

  it.effect("keys list with no keys says how to create one", () =>
    Effect.gen(function*() {
      const orgId = yield* newOrg
      const result = yield* run("keys", "list", "--org", orgId)
      assert.strictEqual(result.code, 0)
      assert.include(result.stdout, `svc-gateway keys create --org ${orgId} --name <name>`)
    }))
})

describe("usage mistakes", () => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
    ["a missing flag", ["orgs", "create"], "Error: Missing required flag: --name"],
    ["a missing argument", ["keys", "revoke"], "Error: Missing required argument: key_id"],
    ["an unknown flag", ["orgs", "create", "--nam", "x"], "Error: Unrecognized flag: --nam"],
    ["an unknown command", ["orgs", "remove"], "Error: Unknown subcommand \"remove\""],
    ["an extra argument", ["keys", "revoke", "key_1", "key_2"], "Error: Unexpected positional argument: \"key_2\""],
    ["--url without a token", ["--url", "http://127.0.0.1:9", "orgs", "list"], "Error: --url needs the admin token"],
    [
      "a --url that is not http",
      ["orgs", "list", "--url", "ftp://x", "--admin-token", "t"],
      "Error: Invalid --url (or GATEWAY_URL) 'ftp://x'"
    ]
  ]

  for (const [what, args, message] of cases) {
    it.effect(`${what}: a short usage note on stderr, exit 2, the store never opened`, () =>
      Effect.gen(function*() {
        const result = yield* runArgs(args, { store: untouchableStore })
        assert.strictEqual(result.code, 2)
        assert.isTrue(result.stderr.startsWith(message), result.stderr)
        assert.strictEqual(result.stdout, "")
        assert.notInclude(result.stderr, "    at ") // no stack
      }))
  }

  it.effect("the usage note shows how the command is typed", () =>
    Effect.gen(function*() {
      const result = yield* runArgs(["keys", "create", "--name", "x"], { store: untouchableStore })
      assert.strictEqual(result.code, 2)
      assert.include(
        result.stderr,
        "Usage: svc-gateway keys create --org <org_id> --name <string> [--description <text>] [--expires-at <date_time>] " +
          "[--allowed-tools <tool_ids>] [--rpm <n|none>] [--tpm <n|none>] [--tokens-per-day <n|none>] " +
          "[--tokens-per-month <n|none>] [--usd-per-day <usd|none>] [--usd-per-month <usd|none>] [--json]"
      )
      assert.include(result.stderr, "Run 'svc-gateway keys create --help' for details.")
    }))

  it.effect("help: on stdout, exit 0, the store never opened", () =>
    Effect.gen(function*() {
      for (const args of [[], ["--help"], ["keys"], ["keys", "create", "--help"]]) {
        const result = yield* runArgs(args, { store: untouchableStore })
        assert.strictEqual(result.code, 0, args.join(" "))
        assert.include(result.stdout, "USAGE")
      }
      const version = yield* runArgs(["--version"], { store: untouchableStore })
      assert.strictEqual(version.code, 0)
      assert.match(version.stdout, /svc-gateway v\d+\.\d+\.\d+/)
    }))
})
