/**
 * The writer lets go of a batch once the store has it. A batch held until the next one is taken (a
 * generator's local does that) waits out the next flush interval, is promoted by the collector and
 * cost the gateway a few percent of its throughput before anyone noticed; this test notices.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { RequestLogStore } from "../../src/logs/RequestLogStore.ts"
import { makeWriter, type RequestLogSettings } from "../../src/logs/RequestLogWriter.ts"
import { eventually, makeRecords } from "../utils/RequestLogHarness.ts"

setFlagsFromString("--expose-gc")
const collectGarbage = runInNewContext("gc") as () => void

const settings: RequestLogSettings = {
  enabled: true,
  batchSize: 50,
  flushInterval: Duration.hours(1), // only a full batch is written
  queueLimit: 10_000,
  queueMaxBytes: 64 * 1024 * 1024,
  spillFile: undefined,
  writeTimeout: Duration.seconds(30),
  retryBase: Duration.millis(10),
  retryMax: Duration.millis(40),
  shutdownTimeout: Duration.seconds(3),
  retention: Duration.zero,
  retentionInterval: Duration.hours(1),
  retentionBatch: 1000
}

describe("request log writer memory", () => {
  it.live("a stored batch's rows are unreachable while the writer waits for the next batch", () =>
    Effect.gen(function*() {
      const stored: Array<WeakRef<object>> = []
      const store = RequestLogStore.of({
        insert: (rows) =>
          Effect.sync(() => {
            for (const row of rows) stored.push(new WeakRef(row))
          }),
        deleteBefore: () => Effect.succeed(0),
        batchSize: settings.batchSize
      })
      const writer = yield* makeWriter(settings, store)
      yield* Effect.forEach(makeRecords(50), writer.record, { discard: true })
      // a few rows of the next batch: the writer now waits for it to fill
      yield* Effect.forEach(makeRecords(3), writer.record, { discard: true })
      yield* eventually("the batch stored", Effect.map(writer.stats, (stats) => stats.rowsWritten === 50))
      assert.strictEqual(stored.length, 50)
      yield* eventually(
        "the stored rows collected",
        Effect.sync(() => {
          collectGarbage()
          return stored.every((ref) => ref.deref() === undefined)
        }),
        3
      )
    }).pipe(Effect.scoped))
})
