/**
 * Nothing lost at shutdown: a bounded load on loopback runs against the gateway process, the process
 * gets SIGTERM in the middle of it, and afterwards the store holds a row for every request that got a
 * complete answer. The rows are written in batches off the request path, so this is the queue being
 * flushed after the server drained and before the store closed.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { rmSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { GatewayConfig } from "../../src/Config.ts"
import { DatabaseLive } from "../../src/store/Database.ts"
import { completion, type FakeUpstream, reply, startFakeUpstream } from "../utils/FakeUpstream.ts"
import { startGatewayProcess, within } from "../utils/GatewayProcess.ts"
import { postChat } from "../utils/TestGateway.ts"

const CONCURRENCY = 8
const LOAD_MS = 1_500
const SIGTERM_AT_MS = 700

describe("the request log at shutdown", () => {
  let upstream: FakeUpstream
  const dataDirs: Array<string> = []

  beforeAll(async () => {
    upstream = await startFakeUpstream(() => reply.json(completion({ content: "ok" })))
  })
  afterAll(async () => {
    await upstream.close()
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
  })

  it("every request answered before SIGTERM has its row once the process is gone", async () => {
    // a long flush interval: rows are still queued when the signal comes, so the flush at exit matters
    const gateway = await startGatewayProcess(upstream, { GATEWAY_LOG_FLUSH_INTERVAL: "10 seconds" })
    dataDirs.push(gateway.dataDir)
    const completed: Array<string> = []
    let failed = 0
    const started = Date.now()
    const worker = async () => {
      while (Date.now() - started < LOAD_MS) {
        try {
          const response = await postChat(gateway.url, {
            model: "fake/some-model",
            messages: [{ role: "user", content: "hi" }]
          }, { key: gateway.key, headers: { connection: "close" } })
          const body = await response.text()
          const id = response.headers.get("x-svc-request-id")
          if (response.status === 200 && body.includes("\"chat.completion\"") && id !== null) completed.push(id)
          else failed++
        } catch {
          // refused after SIGTERM: not answered, so no row is owed
          failed++
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
      }
    }
    const load = Promise.all(Array.from({ length: CONCURRENCY }, worker))
    await new Promise((resolve) => setTimeout(resolve, SIGTERM_AT_MS))
    gateway.proc.kill("SIGTERM")
    await load
    const exit = await within(20_000, `process exit:\n${gateway.output()}`, gateway.exited)
    expect(exit.signal, gateway.output()).toBeNull()
    expect(completed.length, `answered before SIGTERM (failed after: ${failed})`).toBeGreaterThan(10)

    const settings = process.env.DATABASE_URL
      ? { DATABASE_URL: process.env.DATABASE_URL }
      : { GATEWAY_DATA_DIR: gateway.dataDir }
    const stored = await Effect.runPromise(
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ readonly id: string }>`SELECT id FROM request_log WHERE id IN ${sql.in(completed)}`
        return rows.map((row) => row.id)
      }).pipe(Effect.provide(DatabaseLive), Effect.provide(GatewayConfig.layerFrom(settings)))
    )
    expect(new Set(stored).size).toBe(stored.length)
    expect([...stored].sort()).toEqual([...completed].sort())
  })
})
