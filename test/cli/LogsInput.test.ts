/**
 * `orgs update --log-content`, and every kind of bad input to the request-log commands, on the store and
 * through `--url` against one real gateway whose store both paths share (`LogsHarness.ts`): the two runs
 * must print the same, and a bad filter must be refused with the admin API's own message (its query
 * parsing, `RequestQueryParams.ts`), whichever way the command went.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted, Result, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { Org as OrgWire, RequestPage as RequestPageWire } from "../../src/admin/AdminResources.ts"
import { AdminClient } from "../../src/cli/AdminClient.ts"
import { NOTHING_TO_CHANGE } from "../../src/cli/OrgsCommand.ts"
import { NOT_STORED } from "../../src/cli/RequestsCommand.ts"
import { GatewayConfig } from "../../src/Config.ts"
import { describeError } from "../../src/http/ErrorResponse.ts"
import { GROUP_BY } from "../../src/kernel/GroupBy.ts"
import type { RequestError } from "../../src/kernel/RequestError.ts"
import { parseAnalyticsParams, parseListParams, type QueryParams } from "../../src/logs/RequestQueryParams.ts"
import { SEED } from "../logs/QueriesSeed.ts"
import { ADMIN_TOKEN } from "../utils/TestGateway.ts"
import { storeEnv } from "../utils/TestStore.ts"
import { type CliResult, runArgs, stdoutJson, untouchableStore } from "./CliHarness.ts"
import { bothWays, decode, type LogsGateway, newOrgIn, ok, onStore, startLogsGateway, viaUrl } from "./LogsHarness.ts"

let gw: LogsGateway
/** An org with the seed's rows. */
let org = ""

const both = (...args: ReadonlyArray<string>) => bothWays(gw, args)
const newOrg = (label: string) => newOrgIn(gw, label)

beforeAll(async () => {
  gw = await startLogsGateway()
  org = await Effect.runPromise(newOrg("logs-input"))
  await gw.seed(org, SEED)
})
afterAll(() => gw?.close())

/** The message the admin API's own query parsing gives for `params`: what both paths must print. */
const paramsMessage = (
  parse: (params: QueryParams) => Effect.Effect<unknown, RequestError>,
  params: QueryParams
) => {
  const result = Effect.runSync(Effect.result(parse(params)))
  if (Result.isSuccess(result)) throw new Error(`${JSON.stringify(params)} should be refused`)
  return describeError(result.failure).body.error.message
}

describe("svc-gateway orgs update --compression", () => {
  it.live("sets the org's level, and default goes back to the gateway's; the API and the list show it", () =>
    Effect.gen(function*() {
      const orgId = yield* newOrg("compression")
      const compressionOf = (result: CliResult) =>
        decode(Schema.Struct({ data: Schema.Array(OrgWire) }), stdoutJson(ok(result))).data.find((o) => o.id === orgId)
          ?.compression
      assert.isNull(compressionOf(yield* onStore(gw, ["orgs", "list", "--json"])))
      const shadow = ok(yield* onStore(gw, ["orgs", "update", "--org", orgId, "--compression", "shadow"]))
      assert.match(shadow.stdout, /\n {2}compression: +shadow\n/)
      assert.notInclude(shadow.stdout, "prompt and completion text")
      assert.strictEqual(compressionOf(yield* viaUrl(gw, ["orgs", "list", "--json"])), "shadow")
      const viaApi = ok(yield* viaUrl(gw, ["orgs", "update", "--org", orgId, "--compression", "default", "--json"]))
      assert.strictEqual(viaApi.stdout, yield* Effect.promise(() => gw.adminText(`/orgs/${orgId}`)))
      assert.isNull(decode(OrgWire, stdoutJson(viaApi)).compression)
      const text = ok(yield* both("orgs", "update", "--org", orgId, "--compression", "default"))
      assert.match(text.stdout, /\n {2}compression: +the gateway's \(GATEWAY_COMPRESSION\)\n/)
    }))

  it.live("nothing to change: a short note, exit 2, neither the store nor the gateway touched", () =>
    Effect.gen(function*() {
      for (const prefix of [[], ["--url", "http://127.0.0.1:9", "--admin-token", "t"]]) {
        const result = yield* untouched([...prefix, "orgs", "update", "--org", "org_1"])
        assert.strictEqual(result.code, 2, result.stderr)
        assert.isTrue(result.stderr.startsWith(`Error: ${NOTHING_TO_CHANGE}`), result.stderr)
        assert.strictEqual(result.stdout, "")
      }
    }))
})

describe("svc-gateway orgs update: dollar budgets and alerts", () => {
  it.live("sets dollar budgets and the alert webhook on the store or through the gateway, alike", () =>
    Effect.gen(function*() {
      const orgId = yield* newOrg("dollars")
      const set = ok(
        yield* onStore(gw, [
          "orgs",
          "update",
          "--org",
          orgId,
          "--usd-per-day",
          "20",
          "--usd-per-month",
          "0.5",
          "--alert-webhook",
          "https://hooks.example.com/svc",
          "--alert-thresholds",
          "1,0.5"
        ])
      )
      assert.match(set.stdout, /\n {2}limits: +\$20\/day, \$0\.5\/month\n/)
      assert.match(
        set.stdout,
        /\n {2}budget alerts: +at 50%, 100% of a dollar budget, posted to https:\/\/hooks\.example\.com\/svc\n/
      )
      const viaApi = decode(
        OrgWire,
        stdoutJson(ok(yield* viaUrl(gw, ["orgs", "update", "--org", orgId, "--usd-per-day", "none", "--json"])))
      )
      assert.deepStrictEqual([viaApi.limits.usd_per_day, viaApi.limits.usd_per_month], [null, 0.5])
      assert.deepStrictEqual(viaApi.alerts, { webhook_url: "https://hooks.example.com/svc", thresholds: [0.5, 1] })
      const off = ok(yield* both("orgs", "update", "--org", orgId, "--alert-webhook", "none"))
      assert.match(off.stdout, /\n {2}budget alerts: +none\n/)
    }))

  it.live("bad dollars and thresholds are usage mistakes; thresholds alone ask for the webhook", () =>
    Effect.gen(function*() {
      for (
        const [args, wanted] of [
          [["--usd-per-day", "0"], "dollars above 0"],
          [["--usd-per-day", "1.0000001"], "dollars above 0"],
          [["--usd-per-month", "$5"], "dollars above 0"],
          [["--alert-webhook", "https://h.example.com", "--alert-thresholds", "0.5,2"], "shares above 0"],
          [["--alert-thresholds", "0.5"], "--alert-thresholds needs --alert-webhook too"]
        ] as const
      ) {
        const result = yield* untouched(["orgs", "update", "--org", "org_1", ...args])
        assert.strictEqual(result.code, 2, result.stderr)
        assert.include(result.stderr, wanted)
      }
      // the URL itself is the API's to judge: its message, whichever way the command went
      const orgId = yield* newOrg("bad-webhook")
      const refused = yield* both("orgs", "update", "--org", orgId, "--alert-webhook", "ftp://x.example.com")
      assert.strictEqual(refused.code, 2, refused.stderr)
      assert.include(refused.stderr, "Invalid value for 'alerts.webhook_url': Expected an http or https URL")
    }))
})

describe("svc-gateway orgs update --log-content", () => {
  it.live("turns storing text on and off; orgs list and the admin API show it either way", () =>
    Effect.gen(function*() {
      const orgId = yield* newOrg("content")
      const logContentOf = (result: CliResult) =>
        decode(Schema.Struct({ data: Schema.Array(OrgWire) }), stdoutJson(ok(result))).data.find((o) => o.id === orgId)
          ?.log_content

      assert.isFalse(logContentOf(yield* onStore(gw, ["orgs", "list", "--json"])))
      const on = ok(yield* onStore(gw, ["orgs", "update", "--org", orgId, "--log-content", "true"]))
      assert.match(on.stdout, new RegExp(`^Updated organization '[^']+' \\(${orgId}\\)\\.\\n {2}log content: +yes\\n`))
      assert.include(on.stdout, "keeps the prompt and completion text")
      assert.isTrue(logContentOf(yield* viaUrl(gw, ["orgs", "list", "--json"])))

      const off = ok(yield* viaUrl(gw, ["orgs", "update", "--org", orgId, "--log-content", "false", "--json"]))
      assert.strictEqual(off.stdout, yield* Effect.promise(() => gw.adminText(`/orgs/${orgId}`)))
      assert.isFalse(decode(OrgWire, stdoutJson(off)).log_content)
      assert.isFalse(logContentOf(yield* onStore(gw, ["orgs", "list", "--json"])))
      const text = ok(yield* both("orgs", "update", "--org", orgId, "--log-content", "false"))
      assert.match(text.stdout, /\n {2}log content: +no\n/)
      assert.include(text.stdout, "no longer keeps")
    }))

  it.live("with it on, the gateway logs a chat's text, which requests get then shows", () =>
    Effect.gen(function*() {
      const orgId = yield* newOrg("chat")
      ok(yield* both("orgs", "update", "--org", orgId, "--log-content", "true"))
      const created = yield* onStore(gw, ["keys", "create", "--org", orgId, "--name", "k", "--json"])
      assert.strictEqual(created.code, 0, created.stderr)
      const key = decode(Schema.Struct({ id: Schema.String, key: Schema.String }), stdoutJson(created))
      const requestId = yield* Effect.promise(async () => {
        const response = await fetch(`${gw.url}/v1/chat/completions`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${key.key}`,
            "content-type": "application/json",
            "x-svc-tags": "cli-test",
            "x-claude-code-session-id": "cli-session-1"
          },
          body: JSON.stringify({ model: "local/echo", messages: [{ role: "user", content: "remember me" }] })
        })
        await response.text()
        assert.strictEqual(response.status, 200)
        return response.headers.get("x-svc-request-id") ?? ""
      })
      // the log writes in batches (every 200 ms): wait for the row in the store, then read it both ways
      // (waiting through both ways, the row could land between the store's read and the gateway's)
      const list = ["requests", "list", "--org", orgId, "--tag", "cli-test", "--json"]
      const stored = Effect.map(onStore(gw, list), (result) => decode(RequestPageWire, stdoutJson(ok(result))).data)
      for (let tries = 0; tries < 50 && (yield* stored).length === 0; tries++) yield* Effect.sleep("100 millis")
      const listed = yield* both(...list)
      const page = decode(RequestPageWire, stdoutJson(listed))
      assert.deepStrictEqual(page.data.map((entry) => [entry.id, entry.key_id, entry.status]), [[
        requestId,
        key.id,
        200
      ]])
      const session = decode(
        RequestPageWire,
        stdoutJson(ok(yield* both("requests", "list", "--org", orgId, "--session", "cli-session-1", "--json")))
      )
      assert.deepStrictEqual(session.data.map((entry) => [entry.id, entry.session_id]), [[requestId, "cli-session-1"]])

      const shown = ok(yield* both("requests", "get", "--org", orgId, "--request", requestId))
      assert.match(shown.stdout, /\n {2}session: +cli-session-1\n/)
      assert.match(shown.stdout, /\nPrompt:\n.*remember me/s)
      assert.include(shown.stdout, "\n\nCompletion:\n")
      assert.notInclude(shown.stdout, NOT_STORED(orgId))
    }))
})

/** A command line with a store that must never be opened: help and usage mistakes never need one. */
const untouched = (args: ReadonlyArray<string>) => runArgs(args, { store: untouchableStore })

describe("bad input: the same message both ways, and an exit code", () => {
  it.live("a bad filter or page: the admin API's own message, exit 2, before the org is looked up", () =>
    Effect.gen(function*() {
      const list: ReadonlyArray<readonly [ReadonlyArray<string>, QueryParams]> = [
        [["--status", "7xx"], { status: "7xx" }],
        [["--status", "200x"], { status: "200x" }],
        [["--tag-mode", "most"], { tag_mode: "most" }],
        [["--from", "yesterday"], { from: "yesterday" }],
        [["--from", "2026-03-01T10:00:00"], { from: "2026-03-01T10:00:00" }],
        [["--from", "2026-03-02", "--to", "2026-03-01"], { from: "2026-03-02", to: "2026-03-01" }],
        [["--limit", "0"], { limit: "0" }],
        [["--limit", "500"], { limit: "500" }],
        [["--cursor", "garbage!"], { cursor: "garbage!" }],
        [["--model", ""], { model: "" }],
        [["--session", ""], { session_id: "" }],
        [["--tag", "a", "--tag", ""], { tag: ["a", ""] }]
      ]
      for (const [args, params] of list) {
        const message = paramsMessage(parseListParams, params)
        for (const orgId of [org, "org_nope"]) {
          const result = yield* both("requests", "list", "--org", orgId, ...args)
          assert.strictEqual(result.code, 2, args.join(" "))
          assert.strictEqual(result.stderr, `Error: ${message}`)
          assert.strictEqual(result.stdout, "")
        }
      }
      assert.strictEqual(
        paramsMessage(parseListParams, { status: "7xx" }),
        "Invalid value for 'status': expected a status code such as 404, a class such as 4xx or 5xx, or 'error'."
      )

      const analytics: ReadonlyArray<readonly [ReadonlyArray<string>, QueryParams]> = [
        [["--group-by", "week"], { group_by: "week" }],
        [["--group-by", "none", "--status", "7xx"], { group_by: "none", status: "7xx" }],
        [["--group-by", "tag", "--to", "soon"], { group_by: "tag", to: "soon" }],
        [["--group-by", "sessions"], { group_by: "sessions" }],
        [["--group-by", "session", "--session", ""], { group_by: "session", session_id: "" }]
      ]
      for (const [args, params] of analytics) {
        const message = paramsMessage(parseAnalyticsParams, params)
        const result = yield* both("analytics", "--org", org, ...args)
        assert.strictEqual(result.code, 2, args.join(" "))
        assert.strictEqual(result.stderr, `Error: ${message}`)
      }
      assert.strictEqual(
        paramsMessage(parseAnalyticsParams, { group_by: "week" }),
        `Invalid value for 'group_by': expected one of ${GROUP_BY.join(", ")}.`
      )
    }))

  it.live("an unknown org: the API's NotFound, exit 1, for every command", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<ReadonlyArray<string>> = [
        ["requests", "list", "--org", "org_nope"],
        ["requests", "list", "--org", "org_nope", "--status", "5xx", "--json"],
        ["analytics", "--org", "org_nope", "--group-by", "none"],
        ["orgs", "update", "--org", "org_nope", "--log-content", "true"]
      ]
      for (const args of cases) {
        const result = yield* both(...args)
        assert.strictEqual(result.code, 1, args.join(" "))
        assert.strictEqual(result.stderr, "Error: No organization with id 'org_nope'.")
        assert.strictEqual(result.stdout, "")
      }
    }))

  it.live("usage mistakes: a short note, exit 2, neither the store nor the gateway touched", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["analytics", "--org", "org_1"], "Error: Missing required flag: --group-by"],
        [["requests", "get", "--org", "org_1"], "Error: Missing required flag: --request"],
        [["requests", "list"], "Error: Missing required flag: --org"],
        [["orgs", "update", "--org", "org_1", "--compression", "max"], "Error: "],
        [["orgs", "update", "--org", "org_1", "--log-content", "maybe"], "Error: "],
        [["requests", "list", "--org", "org_1", "--limit", "many"], "Error: "],
        [["requests", "list", "--org", "org_1", "--stauts", "4xx"], "Error: Unrecognized flag: --stauts"]
      ]
      for (const [args, message] of cases) {
        // a --url nobody listens on: a usage mistake must be answered before any call
        for (const prefix of [[], ["--url", "http://127.0.0.1:9", "--admin-token", "t"]]) {
          const result = yield* untouched([...prefix, ...args])
          assert.strictEqual(result.code, 2, `${args.join(" ")}: ${result.stderr}`)
          assert.isTrue(result.stderr.startsWith(message), result.stderr)
          assert.include(result.stderr, "Usage: svc-gateway ")
          assert.strictEqual(result.stdout, "")
        }
      }
    }))

  it.live("help lists the new commands and their flags", () =>
    Effect.gen(function*() {
      const root = ok(yield* untouched(["--help"]))
      assert.match(root.stdout, /\brequests\b/)
      assert.match(root.stdout, /\banalytics\b/)
      const list = ok(yield* untouched(["requests", "list", "--help"]))
      for (
        const flag of [
          "--tag",
          "--tag-mode",
          "--model",
          "--key",
          "--session",
          "--status",
          "--from",
          "--to",
          "--limit",
          "--cursor",
          "--json"
        ]
      ) {
        assert.include(list.stdout, flag)
      }
      assert.include(ok(yield* untouched(["analytics", "--help"])).stdout, GROUP_BY.join("|"))
      const orgsUpdate = ok(yield* untouched(["orgs", "update", "--help"])).stdout
      for (
        const flag of ["--log-content", "--usd-per-day", "--usd-per-month", "--alert-webhook", "--alert-thresholds"]
      ) {
        assert.include(orgsUpdate, flag)
      }
    }))
})

describe("AdminClient: the request-log operations", () => {
  it.live("layerHttp: the admin API's values, typed; a bad grouping is InvalidInput", () =>
    Effect.gen(function*() {
      const admin = yield* AdminClient
      const first = yield* admin.listRequests(org, { status: "error", limit: 2 })
      assert.deepStrictEqual(first.data.map((entry) => entry.id), [`${org}-r7`, `${org}-r5`])
      assert.isNotNull(first.next_cursor)
      const rest = yield* admin.listRequests(org, { status: "error", limit: 2, cursor: first.next_cursor ?? "" })
      assert.deepStrictEqual(rest.data.map((entry) => entry.id), [`${org}-r3`])
      assert.isNull(rest.next_cursor)

      const eight = yield* admin.getRequest(org, `${org}-r8`)
      assert.deepStrictEqual([eight.prompt_text, eight.completion_text, eight.tags], ["hello", "world", [
        "batch",
        "chat"
      ]])

      const chatAndBatch = yield* admin.analytics(org, "none", { tags: ["chat", "batch"], tagMode: "all" })
      assert.deepStrictEqual(chatAndBatch.data.map((g) => [g.group, g.requests, g.total_tokens]), [[null, 1, 100]])

      assert.isTrue((yield* admin.updateOrg(org, { log_content: true })).log_content)
      const both = yield* admin.updateOrg(org, { log_content: false, compression: "aggressive" })
      assert.deepStrictEqual([both.log_content, both.compression], [false, "aggressive"])
      assert.isNull((yield* admin.updateOrg(org, { compression: null })).compression)
      const nothing = yield* Effect.flip(admin.updateOrg(org, {}))
      assert.strictEqual(nothing.reason._tag, "InvalidInput")
      assert.match(nothing.message, /^Nothing to change: send 'log_content'/)

      const refused = yield* Effect.flip(admin.analytics(org, "week", {}))
      assert.strictEqual(refused.reason._tag, "InvalidInput")
      assert.strictEqual(refused.message, `Invalid value for 'group_by': expected one of ${GROUP_BY.join(", ")}.`)
      const missing = yield* Effect.flip(admin.getRequest(org, "req_nope"))
      assert.strictEqual(missing.reason._tag, "NotFound")
    }).pipe(
      Effect.provide(
        AdminClient.layerHttp({ url: gw.url, adminToken: Redacted.make(ADMIN_TOKEN) }).pipe(
          Layer.provide(FetchHttpClient.layer)
        )
      )
    ))

  it.live("layerStoreWith, the store the CLI opens itself, answers the log commands too", () =>
    Effect.gen(function*() {
      const store = AdminClient.layerStoreWith(GatewayConfig.layerFrom(storeEnv()))
      const missing = yield* runArgs(["requests", "list", "--org", "org_nope"], { store })
      assert.strictEqual(missing.code, 1)
      assert.strictEqual(missing.stderr, "Error: No organization with id 'org_nope'.")
      const bad = yield* runArgs(["analytics", "--org", "org_nope", "--group-by", "week"], { store })
      assert.strictEqual(bad.code, 2)
      assert.strictEqual(bad.stderr, `Error: Invalid value for 'group_by': expected one of ${GROUP_BY.join(", ")}.`)
    }))
})
