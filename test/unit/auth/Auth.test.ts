/**
 * Auth with a fake ApiKeys layer: every outcome of a bearer header, `markUsed` on success only, and the
 * lookup cache (hit within the TTL, `forget`, expiry after the TTL). `bearerToken` as a table. Time is
 * the test clock's, set to `NOW` first: the cache and expiry read Effect's `Clock`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlError } from "effect/sql"
import { TestClock } from "effect/testing"
import { Auth, bearerToken } from "../../../src/auth/Auth.ts"
import { GatewayConfig } from "../../../src/Config.ts"
import { NO_LIMITS } from "../../../src/kernel/Limits.ts"
import { ApiKeys, type KeyRecord } from "../../../src/keys/ApiKeys.ts"
import { hashSecret } from "../../../src/keys/ApiKeySecret.ts"
import { ChangeFeed } from "../../../src/store/ChangeFeed.ts"
import { makeTestLayer } from "../../utils/TestLayer.ts"

const record = (id: string, overrides: Partial<KeyRecord> = {}): KeyRecord => ({
  limits: { key: NO_LIMITS, org: NO_LIMITS },
  alertThresholds: null,
  logContent: false,
  compression: null,
  id,
  orgId: "org_1",
  name: `name of ${id}`,
  expiresAt: null,
  revokedAt: null,
  allowedSvcToolIds: null,
  ...overrides
})

/** The test clock's time when each test starts. */
const NOW = Date.parse("2026-06-01T00:00:00.000Z")

const SECRETS = {
  valid: "sk-svc-valid0000000000000000000000000000000000",
  other: "sk-svc-other0000000000000000000000000000000000",
  revoked: "sk-svc-revoked00000000000000000000000000000000",
  expired: "sk-svc-expired00000000000000000000000000000000",
  unknown: "sk-svc-unknown00000000000000000000000000000000"
}

/** A store of keys by secret hash that counts lookups and records `markUsed`. */
const makeFakeKeys = () => {
  const byHash = new Map<string, KeyRecord>([
    [hashSecret(SECRETS.valid), record("key_valid", { allowedSvcToolIds: ["web"] })],
    [hashSecret(SECRETS.other), record("key_other", { expiresAt: new Date(NOW + 3_600_000) })],
    [hashSecret(SECRETS.revoked), record("key_revoked", { revokedAt: new Date("2026-01-01T00:00:00Z") })],
    [hashSecret(SECRETS.expired), record("key_expired", { expiresAt: new Date("2025-02-03T04:05:06.000Z") })]
  ])
  const lookups: Array<string> = []
  const used: Array<string> = []
  const layer = makeTestLayer(ApiKeys)({
    findByHash: (hash) =>
      Effect.sync(() => {
        lookups.push(hash)
        return byHash.get(hash)
      }),
    markUsed: (keyId) => {
      used.push(keyId)
    }
  })
  return { byHash, lookups, used, layer }
}

/** Runs `body` with an Auth over a fresh fake store, caching for `ttl`. */
const withAuth = <A, E>(
  ttl: string,
  body: (auth: Auth["Service"], fake: ReturnType<typeof makeFakeKeys>) => Effect.Effect<A, E>
) => {
  const fake = makeFakeKeys()
  const layer = Auth.layer.pipe(
    Layer.provide(fake.layer),
    Layer.provide(GatewayConfig.layerFrom({ GATEWAY_KEY_CACHE_TTL: ttl })),
    Layer.provide(ChangeFeed.layerLocal)
  )
  return Effect.andThen(
    TestClock.setTime(NOW),
    Effect.gen(function*() {
      return yield* body(yield* Auth, fake)
    }).pipe(Effect.provide(layer))
  )
}

/** The failure reason's tag, or "ok". */
const outcome = (auth: Auth["Service"], header: string | undefined) =>
  auth.authenticate(header).pipe(
    Effect.map(() => "ok"),
    Effect.catchTag("AuthError", (error) => Effect.succeed(error.reason._tag))
  )

describe("Auth.authenticate", () => {
  it.effect("a valid key yields its caller and is marked used", () =>
    withAuth("5 seconds", (auth, fake) =>
      Effect.gen(function*() {
        const caller = yield* auth.authenticate(`Bearer ${SECRETS.valid}`)
        assert.deepStrictEqual(caller, {
          logContent: false,
          compression: null,
          keyId: "key_valid",
          keyName: "name of key_valid",
          orgId: "org_1",
          allowedSvcToolIds: ["web"]
        })
        assert.deepStrictEqual(fake.lookups, [hashSecret(SECRETS.valid)])
        assert.deepStrictEqual(fake.used, ["key_valid"])
        assert.strictEqual(yield* outcome(auth, `Bearer ${SECRETS.other}`), "ok", "a key expiring later is valid")
      })))

  it.effect("each failure has its reason, and nothing is marked used", () =>
    withAuth("5 seconds", (auth, fake) =>
      Effect.gen(function*() {
        const cases: ReadonlyArray<readonly [string | undefined, string]> = [
          [undefined, "MissingKey"],
          ["", "MissingKey"],
          [SECRETS.valid, "MissingKey"],
          [`Basic ${SECRETS.valid}`, "MissingKey"],
          ["Bearer", "MissingKey"],
          [`Bearer ${SECRETS.valid} trailing`, "MissingKey"],
          [`Bearer ${SECRETS.unknown}`, "InvalidKey"],
          [`Bearer ${SECRETS.valid}x`, "InvalidKey"],
          [`Bearer ${SECRETS.revoked}`, "RevokedKey"],
          [`Bearer ${SECRETS.expired}`, "ExpiredKey"]
        ]
        for (const [header, expected] of cases) {
          assert.strictEqual(yield* outcome(auth, header), expected, String(header))
        }
        assert.deepStrictEqual(fake.used, [])
      })))

  it.effect("missing and malformed headers never reach the store", () =>
    withAuth("5 seconds", (auth, fake) =>
      Effect.gen(function*() {
        yield* outcome(auth, undefined)
        yield* outcome(auth, `Token ${SECRETS.valid}`)
        assert.deepStrictEqual(fake.lookups, [])
      })))

  it.effect("an expired key says when it expired", () =>
    withAuth("5 seconds", (auth) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(auth.authenticate(`Bearer ${SECRETS.expired}`))
        assert.strictEqual(error._tag, "AuthError")
        if (error._tag !== "AuthError" || error.reason._tag !== "ExpiredKey") return assert.fail(String(error))
        assert.strictEqual(error.reason.expiredAt, "2025-02-03T04:05:06.000Z")
      })))
})

describe("Auth cache", () => {
  it.effect("a second authenticate within the TTL does not hit the store, unknown keys included", () =>
    withAuth("10 seconds", (auth, fake) =>
      Effect.gen(function*() {
        yield* auth.authenticate(`Bearer ${SECRETS.valid}`)
        yield* auth.authenticate(`Bearer ${SECRETS.valid}`)
        yield* outcome(auth, `Bearer ${SECRETS.unknown}`)
        yield* outcome(auth, `Bearer ${SECRETS.unknown}`)
        assert.deepStrictEqual(fake.lookups, [hashSecret(SECRETS.valid), hashSecret(SECRETS.unknown)])
        assert.deepStrictEqual(fake.used, ["key_valid", "key_valid"], "every success is marked, cached or not")
      })))

  it.effect("after forget(keyId) the next authenticate reads the store, and sees a revocation", () =>
    withAuth("10 seconds", (auth, fake) =>
      Effect.gen(function*() {
        yield* auth.authenticate(`Bearer ${SECRETS.valid}`)
        yield* auth.authenticate(`Bearer ${SECRETS.other}`)
        fake.byHash.set(hashSecret(SECRETS.valid), record("key_valid", { revokedAt: new Date() }))
        assert.strictEqual(yield* outcome(auth, `Bearer ${SECRETS.valid}`), "ok", "still cached")
        auth.forget("key_valid")
        assert.strictEqual(yield* outcome(auth, `Bearer ${SECRETS.valid}`), "RevokedKey")
        assert.strictEqual(yield* outcome(auth, `Bearer ${SECRETS.other}`), "ok")
        assert.deepStrictEqual(fake.lookups, [
          hashSecret(SECRETS.valid),
          hashSecret(SECRETS.other),
          hashSecret(SECRETS.valid)
        ], "forget drops only that key")
      })))

  it.effect("after the TTL the store is read again", () =>
    withAuth("150 millis", (auth, fake) =>
      Effect.gen(function*() {
        yield* auth.authenticate(`Bearer ${SECRETS.valid}`)
        yield* auth.authenticate(`Bearer ${SECRETS.valid}`)
        assert.strictEqual(fake.lookups.length, 1)
        yield* TestClock.adjust("200 millis")
        yield* auth.authenticate(`Bearer ${SECRETS.valid}`)
        assert.strictEqual(fake.lookups.length, 2)
        yield* auth.authenticate(`Bearer ${SECRETS.valid}`)
        assert.strictEqual(fake.lookups.length, 2)
      })))

  it.effect("expiry is checked on every call, cached or not", () =>
    withAuth("10 seconds", (auth, fake) =>
      Effect.gen(function*() {
        const secret = "sk-svc-soon0000000000000000000000000000000000"
        fake.byHash.set(hashSecret(secret), record("key_soon", { expiresAt: new Date(NOW + 250) }))
        assert.strictEqual(yield* outcome(auth, `Bearer ${secret}`), "ok")
        yield* TestClock.adjust("300 millis")
        assert.strictEqual(yield* outcome(auth, `Bearer ${secret}`), "ExpiredKey")
        assert.strictEqual(fake.lookups.length, 1)
      })))
})

describe("Auth and the change feed", () => {
  it.effect("a key: or org: change drops the cached keys it names, so the next request reads the store", () => {
    const fake = makeFakeKeys()
    const layer = Auth.layer.pipe(
      Layer.provideMerge(fake.layer),
      Layer.provideMerge(GatewayConfig.layerFrom({ GATEWAY_KEY_CACHE_TTL: "1 hour" })),
      Layer.provideMerge(ChangeFeed.layerLocal)
    )
    return Effect.gen(function*() {
      const auth = yield* Auth
      const feed = yield* ChangeFeed
      yield* auth.authenticate(`Bearer ${SECRETS.valid}`)
      yield* auth.authenticate(`Bearer ${SECRETS.other}`)
      assert.strictEqual(fake.lookups.length, 2)
      fake.byHash.set(hashSecret(SECRETS.valid), record("key_valid", { revokedAt: new Date() }))
      yield* feed.publish("key:key_valid")
      assert.strictEqual(yield* outcome(auth, `Bearer ${SECRETS.valid}`), "RevokedKey")
      assert.strictEqual(fake.lookups.length, 3)
      // the other key of the same org stays cached until its org changes
      yield* auth.authenticate(`Bearer ${SECRETS.other}`)
      assert.strictEqual(fake.lookups.length, 3)
      yield* feed.publish("org:org_1")
      yield* auth.authenticate(`Bearer ${SECRETS.other}`)
      assert.strictEqual(fake.lookups.length, 4)
    }).pipe(Effect.provide(layer))
  })
})

describe("Auth in a store outage", () => {
  /** A fake store that can be taken down: lookups then fail as PostgreSQL's refused connection does. */
  const outage = (env: Record<string, string>) => {
    const fake = makeFakeKeys()
    let down = false
    const layer = Auth.layer.pipe(
      Layer.provide(
        makeTestLayer(ApiKeys)({
          findByHash: (hash) =>
            Effect.suspend(() => {
              fake.lookups.push(hash)
              return down
                ? Effect.fail(
                  new SqlError.SqlError({
                    reason: new SqlError.ConnectionError({
                      cause: new Error("ECONNREFUSED"),
                      message: "connection refused"
                    })
                  })
                )
                : Effect.succeed(fake.byHash.get(hash))
            }),
          markUsed: () => {}
        })
      ),
      Layer.provide(
        GatewayConfig.layerFrom({ GATEWAY_KEY_CACHE_TTL: "20 millis", GATEWAY_KEY_STALE_MAX: "300 millis", ...env })
      ),
      Layer.provide(ChangeFeed.layerLocal)
    )
    return { fake, layer, takeDown: () => void (down = true), bringUp: () => void (down = false) }
  }

  it.effect("keys seen before the outage keep their last known state; unknown keys get the store's error", () => {
    const store = outage({})
    return Effect.gen(function*() {
      const auth = yield* Auth
      for (const secret of [SECRETS.valid, SECRETS.revoked]) yield* Effect.exit(auth.authenticate(`Bearer ${secret}`))
      store.takeDown()
      yield* TestClock.adjust("40 millis")
      assert.strictEqual(yield* outcome(auth, `Bearer ${SECRETS.valid}`), "ok", "a known key still works")
      assert.strictEqual(
        yield* outcome(auth, `Bearer ${SECRETS.revoked}`),
        "RevokedKey",
        "a revocation known before still applies"
      )
      const unknown = yield* Effect.flip(auth.authenticate(`Bearer ${SECRETS.other}`))
      assert.strictEqual(unknown._tag, "SqlError")
      // the store is asked about a stale key at most once a second, not on every request
      const before = store.fake.lookups.length
      for (let i = 0; i < 20; i++) yield* auth.authenticate(`Bearer ${SECRETS.valid}`)
      assert.strictEqual(store.fake.lookups.length, before)
    }).pipe(Effect.provide(store.layer))
  })

  it.effect("past GATEWAY_KEY_STALE_MAX a known key is refused with the store's error too", () => {
    const store = outage({ GATEWAY_KEY_STALE_MAX: "50 millis" })
    return Effect.gen(function*() {
      const auth = yield* Auth
      yield* auth.authenticate(`Bearer ${SECRETS.valid}`)
      store.takeDown()
      yield* TestClock.adjust("80 millis")
      const error = yield* Effect.flip(auth.authenticate(`Bearer ${SECRETS.valid}`))
      assert.strictEqual(error._tag, "SqlError")
    }).pipe(Effect.provide(store.layer))
  })

  it.effect("once the store is back, the key's state is read again", () => {
    const store = outage({})
    return Effect.gen(function*() {
      const auth = yield* Auth
      yield* auth.authenticate(`Bearer ${SECRETS.valid}`)
      store.takeDown()
      yield* TestClock.adjust("40 millis")
      yield* auth.authenticate(`Bearer ${SECRETS.valid}`)
      // revoked while the store was down, seen once it is back
      store.fake.byHash.set(hashSecret(SECRETS.valid), record("key_valid", { revokedAt: new Date() }))
      store.bringUp()
      yield* TestClock.adjust("1050 millis")
      assert.strictEqual(yield* outcome(auth, `Bearer ${SECRETS.valid}`), "RevokedKey")
    }).pipe(Effect.provide(store.layer))
  })
})

describe("bearerToken", () => {
  const cases: ReadonlyArray<readonly [string | undefined, string | undefined]> = [
    [undefined, undefined],
    ["", undefined],
    ["Bearer abc", "abc"],
    ["bearer abc", "abc"],
    ["BEARER abc", "abc"],
    ["Bearer    abc", "abc"],
    ["Bearer\tabc", "abc"],
    ["Bearer abc  ", "abc"],
    ["Bearer sk-svc-A1b2/+=.", "sk-svc-A1b2/+=."],
    ["Bearer", undefined],
    ["Bearer ", undefined],
    ["Bearer a b", undefined],
    [" Bearer abc", undefined],
    ["Bearerabc", undefined],
    ["Basic abc", undefined],
    ["Token abc", undefined],
    ["abc", undefined]
  ]
  for (const [header, expected] of cases) {
    it(`${JSON.stringify(header)} → ${JSON.stringify(expected)}`, () => {
      assert.strictEqual(bearerToken(header), expected)
    })
  }
})
