/**
 * RequestQueries on the real store (embedded SQLite, or PostgreSQL with DATABASE_URL): every filter, tag any/all,
 * detail, cross-org isolation, and analytics checked against figures worked out by hand from the seed
 * (see `QueriesSeed.ts` for the table they come from).
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { AnalyticsGroup } from "../../src/logs/Analytics.ts"
import type { RequestFilter } from "../../src/logs/RequestFilter.ts"
import { RequestLogStore } from "../../src/logs/RequestLogStore.ts"
import { type RequestLogEntry, RequestQueries } from "../../src/logs/RequestQueries.ts"
import { spendCsv } from "../../src/logs/SpendReport.ts"
import { makeRecord } from "../utils/RequestLogHarness.ts"
import { notFoundOf, StoreLive, unique } from "../utils/TestStore.ts"
import { insertRows, OTHER_ORG_SEED, SEED } from "./QueriesSeed.ts"

const ORG = unique("org_logs")
const OTHER = unique("org_other")
const ODD = unique("org_odd")
/** Tags that would break a hand-built array literal; they must travel as one bound text[] value. */
const ODD_TAGS = ["a,b", "\"quoted\"", "{braces}", "NULL", "back\\slash"]
const id = (n: number) => `${ORG}-r${n}`

const Seeded = Layer.effectDiscard(Effect.all([
  insertRows(ORG, SEED),
  insertRows(OTHER, OTHER_ORG_SEED),
  insertRows(ODD, [{ ...SEED[0]!, tags: ODD_TAGS }])
]))
const Live = Seeded.pipe(
  Layer.provideMerge(Layer.mergeAll(RequestQueries.layer, RequestLogStore.layer)),
  Layer.provideMerge(StoreLive)
)

/** The ids of one page of ORG matching `filter` (the seed is smaller than the page). */
const idsOf = (filter: RequestFilter) =>
  Effect.gen(function*() {
    const page = yield* (yield* RequestQueries).list(ORG, filter, { limit: 200 })
    assert.isNull(page.next_cursor)
    return page.data.map((entry) => entry.id)
  })

const ids = (...ns: ReadonlyArray<number>) => ns.map(id)

type Figures = readonly [
  group: string | null,
  requests: number,
  errors: number,
  prompt: number,
  completion: number,
  cached: number,
  reasoning: number,
  total: number,
  p50: number,
  p95: number
]

/** Compares groups in order; percentiles to 1e-9 (percentile_cont interpolates in float8). */
const assertGroups = (actual: ReadonlyArray<AnalyticsGroup>, expected: ReadonlyArray<Figures>) => {
  assert.deepStrictEqual(actual.map((g) => g.group), expected.map((e) => e[0]))
  expected.forEach(([group, requests, errors, prompt, completion, cached, reasoning, total, p50, p95], i) => {
    const g = actual[i]!
    assert.deepStrictEqual(
      [g.requests, g.errors, g.prompt_tokens, g.completion_tokens, g.cached_tokens, g.reasoning_tokens, g.total_tokens],
      [requests, errors, prompt, completion, cached, reasoning, total],
      `group ${group}`
    )
    assert.closeTo(g.p50_latency_ms, p50, 1e-9, `p50 of ${group}`)
    assert.closeTo(g.p95_latency_ms, p95, 1e-9, `p95 of ${group}`)
  })
}

layer(Live)("RequestQueries", (it) => {
  it.effect("lists the org's rows newest first, ties by id descending, microseconds kept apart", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* idsOf({}), ids(8, 7, 6, 5, 4, 3, 2, 1))
    }))

  it.effect("rows come as snake_case JSON with ISO times; text only when stored", () =>
    Effect.gen(function*() {
      const page = yield* (yield* RequestQueries).list(ORG, {}, { limit: 200 })
      const [eight, seven] = page.data
      assert.deepStrictEqual(seven, {
        id: id(7),
        kind: "completion",
        created_at: "2026-03-04T00:00:00.000Z",
        org_id: ORG,
        key_id: "key_c",
        requested_model: "local/echo",
        model: "echo",
        provider: "test",
        status: 404,
        error_code: "some_error",
        stream: false,
        tags: ["batch"],
        prompt_tokens: 0,
        completion_tokens: 0,
        cached_tokens: 0,
        reasoning_tokens: 0,
        total_tokens: 0,
        svc_tools: [],
        attempts: 1,
        latency_ms: 2,
        ttft_ms: null,
        compression_level: null,
        prompt_tokens_saved: null,
        prompt_tokens_saved_net: null,
        shadow_tokens_saved_safe: null,
        shadow_tokens_saved_aggressive: null,
        user_agent: "seed",
        session_id: null,
        cost_usd: null,
        cost_input_usd: null,
        cost_cached_input_usd: null,
        cost_cache_write_usd: null,
        cost_output_usd: null,
        compression_saved_usd: null
      })
      assert.strictEqual(eight?.prompt_text, "hello")
      assert.strictEqual(eight?.completion_text, "world")
      assert.strictEqual(eight?.session_id, "cc-2")
      assert.strictEqual(eight?.total_tokens, 100)
      assert.isFalse(page.data.slice(1).some((entry) => "prompt_text" in entry || "completion_text" in entry))
    }))

  it.effect("tags: any-of and all-of", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* idsOf({ tags: { values: ["prod", "dev"], mode: "any" } }), ids(6, 4, 3, 2, 1))
      assert.deepStrictEqual(yield* idsOf({ tags: { values: ["chat", "batch"], mode: "any" } }), ids(8, 7, 6, 4, 1))
      assert.deepStrictEqual(yield* idsOf({ tags: { values: ["chat"], mode: "all" } }), ids(8, 4, 1))
      assert.deepStrictEqual(yield* idsOf({ tags: { values: ["batch", "chat"], mode: "all" } }), ids(8))
      assert.deepStrictEqual(yield* idsOf({ tags: { values: ["prod", "dev"], mode: "all" } }), [])
      assert.deepStrictEqual(yield* idsOf({ tags: { values: ["nope"], mode: "any" } }), [])
    }))

  it.effect("tags with commas, quotes, braces and backslashes are matched exactly", () =>
    Effect.gen(function*() {
      const queries = yield* RequestQueries
      const find = (values: readonly [string, ...Array<string>], mode: "any" | "all") =>
        Effect.map(queries.list(ODD, { tags: { values, mode } }, { limit: 10 }), (page) => page.data.map((e) => e.tags))
      assert.deepStrictEqual(yield* find(["a,b"], "any"), [ODD_TAGS])
      assert.deepStrictEqual(yield* find([...ODD_TAGS] as [string, ...Array<string>], "all"), [ODD_TAGS])
      assert.deepStrictEqual(yield* find(["a"], "any"), [])
      assert.deepStrictEqual(yield* find(["quoted"], "any"), [])
      assert.deepStrictEqual(yield* find(["back\\slash"], "any"), [ODD_TAGS])
    }))

  it.effect("model matches the requested or the reported model", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* idsOf({ model: "gpt-4o" }), ids(2, 1))
      assert.deepStrictEqual(yield* idsOf({ model: "openai/gpt-4o" }), ids(5, 2, 1))
      assert.deepStrictEqual(yield* idsOf({ model: "echo" }), ids(8, 7, 6))
      assert.deepStrictEqual(yield* idsOf({ model: "gpt" }), [])
    }))

  it.effect("key id", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* idsOf({ keyId: "key_b" }), ids(4, 3))
      assert.deepStrictEqual(yield* idsOf({ keyId: "key_c" }), ids(8, 7))
      assert.deepStrictEqual(yield* idsOf({ keyId: "key_z" }), [])
    }))

  it.effect("session id: a client's session across keys", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* idsOf({ sessionId: "cc-1" }), ids(5, 4, 2))
      assert.deepStrictEqual(yield* idsOf({ sessionId: "cc-2" }), ids(8, 6))
      assert.deepStrictEqual(yield* idsOf({ sessionId: "cc" }), [])
      assert.deepStrictEqual(yield* idsOf({ sessionId: "CC-1" }), [])
    }))

  it.effect("status: exact, class and error", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* idsOf({ status: { _tag: "Exact", status: 200 } }), ids(8, 6, 4, 2, 1))
      assert.deepStrictEqual(yield* idsOf({ status: { _tag: "Exact", status: 429 } }), ids(3))
      assert.deepStrictEqual(yield* idsOf({ status: { _tag: "Class", hundreds: 2 } }), ids(8, 6, 4, 2, 1))
      assert.deepStrictEqual(yield* idsOf({ status: { _tag: "Class", hundreds: 4 } }), ids(7, 3))
      assert.deepStrictEqual(yield* idsOf({ status: { _tag: "Class", hundreds: 5 } }), ids(5))
      assert.deepStrictEqual(yield* idsOf({ status: { _tag: "Error" } }), ids(7, 5, 3))
    }))

  it.effect("time range: from inclusive, to exclusive", () =>
    Effect.gen(function*() {
      const at = (iso: string) => new Date(iso)
      assert.deepStrictEqual(
        yield* idsOf({ from: at("2026-03-02T00:00:00Z"), to: at("2026-03-04T00:00:00Z") }),
        ids(6, 5, 4, 3)
      )
      assert.deepStrictEqual(yield* idsOf({ from: at("2026-03-04T00:00:00Z") }), ids(8, 7))
      assert.deepStrictEqual(
        yield* idsOf({ from: at("2026-03-02T10:00:00Z"), to: at("2026-03-02T10:00:00.001Z") }),
        ids(5, 4, 3)
      )
      assert.deepStrictEqual(yield* idsOf({ to: at("2026-03-01T09:00:00Z") }), ids(1))
    }))

  it.effect("filters combine", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(
        yield* idsOf({
          tags: { values: ["chat"], mode: "any" },
          status: { _tag: "Exact", status: 200 },
          keyId: "key_b"
        }),
        ids(4)
      )
      assert.deepStrictEqual(yield* idsOf({ model: "echo", status: { _tag: "Error" } }), ids(7))
      assert.deepStrictEqual(yield* idsOf({ sessionId: "cc-1", keyId: "key_a" }), ids(5, 2))
      assert.deepStrictEqual(yield* idsOf({ sessionId: "cc-1", status: { _tag: "Error" } }), ids(5))
      assert.deepStrictEqual(yield* idsOf({ sessionId: "cc-2", from: new Date("2026-03-04T00:00:00Z") }), ids(8))
    }))

  it.effect("another org's rows never appear, in lists, details or analytics", () =>
    Effect.gen(function*() {
      const queries = yield* RequestQueries
      const other = (yield* queries.list(OTHER, {}, { limit: 200 })).data.map((entry) => entry.id)
      assert.deepStrictEqual(other, [`${OTHER}-r3`, `${OTHER}-r2`, `${OTHER}-r1`])
      assert.deepStrictEqual(yield* idsOf({ keyId: "key_a", tags: { values: ["prod"], mode: "any" } }), ids(2, 1))
      // the other org has a session of the same id: each org sees its own requests only
      const otherSession = (yield* queries.list(OTHER, { sessionId: "cc-1" }, { limit: 200 })).data.map((entry) =>
        entry.id
      )
      assert.deepStrictEqual(otherSession, [`${OTHER}-r1`])
      assert.deepStrictEqual((yield* queries.analytics(OTHER, "session", {})).data.map((g) => [g.group, g.requests]), [
        [null, 2],
        ["cc-1", 1]
      ])
      const error = yield* Effect.flip(queries.get(ORG, `${OTHER}-r1`))
      assert.deepStrictEqual(notFoundOf(error), { entity: "request", id: `${OTHER}-r1` })
      const byStatus = yield* queries.analytics(OTHER, "status", {})
      assert.deepStrictEqual(byStatus.data.map((g) => [g.group, g.requests]), [["200", 2], ["500", 1]])
    }))

  it.effect("a row's kind: stored as written, a completion's read back as completion", () =>
    Effect.gen(function*() {
      const store = yield* RequestLogStore
      const org = unique("kind-org")
      yield* store.insert([
        makeRecord({ id: `${org}-count`, orgId: org, kind: "count_tokens" }),
        makeRecord({ id: `${org}-chat`, orgId: org })
      ])
      const queries = yield* RequestQueries
      assert.strictEqual((yield* queries.get(org, `${org}-count`)).kind, "count_tokens")
      assert.strictEqual((yield* queries.get(org, `${org}-chat`)).kind, "completion")
    }))

  it.effect("a row's cost: whole micro-dollars per part, read as dollars that add up; none stays null", () =>
    Effect.gen(function*() {
      const store = yield* RequestLogStore
      const org = unique("cost-org")
      const cost = { input: 1_600, cachedInput: 200, cacheWrite: 7_500, output: 123_456_789, total: 123_466_089 }
      yield* store.insert([
        makeRecord({ id: `${org}-priced`, orgId: org, cost }),
        makeRecord({
          id: `${org}-free`,
          orgId: org,
          cost: { ...cost, input: 0, cachedInput: 0, cacheWrite: 0, output: 0, total: 0 }
        }),
        makeRecord({ id: `${org}-unknown`, orgId: org })
      ])
      const queries = yield* RequestQueries
      const priced = yield* queries.get(org, `${org}-priced`)
      assert.deepStrictEqual(
        [
          priced.cost_usd,
          priced.cost_input_usd,
          priced.cost_cached_input_usd,
          priced.cost_cache_write_usd,
          priced.cost_output_usd
        ],
        [123.466089, 0.0016, 0.0002, 0.0075, 123.456789]
      )
      assert.strictEqual((yield* queries.get(org, `${org}-free`)).cost_usd, 0)
      assert.isNull((yield* queries.get(org, `${org}-unknown`)).cost_usd)
    }))

  it.effect("analytics add the costs exactly and count the answered completions without a price", () =>
    Effect.gen(function*() {
      const store = yield* RequestLogStore
      const org = unique("spend-org")
      const cost = (input: number, output: number) => ({
        input,
        cachedInput: 1,
        cacheWrite: 2,
        output,
        total: input + 3 + output
      })
      yield* store.insert([
        makeRecord({ orgId: org, model: "a", requestedModel: "a", cost: cost(100_000, 50_001) }),
        makeRecord({ orgId: org, model: "a", requestedModel: "a", cost: cost(1, 1) }),
        makeRecord({ orgId: org, model: "b", requestedModel: "b", cost: null }),
        // a failure and a token count bill nothing: no cost, and not unpriced either
        makeRecord({ orgId: org, model: "b", requestedModel: "b", status: 502, cost: null }),
        makeRecord({ orgId: org, model: "b", requestedModel: "b", kind: "count_tokens", cost: null })
      ])
      const queries = yield* RequestQueries
      const totals = (yield* queries.analytics(org, "none", {})).data[0]!
      assert.deepStrictEqual([totals.requests, totals.cost_usd, totals.unpriced_requests], [5, 0.150009, 1])
      const byModel = (yield* queries.analytics(org, "model", {})).data
      assert.deepStrictEqual(
        byModel.map((group) => [group.group, group.cost_usd, group.unpriced_requests]),
        [["b", 0, 1], ["a", 0.150009, 0]]
      )
    }))

  it.effect("spend per UTC day and group, most spent first; as CSV with fields quoted where they must be", () =>
    Effect.gen(function*() {
      const store = yield* RequestLogStore
      const org = unique("export-org")
      const at = (iso: string) => new Date(iso)
      const cost = (micro: number) => ({ input: micro, cachedInput: 0, cacheWrite: 0, output: 0, total: micro })
      yield* store.insert([
        makeRecord({ orgId: org, createdAt: at("2026-04-01T10:00:00Z"), tags: ["a,b"], cost: cost(1_500) }),
        makeRecord({ orgId: org, createdAt: at("2026-04-01T23:59:59Z"), tags: ["plain"], cost: cost(2_000_000) }),
        makeRecord({ orgId: org, createdAt: at("2026-04-02T00:00:00Z"), tags: ["plain"], cost: null })
      ])
      const queries = yield* RequestQueries
      const report = yield* queries.spend(org, "tag", {})
      assert.deepStrictEqual(
        report.data.map((row) => [row.day, row.group, row.requests, row.unpriced_requests, row.cost_usd]),
        [
          ["2026-04-01", "plain", 1, 0, 2],
          ["2026-04-01", "a,b", 1, 0, 0.0015],
          ["2026-04-02", "plain", 1, 1, 0]
        ]
      )
      assert.isFalse(report.has_more)
      const csv = spendCsv(report).split("\r\n")
      assert.strictEqual(csv[0], "day,tag,requests,unpriced_requests,prompt_tokens,completion_tokens,cost_usd")
      assert.match(csv[2]!, /^2026-04-01,"a,b",1,0,\d+,\d+,0\.001500$/)
      assert.strictEqual(csv[4], "")
    }))

  it.effect("compression figures: a saving left out of the row reads 0 under a level, stays null without one", () =>
    Effect.gen(function*() {
      const store = yield* RequestLogStore
      const org = unique("compression-org")
      const row = (id: string, level: "safe" | "shadow" | null, saved: number | null) => ({
        id: `${org}-${id}`,
        kind: "completion" as const,
        cost: null,
        createdAt: new Date("2026-05-01T00:00:00Z"),
        orgId: org,
        keyId: null,
        requestedModel: "local/echo",
        model: "echo",
        provider: "local",
        status: 200,
        errorCode: null,
        stream: false,
        tags: [],
        promptTokens: 1,
        completionTokens: 1,
        cachedTokens: 0,
        reasoningTokens: 0,
        svcTools: [],
        attempts: 1,
        latencyMs: 1,
        ttftMs: null,
        userAgent: null,
        sessionId: null,
        promptText: null,
        completionText: null,
        compressionLevel: level,
        promptTokensSaved: saved,
        promptTokensSavedNet: saved,
        shadowTokensSavedSafe: level === "shadow" ? 40 : null,
        shadowTokensSavedAggressive: level === "shadow" ? 90 : null,
        compressionSavedMicro: null
      })
      yield* store.insert([
        row("none", null, null),
        row("zero", "safe", 0),
        row("some", "safe", 25),
        row("shadow", "shadow", 0)
      ])
      const queries = yield* RequestQueries
      const figures = (
        entry: RequestLogEntry
      ) => [
        entry.compression_level,
        entry.prompt_tokens_saved,
        entry.prompt_tokens_saved_net,
        entry.shadow_tokens_saved_safe
      ]
      assert.deepStrictEqual(figures(yield* queries.get(org, `${org}-none`)), [null, null, null, null])
      assert.deepStrictEqual(figures(yield* queries.get(org, `${org}-zero`)), ["safe", 0, 0, null])
      assert.deepStrictEqual(figures(yield* queries.get(org, `${org}-some`)), ["safe", 25, 25, null])
      assert.deepStrictEqual(figures(yield* queries.get(org, `${org}-shadow`)), ["shadow", 0, 0, 40])
      const [total] = (yield* queries.analytics(org, "none", {})).data
      assert.deepInclude(total, {
        prompt_tokens_saved: 25,
        prompt_tokens_saved_net: 25,
        shadow_tokens_saved_safe: 40,
        shadow_tokens_saved_aggressive: 90
      })
    }))

  it.effect("get returns one request's detail; unknown ids are NotFound", () =>
    Effect.gen(function*() {
      const queries = yield* RequestQueries
      const eight = yield* queries.get(ORG, id(8))
      assert.strictEqual(eight.id, id(8))
      assert.strictEqual(eight.created_at, "2026-03-04T00:00:00.000Z")
      assert.strictEqual(eight.prompt_text, "hello")
      assert.isFalse("prompt_text" in (yield* queries.get(ORG, id(1))))
      assert.deepStrictEqual(notFoundOf(yield* Effect.flip(queries.get(ORG, "missing"))), {
        entity: "request",
        id: "missing"
      })
    }))

  it.effect("analytics by status", () =>
    Effect.gen(function*() {
      const result = yield* (yield* RequestQueries).analytics(ORG, "status", {})
      assert.strictEqual(result.group_by, "status")
      assert.isFalse(result.has_more)
      assertGroups(result.data, [
        // rows 1, 2, 4, 6, 8: latencies 5, 50, 100, 200, 400 → p50 = 100, p95 at 3.8 → 200 + 0.8 × 200
        ["200", 5, 0, 650, 420, 110, 70, 1070, 100, 360],
        ["404", 1, 1, 0, 0, 0, 0, 0, 2, 2],
        ["429", 1, 1, 50, 0, 0, 0, 50, 30, 30],
        ["502", 1, 1, 80, 0, 0, 0, 80, 1000, 1000]
      ])
    }))

  it.effect("analytics by key: busiest first, no key last", () =>
    Effect.gen(function*() {
      assertGroups((yield* (yield* RequestQueries).analytics(ORG, "key", {})).data, [
        // 100, 200, 1000 → p50 = 200, p95 at 1.9 → 200 + 0.9 × 800
        ["key_a", 3, 1, 380, 150, 10, 20, 530, 200, 920],
        // 30, 400 → p50 = 215, p95 = 30 + 0.95 × 370
        ["key_b", 2, 1, 350, 200, 100, 50, 550, 215, 381.5],
        // 2, 50 → p50 = 26, p95 = 2 + 0.95 × 48
        ["key_c", 2, 1, 40, 60, 0, 0, 100, 26, 47.6],
        [null, 1, 0, 10, 10, 0, 0, 20, 5, 5]
      ])
    }))

  it.effect("analytics by session: busiest first, no session after sessions as busy", () =>
    Effect.gen(function*() {
      const result = yield* (yield* RequestQueries).analytics(ORG, "session", {})
      assert.strictEqual(result.group_by, "session")
      assertGroups(result.data, [
        // rows 2, 4, 5: 200, 400, 1000 → p50 = 400, p95 at 1.9 → 400 + 0.9 × 600
        ["cc-1", 3, 1, 580, 300, 100, 70, 880, 400, 940],
        // rows 1, 3, 7: 2, 30, 100 → p50 = 30, p95 at 1.9 → 30 + 0.9 × 70
        [null, 3, 2, 150, 50, 10, 0, 200, 30, 93],
        // rows 6, 8: 5, 50 → p50 = 27.5, p95 = 5 + 0.95 × 45
        ["cc-2", 2, 0, 50, 70, 0, 0, 120, 27.5, 47.75]
      ])
    }))

  it.effect("analytics by model: the model as the client addressed it, answered and failed requests in one group", () =>
    Effect.gen(function*() {
      assertGroups((yield* (yield* RequestQueries).analytics(ORG, "model", {})).data, [
        // 2, 5, 50 → p50 = 5, p95 at 1.9 → 5 + 0.9 × 45
        ["local/echo", 3, 1, 50, 70, 0, 0, 120, 5, 45.5],
        // rows 1, 2 and the failed 5: 100, 200, 1000 → p50 = 200, p95 at 1.9 → 200 + 0.9 × 800
        ["openai/gpt-4o", 3, 1, 380, 150, 10, 20, 530, 200, 920],
        ["anthropic/claude", 2, 1, 350, 200, 100, 50, 550, 215, 381.5]
      ])
    }))

  it.effect("sessions: summed per client session, newest activity first; another org's same id stays apart", () =>
    Effect.gen(function*() {
      const queries = yield* RequestQueries
      const { data } = yield* queries.sessions(ORG, {}, 50)
      assert.deepStrictEqual(data, [
        {
          session_id: "cc-2",
          client: "seed",
          developer: null,
          key_ids: ["key_c"],
          models: ["local/echo"],
          first_request_at: "2026-03-03T23:59:59.999Z",
          last_request_at: "2026-03-04T00:00:00.000Z",
          requests: 2,
          errors: 0,
          prompt_tokens: 50,
          completion_tokens: 70,
          cached_tokens: 0,
          cache_hit_rate: 0,
          cost_usd: 0,
          unpriced_requests: 2,
          prompt_tokens_saved: 0,
          compression_saved_usd: 0,
          svc_tool_runs: 0
        },
        {
          session_id: "cc-1",
          client: "seed",
          developer: null,
          key_ids: ["key_a", "key_b"],
          models: ["anthropic/claude", "openai/gpt-4o"],
          first_request_at: "2026-03-01T09:00:00.000Z",
          last_request_at: "2026-03-02T10:00:00.000Z",
          requests: 3,
          errors: 1,
          prompt_tokens: 580,
          completion_tokens: 300,
          cached_tokens: 100,
          cache_hit_rate: 0.1724,
          cost_usd: 0,
          unpriced_requests: 2,
          prompt_tokens_saved: 0,
          compression_saved_usd: 0,
          svc_tool_runs: 0
        }
      ])
      // filtered like the log: a period, a key
      assert.deepStrictEqual(
        (yield* queries.sessions(ORG, { from: new Date("2026-03-03T00:00:00Z") }, 50)).data.map((s) => s.session_id),
        ["cc-2"]
      )
      assert.deepStrictEqual((yield* queries.sessions(ORG, {}, 1)).data.map((s) => s.session_id), ["cc-2"])
      const detail = yield* queries.session(ORG, "cc-1")
      // oldest first; rows 4 and 5 share a time, in the log's order by id
      assert.deepStrictEqual(detail.timeline.map((entry) => entry.id), [id(2), id(4), id(5)])
      assert.strictEqual(detail.requests, 3)
      assert.strictEqual((yield* queries.session(OTHER, "cc-1")).requests, 1)
      assert.strictEqual((yield* Effect.flip(queries.session(ORG, "nope")))._tag, "AdminError")
    }))

  it.effect("analytics by provider: the configured provider that answered, null where none did; sums kept", () =>
    Effect.gen(function*() {
      const queries = yield* RequestQueries
      const groups = (yield* queries.analytics(ORG, "provider", {})).data
      const [total] = (yield* queries.analytics(ORG, "none", {})).data
      // the seed's answered rows name provider "test"; a row without a model had no provider answer
      assert.deepStrictEqual(groups.map((g) => g.group), ["test", null])
      assert.strictEqual(groups.reduce((n, g) => n + g.requests, 0), total!.requests)
      assert.strictEqual(
        groups.reduce((n, g) => n + Math.round(g.cost_usd * 1e6), 0),
        Math.round(total!.cost_usd * 1e6)
      )
    }))

  it.effect("analytics by tag: a request counts once per tag; untagged requests are the null group", () =>
    Effect.gen(function*() {
      const result = yield* (yield* RequestQueries).analytics(ORG, "tag", {})
      assertGroups(result.data, [
        ["batch", 3, 1, 50, 70, 0, 0, 120, 5, 45.5],
        // rows 1, 4, 8: 50, 100, 400 → p50 = 100, p95 at 1.9 → 100 + 0.9 × 300
        ["chat", 3, 0, 440, 310, 110, 50, 750, 100, 370],
        // rows 1, 2, 6: 5, 100, 200 → p50 = 100, p95 = 100 + 0.9 × 100
        ["prod", 3, 0, 310, 160, 10, 20, 470, 100, 190],
        ["dev", 2, 1, 350, 200, 100, 50, 550, 215, 381.5],
        [null, 1, 1, 80, 0, 0, 0, 80, 1000, 1000]
      ])
      // eight requests, twelve group memberships
      assert.strictEqual(result.data.reduce((n, g) => n + g.requests, 0), 12)
    }))

  it.effect("analytics by day: UTC dates, in order", () =>
    Effect.gen(function*() {
      assertGroups((yield* (yield* RequestQueries).analytics(ORG, "day", {})).data, [
        ["2026-03-01", 2, 0, 300, 150, 10, 20, 450, 150, 195],
        // 30, 400, 1000 → p50 = 400, p95 at 1.9 → 400 + 0.9 × 600
        ["2026-03-02", 3, 2, 430, 200, 100, 50, 630, 400, 940],
        ["2026-03-03", 1, 0, 10, 10, 0, 0, 20, 5, 5],
        ["2026-03-04", 2, 1, 40, 60, 0, 0, 100, 26, 47.6]
      ])
    }))

  it.effect("analytics in total: one null group over every matching request", () =>
    Effect.gen(function*() {
      const queries = yield* RequestQueries
      // latencies 2, 5, 30, 50, 100, 200, 400, 1000 → p50 = 75, p95 at 6.65 → 400 + 0.65 × 600
      assertGroups((yield* queries.analytics(ORG, "none", {})).data, [[null, 8, 3, 780, 420, 110, 70, 1200, 75, 790]])
      assertGroups((yield* queries.analytics(ORG, "none", { keyId: "key_c" })).data, [[
        null,
        2,
        1,
        40,
        60,
        0,
        0,
        100,
        26,
        47.6
      ]])
      assert.deepStrictEqual((yield* queries.analytics(ORG, "none", { keyId: "nobody" })).data, [])
    }))

  it.effect("analytics by hour: UTC hours, in order", () =>
    Effect.gen(function*() {
      const groups = (yield* (yield* RequestQueries).analytics(ORG, "hour", {})).data
      assert.deepStrictEqual(groups.map((g) => [g.group, g.requests, g.errors]), [
        ["2026-03-01T08:00:00Z", 1, 0],
        ["2026-03-01T09:00:00Z", 1, 0],
        ["2026-03-02T10:00:00Z", 3, 2],
        ["2026-03-03T23:00:00Z", 1, 0],
        ["2026-03-04T00:00:00Z", 2, 1]
      ])
    }))

  it.effect("analytics are filtered like the list", () =>
    Effect.gen(function*() {
      const queries = yield* RequestQueries
      // chat-tagged requests (1, 4, 8) all answered 200
      assertGroups((yield* queries.analytics(ORG, "status", { tags: { values: ["chat"], mode: "any" } })).data, [
        ["200", 3, 0, 440, 310, 110, 50, 750, 100, 370]
      ])
      // by tag, of key_b's requests (3, 4): every tag of those requests, not only the filtered ones
      assertGroups((yield* queries.analytics(ORG, "tag", { keyId: "key_b" })).data, [
        ["dev", 2, 1, 350, 200, 100, 50, 550, 215, 381.5],
        ["chat", 1, 0, 300, 200, 100, 50, 500, 400, 400]
      ])
      const march2 = { from: new Date("2026-03-02T00:00:00Z"), to: new Date("2026-03-03T00:00:00Z") }
      assertGroups((yield* queries.analytics(ORG, "day", { ...march2, status: { _tag: "Error" } })).data, [
        ["2026-03-02", 2, 2, 130, 0, 0, 0, 130, 515, 951.5]
      ])
      assert.deepStrictEqual((yield* queries.analytics(ORG, "model", { model: "nope" })).data, [])
      // one session's requests (2, 4, 5) by key: 200, 1000 → p50 = 600, p95 = 200 + 0.95 × 800
      assertGroups((yield* queries.analytics(ORG, "key", { sessionId: "cc-1" })).data, [
        ["key_a", 2, 1, 280, 100, 0, 20, 380, 600, 960],
        ["key_b", 1, 0, 300, 200, 100, 50, 500, 400, 400]
      ])
    }))
})
