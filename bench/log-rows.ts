/**
 * `node bench/log-rows.ts [variant ...]`: PostgreSQL's CPU per request-log row, through the gateway's own
 * store (`RequestLogStore`, batches as the writer sends them), in a fresh database per variant.
 * A variant changes the table first, to price each index: `full` (as migrated), `two-keys` (the key on
 * id and the index on created_at that migration 0021 made one), `org-with-id` (the org index with the id
 * that migration 0022 left out), `no-org`, `no-key`, `no-indexes`,
 * `c-collation` (ids and org ids under COLLATE "C"). Rows carry ids as the gateway mints them. The CPU is every PostgreSQL
 * process's (/proc), so what the server spends on a row is measured apart from the machine's noise that
 * moves RPS; this process's own CPU a row (encoding, sending, the collector) is printed beside it. With
 * `BENCH_DATABASE_URL=off`, the embedded store (SQLite, in this process, on the thread that serves
 * requests in the gateway): this process's CPU a row, `full` only. Env: LOG_ROWS_SIZE (the store's
 * batch size, as the writer sends them: 5,000 on PostgreSQL, 2,000 on SQLite), LOG_ROWS_BATCHES (100,000
 * rows' worth), LOG_ROWS_RATE (5,000 rows a second of the rows' times), BENCH_DATABASE_URL.
 */
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { newTimeOrderedId } from "../src/Ids.ts"
import { RequestLogStore } from "../src/logs/RequestLogStore.ts"
import type { RequestRecord } from "../src/logs/RequestRecord.ts"
import { postgresLayer, sqliteLayer } from "../src/store/Database.ts"
import { Migrations } from "../src/store/Migrations.ts"
import { freshDatabase } from "./database.ts"
import { envInt } from "./entries.ts"
import { postgresNs } from "./proc.ts"

const url = process.env["BENCH_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"

const CHANGES: Record<string, ReadonlyArray<string>> = {
  full: [],
  // the keys before migration 0021: a key on id and an index on created_at
  "two-keys": [
    "ALTER TABLE request_log DROP CONSTRAINT request_log_pkey",
    "ALTER TABLE request_log ADD PRIMARY KEY (id)",
    "CREATE INDEX request_log_time ON request_log (created_at)",
    "DROP INDEX request_log_legacy_id"
  ],
  // the org index before migration 0022, with the id
  "org-with-id": [
    "DROP INDEX request_log_org_time",
    "CREATE INDEX request_log_org_time ON request_log (org_id, created_at, id)"
  ],
  "no-org": ["DROP INDEX request_log_org_time"],
  "no-key": ["ALTER TABLE request_log DROP CONSTRAINT request_log_pkey"],
  "no-indexes": [
    "DROP INDEX request_log_org_time",
    "ALTER TABLE request_log DROP CONSTRAINT request_log_pkey"
  ],
  "c-collation": [
    `ALTER TABLE request_log ALTER COLUMN id TYPE text COLLATE "C", ALTER COLUMN org_id TYPE text COLLATE "C"`
  ]
}

/**
 * Rows come `LOG_ROWS_RATE` (5,000) a second, as a gateway under the bench's load makes them: made all at
 * once, a batch's rows shared one millisecond, so every comparison in the key and the org index went on
 * to the ids, which under load tell apart only the handful of rows of one millisecond.
 */
let clock = Date.now()
const rate = envInt("LOG_ROWS_RATE", 5000)

/** A row as the bench's whole answers leave it: no tags, no session, no price, compression at `safe`; its latency its own. */
const row = (): RequestRecord => {
  clock += 1000 / rate
  const at = Math.floor(clock)
  return {
    id: newTimeOrderedId("req", at),
    kind: "completion",
    createdAt: new Date(at),
    orgId: "org_01JBENCHLOGROWS0000000000",
    keyId: "key_01JBENCHLOGROWS0000000000",
    requestedModel: "bench/fake-model",
    model: "fake-model",
    provider: "bench",
    status: 200,
    errorCode: null,
    stream: false,
    tags: [],
    promptTokens: 12,
    completionTokens: 34,
    cachedTokens: 0,
    reasoningTokens: 0,
    svcTools: [],
    attempts: 1,
    latencyMs: 1 + Math.random(),
    ttftMs: null,
    compressionLevel: "safe",
    promptTokensSaved: 0,
    promptTokensSavedNet: 0,
    shadowTokensSavedSafe: null,
    shadowTokensSavedAggressive: null,
    compressionSavedMicro: null,
    userAgent: "bench-load/1.0",
    cost: null,
    sessionId: null,
    promptText: null,
    completionText: null
  }
}

/** On-CPU nanoseconds of this process so far (user and system). */
const ownNs = (): number => {
  const { system, user } = process.cpuUsage()
  return (user + system) * 1e3
}

const measure = (changes: ReadonlyArray<string>, cpuNs: () => number = ownNs) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const store = yield* RequestLogStore
    for (const change of changes) yield* sql.unsafe(change)
    const size = envInt("LOG_ROWS_SIZE", store.batchSize)
    const count = envInt("LOG_ROWS_BATCHES", Math.ceil(100_000 / size))
    // warm: the statement prepared, the first pages of each index in place
    for (let i = 0; i < Math.ceil(10_000 / size); i++) yield* store.insert(Array.from({ length: size }, row))
    const batches = Array.from({ length: count }, () => Array.from({ length: size }, row))
    const before = cpuNs()
    const ownBefore = ownNs()
    for (const batch of batches) yield* store.insert(batch)
    const rows = count * size
    return { server: (cpuNs() - before) / 1e3 / rows, own: (ownNs() - ownBefore) / 1e3 / rows }
  })

const store = <E>(layer: Layer.Layer<SqlClient.SqlClient, E>) =>
  RequestLogStore.layer.pipe(Layer.provideMerge(Migrations), Layer.provideMerge(layer))

const main = async (): Promise<void> => {
  if (url === "off") {
    const dir = mkdtempSync(join(tmpdir(), "svc-gateway-log-rows-"))
    try {
      const { own } = await Effect.runPromise(
        measure([]).pipe(Effect.provide(store(sqliteLayer(dir))), Effect.scoped)
      )
      console.log(`embedded     ${own.toFixed(2).padStart(6)} µs of the gateway's CPU a row (SQLite)`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    return
  }
  const variants = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(CHANGES)
  for (const variant of variants) {
    const changes = CHANGES[variant]
    if (changes === undefined) throw new Error(`unknown variant ${variant}; one of ${Object.keys(CHANGES).join(", ")}`)
    const database = await freshDatabase(url)
    try {
      const { own, server } = await Effect.runPromise(
        measure(changes, postgresNs).pipe(
          Effect.provide(store(postgresLayer(Redacted.make(database.url)))),
          Effect.scoped
        )
      )
      console.log(
        `${variant.padEnd(12)} ${server.toFixed(2).padStart(6)} µs of PostgreSQL CPU a row, ${
          own.toFixed(2).padStart(6)
        } µs of the gateway's`
      )
    } finally {
      await database.drop()
    }
  }
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error)
  process.exit(1)
})
