/**
 * The request log's settings: the documented defaults, the spill file in the data folder (none for an
 * in-memory store), overrides, and invalid values refused at startup.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Layer, Option } from "effect"
import { join } from "node:path"
import { GatewayConfig } from "../../src/Config.ts"
import { loadSettings, SPILL_FILE_NAME } from "../../src/logs/RequestLog.ts"

const settingsFrom = (env: Record<string, string>) =>
  loadSettings.pipe(
    Effect.provide(Layer.mergeAll(
      GatewayConfig.layerFrom(env),
      ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))
    ))
  )

describe("RequestLog settings", () => {
  it.effect("defaults", () =>
    Effect.gen(function*() {
      const settings = yield* settingsFrom({ GATEWAY_DATA_DIR: "/var/lib/svc-gateway" })
      assert.deepStrictEqual(
        {
          ...settings,
          flushInterval: Duration.toMillis(settings.flushInterval),
          writeTimeout: Duration.toMillis(settings.writeTimeout),
          retryBase: Duration.toMillis(settings.retryBase),
          retryMax: Duration.toMillis(settings.retryMax),
          shutdownTimeout: Duration.toMillis(settings.shutdownTimeout),
          retention: Duration.toMillis(settings.retention),
          retentionInterval: Duration.toMillis(settings.retentionInterval)
        },
        {
          enabled: true,
          batchSize: Option.none(),
          flushInterval: 200,
          queueLimit: 50_000,
          queueMaxBytes: 64 * 1024 * 1024,
          spillFile: join("/var/lib/svc-gateway", SPILL_FILE_NAME),
          writeTimeout: 30_000,
          retryBase: 100,
          retryMax: 10_000,
          shutdownTimeout: 5_000,
          retention: 30 * 24 * 60 * 60 * 1000,
          retentionInterval: 5 * 60 * 1000,
          retentionBatch: 1000
        }
      )
    }))

  it.effect("an in-memory store has no spill file unless one is named; overrides apply", () =>
    Effect.gen(function*() {
      assert.isUndefined((yield* settingsFrom({ GATEWAY_DATA_DIR: "memory://" })).spillFile)
      const settings = yield* settingsFrom({
        GATEWAY_DATA_DIR: "memory://",
        GATEWAY_REQUEST_LOG: "off",
        GATEWAY_LOG_SPILL_FILE: "/tmp/spill.ndjson",
        GATEWAY_LOG_BATCH_SIZE: "50",
        GATEWAY_LOG_FLUSH_INTERVAL: "1 second",
        GATEWAY_LOG_RETENTION: "7 days"
      })
      assert.deepStrictEqual(
        [settings.enabled, settings.spillFile, settings.batchSize, Duration.toMillis(settings.flushInterval)],
        [false, "/tmp/spill.ndjson", Option.some(50), 1000]
      )
      assert.strictEqual(Duration.toMillis(settings.retention), 7 * 24 * 60 * 60 * 1000)
    }))

  it.effect("an invalid value is refused at startup", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(settingsFrom({ GATEWAY_REQUEST_LOG: "maybe" }))
      assert.include(String(error), "GATEWAY_REQUEST_LOG")
      const batch = yield* Effect.flip(settingsFrom({ GATEWAY_LOG_BATCH_SIZE: "lots" }))
      assert.include(String(batch), "GATEWAY_LOG_BATCH_SIZE")
    }))
})
