/**
 * `node bench/logs-bench.ts`: how the request-log queries hold up at 1,000,000 rows in one org, on the
 * PostgreSQL server at DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).
 *
 * Inserts the rows with generate_series in chunks (each under a time limit), ANALYZEs, then times the
 * typical admin queries through `RequestQueries` (median of a few warm runs, client round trip
 * included) and runs each once under EXPLAIN ANALYZE to show which index it used. Prints a table;
 * deletes its rows at the end, also when interrupted. Env: LOGS_BENCH_ROWS (1000000), LOGS_BENCH_RUNS (5).
 *
 * The data: rows every 23 s in runs of three equal timestamps (~88 days back from now), 19 keys plus a
 * rare one (0.1%), 8 models, 1.1% errors (0.01% of them 504s), tags `env-<0..2>` and `team-<0..16>` on every row plus `rare`
 * on 0.01% of them.
 *
 * Reading the scans column: with one org holding nearly every row, the planner rightly walks the key
 * (created_at, id) (`request_log_pkey`; the index on created_at before migration 0021) rather than
 * `request_log_org_time`; in a table shared by many orgs it takes the org's index. A request by id and
 * a retention batch (1,000 of the oldest rows, timed in a transaction rolled back; no plan shown) are
 * timed too. Set LOGS_BENCH_PLANS=1 to print every plan.
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { newTimeOrderedId, randomBase62 } from "../src/Ids.ts"
import { GROUP_BY, type GroupBy } from "../src/kernel/GroupBy.ts"
import { analyticsStatement } from "../src/logs/Analytics.ts"
import type { PageRequest, RequestFilter } from "../src/logs/RequestFilter.ts"
import { requestIdCondition } from "../src/logs/RequestLogSql.ts"
import { RequestLogStore } from "../src/logs/RequestLogStore.ts"
import { listStatement, RequestQueries } from "../src/logs/RequestQueries.ts"
import { postgresLayer } from "../src/store/Database.ts"
import { Migrations } from "../src/store/Migrations.ts"

const URL = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test"
const ROWS = Math.min(Math.max(Number(process.env.LOGS_BENCH_ROWS ?? 1_000_000), 1000), 5_000_000)
const RUNS = Math.min(Math.max(Number(process.env.LOGS_BENCH_RUNS ?? 5), 1), 50)
const CHUNK = 100_000
const ORG_PREFIX = "bench_logs_"
const ORG = `${ORG_PREFIX}${randomBase62(10)}`

const MODELS = [
  ["openai/gpt-4o", "gpt-4o-2024-08-06"],
  ["openai/gpt-4o-mini", "gpt-4o-mini"],
  ["anthropic/claude-sonnet", "claude-sonnet-4"],
  ["anthropic/claude-haiku", "claude-haiku-4"],
  ["google/gemini-pro", "gemini-2.5-pro"],
  ["google/gemini-flash", "gemini-2.5-flash"],
  ["mistral/large", "mistral-large"],
  ["local/echo", "echo"]
] as const

const insertChunk = (sql: SqlClient.SqlClient, start: number, end: number, base: Date) =>
  sql`INSERT INTO request_log (id, created_at, org_id, key_id, requested_model, model, provider, status,
      error_code, stream, tags, prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, attempts,
      latency_ms, ttft_ms, user_agent)
    SELECT ${ORG} || '-' || lpad(i::text, 8, '0'),
      ${base} - (i / 3) * interval '23 seconds',
      ${ORG},
      CASE WHEN i % 1000 = 0 THEN 'key_rare' ELSE 'key_' || (i % 19) END,
      (${MODELS.map(([requested]) => requested)}::text[])[1 + i % 8],
      CASE WHEN i % 200 = 0 THEN NULL ELSE (${MODELS.map(([, model]) => model)}::text[])[1 + i % 8] END,
      'bench',
      CASE WHEN i % 200 = 0 THEN 502 WHEN i % 200 = 1 THEN 429 WHEN i % 1000 = 2 THEN 400
        WHEN i % 10000 = 3 THEN 504 ELSE 200 END,
      CASE WHEN i % 200 < 2 OR i % 1000 = 2 OR i % 10000 = 3 THEN 'bench_error' END,
      i % 2 = 0,
      ARRAY['env-' || (i % 3), 'team-' || (i % 17)] || CASE WHEN i % 10000 = 7 THEN ARRAY['rare'] ELSE '{}'::text[] END,
      100 + (i * 7) % 900,
      20 + (i * 13) % 400,
      CASE WHEN i % 5 = 0 THEN 50 ELSE 0 END,
      CASE WHEN i % 7 = 0 THEN 64 ELSE 0 END,
      1,
      40 + (i * 37) % 1500 + (i % 97) * 0.25,
      CASE WHEN i % 2 = 0 THEN 30 + (i * 11) % 300 END,
      'logs-bench'
    FROM generate_series(${start}::int, ${end}::int) AS i`

interface Case {
  readonly name: string
  /** What EXPLAIN ANALYZE runs; none for a case that changes rows (timed in a transaction rolled back). */
  readonly statement: Statement.Statement<object> | undefined
  readonly run: Effect.Effect<unknown, unknown>
}

/** Rolls a timed change back: the rows stay for the cases after it. */
class Undo {}

/** The indexes (or seq scans) an EXPLAIN ANALYZE plan used, and its execution time. */
const planSummary = (lines: ReadonlyArray<string>) => {
  const scans = new Set<string>()
  for (const line of lines) {
    const index = /(Index Only Scan|Index Scan|Bitmap Index Scan)(?: Backward)? (?:using|on) (\w+)/.exec(line)
    if (index !== null) scans.add(index[2]!)
    if (/Seq Scan on request_log/.test(line)) scans.add("SEQ SCAN")
  }
  const time = lines.map((line) => /Execution Time: ([\d.]+) ms/.exec(line)).find((m) => m !== null)
  return { scans: [...scans].join(", "), executionMs: time === undefined ? Number.NaN : Number(time![1]) }
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

const pad = (text: string, width: number) => (text.length >= width ? text : text + " ".repeat(width - text.length))

const program = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const queries = yield* RequestQueries
  const store = yield* RequestLogStore
  // leftovers of an earlier run that was killed before its cleanup
  yield* sql`DELETE FROM request_log WHERE starts_with(org_id, ${ORG_PREFIX}) AND org_id <> ${ORG}`

  console.log(`inserting ${ROWS.toLocaleString("en")} rows into org ${ORG} at ${URL.replace(/\/\/[^@]*@/, "//")}`)
  const base = new Date()
  const insertStart = performance.now()
  for (let start = 0; start < ROWS; start += CHUNK) {
    yield* insertChunk(sql, start, Math.min(start + CHUNK, ROWS) - 1, base).pipe(Effect.timeout("300 seconds"))
  }
  const insertMs = performance.now() - insertStart
  yield* sql`ANALYZE request_log`
  console.log(
    `inserted in ${(insertMs / 1000).toFixed(1)} s (${
      Math.round(ROWS / (insertMs / 1000)).toLocaleString("en")
    } rows/s)`
  )

  // a cursor half-way down the log, found without paging (setup only, not timed)
  const [deep] = yield* sql<{ readonly t: string; readonly id: string }>`SELECT
      to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS t, id
    FROM request_log WHERE org_id = ${ORG} ORDER BY created_at DESC, id DESC OFFSET ${Math.floor(ROWS / 2)} LIMIT 1`
  const week: RequestFilter = { from: new Date(base.getTime() - 7 * 86_400_000) }
  const first: PageRequest = { limit: 50 }

  const list = (name: string, filter: RequestFilter, page: PageRequest = first): Case => ({
    name,
    statement: listStatement(sql, ORG, { filter, page }),
    run: queries.list(ORG, filter, page)
  })
  // one row with an id as the gateway mints it, at the newest time (the bench's own ids have an older shape)
  const minted = newTimeOrderedId("req", base.getTime())
  yield* sql`INSERT INTO request_log (id, created_at, org_id, status, stream, latency_ms)
    VALUES (${minted}, ${base}, ${ORG}, 200, false, 1)`
  const byId = (name: string, id: string): Case => ({
    name,
    statement: sql`SELECT id FROM request_log WHERE ${requestIdCondition(sql, id)} AND org_id = ${ORG}`,
    run: queries.get(ORG, id)
  })
  // a retention batch of the oldest rows (the bench's go 88 days back), undone after each run
  const retention: Case = {
    name: "retention batch (1,000 rows)",
    statement: undefined,
    run: sql.withTransaction(
      Effect.flatMap(
        store.deleteBefore(new Date(base.getTime() - 80 * 86_400_000), 1000),
        () => Effect.fail(new Undo())
      )
    ).pipe(Effect.catchIf((error) => error instanceof Undo, () => Effect.void))
  }
  const analytics = (groupBy: GroupBy, filter: RequestFilter, span: string): Case => ({
    name: `analytics ${groupBy} (${span})`,
    statement: analyticsStatement(sql, ORG, { groupBy, filter }),
    run: queries.analytics(ORG, groupBy, filter)
  })
  const cases: ReadonlyArray<Case> = [
    list("first page (50)", {}),
    list("first page (200)", {}, { limit: 200 }),
    list("tag any team-3 (6%)", { tags: { values: ["team-3"], mode: "any" } }),
    list("tag all env-1 + team-4 (2%)", { tags: { values: ["env-1", "team-4"], mode: "all" } }),
    list("tag any rare (0.01%)", { tags: { values: ["rare"], mode: "any" } }),
    list("tag any unknown (0%)", { tags: { values: ["no-such-tag"], mode: "any" } }),
    list(`deep page via cursor (row ${Math.floor(ROWS / 2).toLocaleString("en")})`, {}, {
      limit: 50,
      cursor: { createdAt: deep!.t, id: deep!.id }
    }),
    list("key_id key_3 (5%)", { keyId: "key_3" }),
    list("key_id key_rare (0.1%)", { keyId: "key_rare" }),
    list("key_id unknown (0%)", { keyId: "key_none" }),
    list("model openai/gpt-4o (12%)", { model: "openai/gpt-4o" }),
    list("model unknown (0%)", { model: "no/such-model" }),
    list("status error (1.1%)", { status: { _tag: "Error" } }),
    list("status 5xx (0.5%)", { status: { _tag: "Class", hundreds: 5 } }),
    list("status 504 (0.01%)", { status: { _tag: "Exact", status: 504 } }),
    list("last 7 days, status error", { ...week, status: { _tag: "Error" } }),
    byId("request by a minted id", minted),
    byId("request by an id of another shape", `${ORG}-${String(Math.floor(ROWS / 2)).padStart(8, "0")}`),
    retention,
    ...GROUP_BY.map((groupBy) => analytics(groupBy, week, "7 days")),
    ...GROUP_BY.map((groupBy) => analytics(groupBy, {}, "all"))
  ]

  const results: Array<{ name: string; ms: number; explainMs: number; scans: string }> = []
  for (const c of cases) {
    yield* c.run // warm-up
    const times: Array<number> = []
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now()
      yield* c.run.pipe(Effect.timeout("120 seconds"))
      times.push(performance.now() - t0)
    }
    if (c.statement === undefined) {
      results.push({ name: c.name, ms: median(times), explainMs: Number.NaN, scans: "" })
      continue
    }
    const plan = yield* sql<{ readonly "QUERY PLAN": string }>`EXPLAIN (ANALYZE, BUFFERS) ${c.statement}`
    const summary = planSummary(plan.map((row) => row["QUERY PLAN"]))
    results.push({ name: c.name, ms: median(times), explainMs: summary.executionMs, scans: summary.scans })
    if (process.env.LOGS_BENCH_PLANS === "1") console.log(`\n${c.name}\n${plan.map((r) => r["QUERY PLAN"]).join("\n")}`)
  }

  console.log(
    `\n${
      ROWS.toLocaleString("en")
    } rows in one org; median of ${RUNS} runs (client round trip), EXPLAIN ANALYZE execution time, scans used\n`
  )
  console.log(`| ${pad("query", 36)} | ${pad("ms", 8)} | ${pad("explain ms", 10)} | scans |`)
  console.log(`| ${"-".repeat(36)} | ${"-".repeat(8)} | ${"-".repeat(10)} | ----- |`)
  for (const r of results) {
    const explain = Number.isNaN(r.explainMs) ? "-" : r.explainMs.toFixed(1)
    console.log(`| ${pad(r.name, 36)} | ${pad(r.ms.toFixed(1), 8)} | ${pad(explain, 10)} | ${r.scans || "-"} |`)
  }
})

const cleanup = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t0 = performance.now()
  yield* sql`DELETE FROM request_log WHERE org_id = ${ORG}`
  // give the shared database its space back rather than leave a million dead rows to autovacuum
  yield* sql`VACUUM ANALYZE request_log`
  console.log(`\ndeleted the bench rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
}).pipe(Effect.timeout("300 seconds"), Effect.orDie)

const StoreLive = Layer.mergeAll(RequestQueries.layer, RequestLogStore.layer).pipe(
  Layer.provideMerge(Migrations.pipe(Layer.provide(NodeServices.layer))),
  Layer.provideMerge(postgresLayer(Redacted.make(URL)))
)

NodeRuntime.runMain(
  program.pipe(Effect.ensuring(cleanup), Effect.timeout("30 minutes"), Effect.provide(StoreLive))
)
