/**
 * The request-log commands (`requests list|get`, `analytics`) on the store and through `--url`, against
 * one real gateway whose store both paths share (`LogsHarness.ts`): every command runs both ways and the
 * two runs must give the same exit code, stdout and stderr. Rows are the hand-checked seed of
 * `test/logs/QueriesSeed.ts` (see its table for the figures), under orgs of their own: the store may be a
 * shared PostgreSQL database that is never empty.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  Analytics as AnalyticsWire,
  LoggedRequest as RequestWire,
  RequestPage as RequestPageWire
} from "../../src/admin/AdminResources.ts"
import { MORE_GROUPS, TAG_NOTE } from "../../src/cli/AnalyticsCommand.ts"
import { NOT_STORED } from "../../src/cli/RequestsCommand.ts"
import { unpricedNote } from "../../src/cli/SpendCommand.ts"
import { expectedOrder, OTHER_ORG_SEED, pagingSeed, SEED, type SeedRow } from "../logs/QueriesSeed.ts"
import { unique } from "../utils/TestStore.ts"
import { stdoutJson } from "./CliHarness.ts"
import { bothWays, decode, type LogsGateway, newOrgIn, ok, startLogsGateway } from "./LogsHarness.ts"

let gw: LogsGateway
/** The main seed's org, an org with look-alike rows, 23 rows to page through, and an org with no rows. */
let org = ""
let other = ""
let paging = ""
let empty = ""
const PAGING = pagingSeed(23)

const both = (...args: ReadonlyArray<string>) => bothWays(gw, args)

beforeAll(async () => {
  gw = await startLogsGateway()
  ;[org, other, paging, empty] = await Effect.runPromise(
    Effect.all(["logs", "logs-other", "logs-paging", "logs-empty"].map((label) => newOrgIn(gw, label)))
  )
  await gw.seed(org, SEED)
  await gw.seed(other, OTHER_ORG_SEED)
  await gw.seed(paging, PAGING)
})
afterAll(() => gw?.close())

const id = (n: number) => `${org}-r${n}`
const ids = (...ns: ReadonlyArray<number>) => ns.map(id)

/** The ids `requests list --json` prints for `args` (both ways), and the page's next cursor. */
const listedIds = (orgId: string, ...args: ReadonlyArray<string>) =>
  Effect.map(both("requests", "list", "--org", orgId, ...args, "--json"), (result) => {
    const page = decode(RequestPageWire, stdoutJson(ok(result)))
    return { ids: page.data.map((entry) => entry.id), next: page.next_cursor }
  })

describe("svc-gateway requests list", () => {
  it.live("a table newest first (ties by id, microseconds apart); --json is the admin API's body", () =>
    Effect.gen(function*() {
      const text = ok(yield* both("requests", "list", "--org", org))
      const lines = text.stdout.split("\n")
      assert.match(lines[0]!, /^TIME +ID +MODEL +KEY +STATUS +TAGS +TOKENS +LATENCY$/)
      assert.deepStrictEqual(lines.slice(1).map((line) => line.split(/ +/)[1]), expectedOrder(org, SEED))
      assert.deepStrictEqual(expectedOrder(org, SEED), ids(8, 7, 6, 5, 4, 3, 2, 1))
      // the model as the client addressed it; no key and no tags as "-"; total tokens; latency
      assert.match(
        text.stdout,
        new RegExp(`\\n2026-03-02T10:00:00Z +${id(5)} +openai/gpt-4o +key_a +502 +- +80 +1000 ms\\n`)
      )
      assert.match(
        text.stdout,
        new RegExp(`\\n2026-03-03T23:59:59Z +${id(6)} +local/echo +- +200 +prod, batch +20 +5 ms\\n`)
      )
      assert.match(
        text.stdout,
        new RegExp(`\\n2026-03-01T08:00:00Z +${id(1)} +openai/gpt-4o +key_a +200 +prod, chat +150 +100 ms$`)
      )
      assert.notInclude(text.stdout, "--cursor")

      const json = ok(yield* both("requests", "list", "--org", org, "--json"))
      assert.strictEqual(json.stdout, yield* Effect.promise(() => gw.adminText(`/orgs/${org}/requests`)))
      const page = decode(RequestPageWire, stdoutJson(json))
      assert.isNull(page.next_cursor)
      assert.strictEqual(page.data[0]?.completion_text, "world")
      assert.notProperty(page.data[1], "prompt_text")
    }))

  it.live("every filter, alone and combined, as the admin API applies them", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, ReadonlyArray<string>]> = [
        [["--tag", "prod"], ids(6, 2, 1)],
        [["--tag", "chat", "--tag", "batch"], ids(8, 7, 6, 4, 1)],
        [["--tag", "chat", "--tag", "batch", "--tag-mode", "all"], ids(8)],
        [["--tag", "chat", "--tag-mode", "any"], ids(8, 4, 1)],
        [["--status", "404"], ids(7)],
        [["--status", "4xx"], ids(7, 3)],
        [["--status", "5xx"], ids(5)],
        [["--status", "error"], ids(7, 5, 3)],
        [["--key", "key_a"], ids(5, 2, 1)],
        [["--session", "cc-1"], ids(5, 4, 2)],
        [["--session", "cc-1", "--key", "key_a"], ids(5, 2)],
        [["--session", "cc-2", "--status", "200", "--from", "2026-03-04"], ids(8)],
        [["--model", "gpt-4o"], ids(2, 1)],
        [["--model", "openai/gpt-4o"], ids(5, 2, 1)],
        [["--from", "2026-03-02", "--to", "2026-03-04"], ids(6, 5, 4, 3)],
        [["--from", "2026-03-04T00:00:00Z"], ids(8, 7)],
        [["--to", "2026-03-02T10:00:00+00:00"], ids(2, 1)],
        [["--key", "key_c", "--status", "200", "--tag", "chat"], ids(8)],
        [["--key", "nobody"], []],
        [["--session", "nobody"], []]
      ]
      for (const [args, expected] of cases) {
        const page = yield* listedIds(org, ...args)
        assert.deepStrictEqual(page.ids, expected, args.join(" "))
      }
      // the other org's look-alike rows never show
      assert.deepStrictEqual((yield* listedIds(other)).ids.length, OTHER_ORG_SEED.length)
      assert.isTrue((yield* listedIds(other, "--tag", "prod")).ids.every((rowId) => rowId.startsWith(other)))
      assert.deepStrictEqual((yield* listedIds(other, "--session", "cc-1")).ids, [`${other}-r1`])

      const filtered = ok(yield* both("requests", "list", "--org", org, "--status", "4xx", "--tag", "batch"))
      assert.match(
        filtered.stdout,
        new RegExp(`^TIME .*\\n2026-03-04T00:00:00Z +${id(7)} +local/echo +key_c +404 +batch +0 +2 ms$`)
      )
    }))

  it.live("pages: --limit, then the --cursor each page prints, until the last page", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      let cursor: ReadonlyArray<string> = []
      for (let page = 0; page < 3; page++) {
        const text = ok(yield* both("requests", "list", "--org", paging, "--limit", "10", ...cursor))
        const lines = text.stdout.split("\n")
        const rows = lines.filter((line) => line.startsWith("2026-"))
        seen.push(...rows.map((line) => line.split(/ +/)[1]!))
        const hint = /^More requests: pass --cursor (\S+) for the next page\.$/.exec(lines[lines.length - 1]!)
        if (page < 2) {
          assert.strictEqual(rows.length, 10)
          assert.isNotNull(hint, text.stdout)
          // the cursor printed is the API's next_cursor
          const json = yield* listedIds(paging, "--limit", "10", ...cursor)
          assert.strictEqual(json.next, hint![1])
          cursor = ["--cursor", hint![1]!]
        } else {
          assert.strictEqual(rows.length, 3)
          assert.isNull(hint)
        }
      }
      assert.deepStrictEqual(seen, expectedOrder(paging, PAGING))

      // a filtered walk: tag "third" is every third row (8 rows), three at a time
      const third = expectedOrder(paging, PAGING.filter((row) => row.tags.includes("third")))
      const walked: Array<string> = []
      let next: string | null = null
      do {
        const page: { ids: ReadonlyArray<string>; next: string | null } = yield* listedIds(
          paging,
          "--tag",
          "third",
          "--limit",
          "3",
          ...(next === null ? [] : ["--cursor", next])
        )
        walked.push(...page.ids)
        next = page.next
      } while (next !== null)
      assert.deepStrictEqual(walked, third)
      assert.strictEqual(walked.length, 8)
    }))

  it.live("no requests: says so, and whether filters narrowed it; --json is an empty page", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        ok(yield* both("requests", "list", "--org", empty)).stdout,
        `No requests logged for organization ${empty} yet.`
      )
      assert.strictEqual(
        ok(yield* both("requests", "list", "--org", org, "--model", "nope")).stdout,
        `No requests of organization ${org} match these filters.`
      )
      assert.deepStrictEqual(stdoutJson(ok(yield* both("requests", "list", "--org", empty, "--json"))), {
        object: "list",
        data: [],
        next_cursor: null
      })
    }))
})

describe("svc-gateway requests get", () => {
  it.live("one request's fields, with its prompt and completion text when stored", () =>
    Effect.gen(function*() {
      const eight = ok(yield* both("requests", "get", "--org", org, "--request", id(8)))
      assert.include(eight.stdout, `Request ${id(8)} of organization ${org}.`)
      assert.match(eight.stdout, /\n {2}time: +2026-03-04T00:00:00\.000Z\n/)
      assert.match(
        eight.stdout,
        /\n {2}key: +key_c\n {2}session: +cc-2\n {2}requested model: +local\/echo\n {2}upstream model: +echo\n {2}provider: +test\n/
      )
      assert.match(eight.stdout, /\n {2}tags: +batch, chat\n/)
      assert.match(
        eight.stdout,
        /\n {2}prompt tokens: +40 \(cached 0\)\n {2}completion tokens: +60 \(reasoning 0\)\n {2}total tokens: +100\n/
      )
      assert.match(eight.stdout, /\n {2}latency: +50 ms\n {2}first token: +-\n/)
      assert.isTrue(eight.stdout.endsWith("\n\nPrompt:\nhello\n\nCompletion:\nworld"), eight.stdout)

      const three = ok(yield* both("requests", "get", "--org", org, "--request", id(3)))
      assert.match(three.stdout, /\n {2}status: +429 \(some_error\)\n/)
      assert.match(three.stdout, /\n {2}session: +-\n/)
      assert.isTrue(three.stdout.endsWith(`\n\n${NOT_STORED(org)}`), three.stdout)
      assert.notInclude(three.stdout, "Prompt:")

      const json = ok(yield* both("requests", "get", "--org", org, "--request", id(8), "--json"))
      assert.strictEqual(json.stdout, yield* Effect.promise(() => gw.adminText(`/orgs/${org}/requests/${id(8)}`)))
      const entry = decode(RequestWire, stdoutJson(json))
      assert.deepStrictEqual([entry.id, entry.prompt_text, entry.total_tokens, entry.session_id], [
        id(8),
        "hello",
        100,
        "cc-2"
      ])
    }))

  it.live("an unknown request, another org's request, an unknown org: the API's NotFound, exit 1", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, string, string]> = [
        [org, "req_nope", "No request with id 'req_nope'."],
        [org, `${other}-r1`, `No request with id '${other}-r1'.`],
        [other, id(1), `No request with id '${id(1)}'.`],
        ["org_nope", id(1), "No organization with id 'org_nope'."]
      ]
      for (const [orgId, requestId, message] of cases) {
        for (const json of [[], ["--json"]]) {
          const result = yield* both("requests", "get", "--org", orgId, "--request", requestId, ...json)
          assert.strictEqual(result.code, 1)
          assert.strictEqual(result.stderr, `Error: ${message}`)
          assert.strictEqual(result.stdout, "")
        }
      }
    }))
})

describe("svc-gateway spend", () => {
  const spendSeed: ReadonlyArray<SeedRow> = [
    {
      ...SEED[0]!,
      suffix: "s1",
      createdAt: "2026-03-01T08:00:00Z",
      requestedModel: "gpt-4o",
      model: "gpt-4o",
      cost: [1_600, 200, 0, 800]
    },
    {
      ...SEED[1]!,
      suffix: "s2",
      createdAt: "2026-03-01T09:00:00Z",
      requestedModel: "gpt-4o",
      model: "gpt-4o",
      cost: [10_000, 0, 0, 5_000]
    },
    {
      ...SEED[0]!,
      suffix: "s3",
      createdAt: "2026-03-02T10:00:00Z",
      requestedModel: "claude-3",
      model: "claude-3",
      cost: [2, 1, 0, 1]
    },
    // answered, with no known price: counted apart, never as free
    { ...SEED[0]!, suffix: "s4", createdAt: "2026-03-02T11:00:00Z", requestedModel: "mystery", model: "mystery" }
  ]
  let spendOrg = ""
  beforeAll(async () => {
    spendOrg = await Effect.runPromise(newOrgIn(gw, "logs-spend"))
    await gw.seed(spendOrg, spendSeed)
  })

  it.live("per UTC day by default, with the total and the unpriced requests named; --json is the API's", () =>
    Effect.gen(function*() {
      const text = ok(yield* both("spend", "--org", spendOrg)).stdout
      assert.match(text, /^DAY +COST +REQUESTS +UNPRICED +TOKENS\n/)
      assert.match(text, /\n2026-03-01 +\$0\.02 +2 +0 +\d+\n/)
      // four micro-dollars: shown to the micro-dollar, not as $0.00
      assert.match(text, /\n2026-03-02 +\$0\.000004 +2 +1 +\d+\n/)
      assert.include(text, "\nTotal: $0.02\n")
      assert.include(text, unpricedNote(1))
      const json = ok(yield* both("spend", "--org", spendOrg, "--json"))
      assert.strictEqual(
        json.stdout,
        yield* Effect.promise(() => gw.adminText(`/orgs/${spendOrg}/analytics?group_by=day`))
      )
    }))

  it.live("per model, and in total with --group-by none", () =>
    Effect.gen(function*() {
      const byModel = ok(yield* both("spend", "--org", spendOrg, "--group-by", "model")).stdout
      assert.match(byModel, /\ngpt-4o +\$0\.02 +2 +0 /)
      assert.match(byModel, /\nmystery +\$0\.00 +1 +1 /)
      const total = ok(yield* both("spend", "--org", spendOrg, "--group-by", "none")).stdout
      assert.match(total, /\nall +\$0\.02 +4 +1 +\d+/)
      assert.notInclude(total, "Total:")
    }))

  it.live("without --org, every organization's: --group-by org a row per org, as the gateway-wide API", () =>
    Effect.gen(function*() {
      // a tag of this run's own: the shared PostgreSQL store keeps every earlier run's rows
      const day = "2030-01-15"
      const tag = unique("every-org")
      const big = yield* newOrgIn(gw, "spend-big")
      const small = yield* newOrgIn(gw, "spend-small")
      const seed = { ...spendSeed[0]!, tags: [tag] }
      yield* Effect.promise(() =>
        gw.seed(big, [{ ...seed, suffix: "x1", createdAt: `${day}T08:00:00Z`, cost: [30_000, 0, 0, 0] }])
      )
      yield* Effect.promise(() =>
        gw.seed(small, [{ ...seed, suffix: "y1", createdAt: `${day}T09:00:00Z`, cost: [1, 0, 0, 0] }])
      )
      const filter = ["--from", day, "--to", "2030-01-16", "--tag", tag]
      const byOrg = ok(yield* both("spend", "--group-by", "org", ...filter)).stdout.split("\n")
      assert.match(byOrg[0]!, /^ORG +COST +REQUESTS +UNPRICED +TOKENS$/)
      assert.match(byOrg[1]!, new RegExp(`^(${big}|${small}) +\\$(0\\.03|0\\.000001) +1 +0 +\\d+$`))
      assert.deepStrictEqual(new Set(byOrg.slice(1, 3).map((line) => line.split(/ +/)[0])), new Set([big, small]))
      assert.include(byOrg.join("\n"), "\nTotal: $0.03")
      const json = ok(yield* both("spend", "--group-by", "org", ...filter, "--json"))
      assert.strictEqual(
        json.stdout,
        yield* Effect.promise(() => gw.adminText(`/analytics?group_by=org&from=${day}&to=2030-01-16&tag=${tag}`))
      )
    }))
})

describe("svc-gateway analytics", () => {
  it.live("--group-by none: the totals in one row; --json is the admin API's body", () =>
    Effect.gen(function*() {
      const text = ok(yield* both("analytics", "--org", org, "--group-by", "none"))
      // latencies 2, 5, 30, 50, 100, 200, 400, 1000 → p50 = 75, p95 = 400 + 0.65 × 600
      assert.match(
        text.stdout,
        /^GROUP +REQUESTS +ERRORS +PROMPT TOKENS +COMPLETION TOKENS +TOTAL TOKENS +P50 MS +P95 MS\nall +8 +3 +780 +420 +1200 +75 +790$/
      )
      const json = ok(yield* both("analytics", "--org", org, "--group-by", "none", "--json"))
      assert.strictEqual(json.stdout, yield* Effect.promise(() => gw.adminText(`/orgs/${org}/analytics?group_by=none`)))
      const body = decode(AnalyticsWire, stdoutJson(json))
      assert.deepStrictEqual([body.group_by, body.has_more, body.data.length, body.data[0]?.group], [
        "none",
        false,
        1,
        null
      ])
      assert.strictEqual(body.data[0]?.cached_tokens, 110)

      const keyC = ok(yield* both("analytics", "--org", org, "--group-by", "none", "--key", "key_c"))
      assert.match(keyC.stdout, /\nall +2 +1 +40 +60 +100 +26 +47\.6$/)
    }))

  it.live("by tag, key, session, model, status, day and hour: the groups in the API's order", () =>
    Effect.gen(function*() {
      const groups = (groupBy: string, ...args: ReadonlyArray<string>) =>
        Effect.map(
          both("analytics", "--org", org, "--group-by", groupBy, ...args),
          (result) =>
            ok(result).stdout.split("\n").slice(1).filter((line) => line !== "" && !line.startsWith("A request")).map((
              line
            ) => line.split(/ {2,}/))
        )

      const byTag = yield* both("analytics", "--org", org, "--group-by", "tag")
      assert.match(byTag.stdout, /^TAG +REQUESTS/)
      assert.isTrue(byTag.stdout.endsWith(`\n\n${TAG_NOTE}`))
      assert.notInclude(byTag.stdout, MORE_GROUPS)
      assert.deepStrictEqual(yield* groups("tag"), [
        ["batch", "3", "1", "50", "70", "120", "5", "45.5"],
        ["chat", "3", "0", "440", "310", "750", "100", "370"],
        ["prod", "3", "0", "310", "160", "470", "100", "190"],
        ["dev", "2", "1", "350", "200", "550", "215", "381.5"],
        ["(untagged)", "1", "1", "80", "0", "80", "1000", "1000"]
      ])
      assert.deepStrictEqual((yield* groups("key")).map((row) => row.slice(0, 3)), [
        ["key_a", "3", "1"],
        ["key_b", "2", "1"],
        ["key_c", "2", "1"],
        ["(no key)", "1", "0"]
      ])
      // as busy as cc-1, the requests without a session come after it
      assert.deepStrictEqual(yield* groups("session"), [
        ["cc-1", "3", "1", "580", "300", "880", "400", "940"],
        ["(no session)", "3", "2", "150", "50", "200", "30", "93"],
        ["cc-2", "2", "0", "50", "70", "120", "27.5", "47.75"]
      ])
      assert.match((yield* both("analytics", "--org", org, "--group-by", "session")).stdout, /^SESSION +REQUESTS/)
      assert.deepStrictEqual((yield* groups("key", "--session", "cc-1")).map((row) => row.slice(0, 3)), [
        ["key_a", "2", "1"],
        ["key_b", "1", "0"]
      ])
      assert.deepStrictEqual((yield* groups("model")).map((row) => row.slice(0, 2)), [
        ["local/echo", "3"],
        ["openai/gpt-4o", "3"],
        ["anthropic/claude", "2"]
      ])
      assert.deepStrictEqual((yield* groups("status")).map((row) => row.slice(0, 3)), [
        ["200", "5", "0"],
        ["404", "1", "1"],
        ["429", "1", "1"],
        ["502", "1", "1"]
      ])
      assert.deepStrictEqual((yield* groups("day", "--status", "error")).map((row) => row.slice(0, 3)), [
        ["2026-03-02", "2", "2"],
        ["2026-03-04", "1", "1"]
      ])
      assert.deepStrictEqual(
        (yield* groups("hour", "--from", "2026-03-02", "--to", "2026-03-04T00:00:00.001Z")).map((row) =>
          row.slice(0, 2)
        ),
        [["2026-03-02T10:00:00Z", "3"], ["2026-03-03T23:00:00Z", "1"], ["2026-03-04T00:00:00Z", "2"]]
      )
      // a tag filter selects requests, not groups: key_b's requests show all their tags
      assert.deepStrictEqual((yield* groups("tag", "--key", "key_b", "--tag", "dev")).map((row) => row.slice(0, 2)), [
        ["dev", "2"],
        ["chat", "1"]
      ])
    }))

  it.live("no matching requests: says so; --json has no groups", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        ok(yield* both("analytics", "--org", empty, "--group-by", "day")).stdout,
        `No requests logged for organization ${empty} yet.`
      )
      const json = decode(
        AnalyticsWire,
        stdoutJson(ok(yield* both("analytics", "--org", org, "--group-by", "tag", "--tag", "nope", "--json")))
      )
      assert.deepStrictEqual(json, { object: "list", group_by: "tag", data: [], has_more: false })
    }))
})
