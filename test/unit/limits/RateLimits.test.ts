/**
 * Rate limits and budgets on the test clock, over the embedded store: a minute's requests and tokens,
 * a day's budget until the next UTC day, the key's and the org's limits both applying, dollar budgets
 * in micro-dollars and their alert crossings, and a caller without limits untouched.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { GatewayConfig } from "../../../src/Config.ts"
import type { Caller } from "../../../src/kernel/Caller.ts"
import { type Limits, NO_LIMITS } from "../../../src/kernel/Limits.ts"
import { BudgetAlerts, type BudgetCrossing } from "../../../src/limits/BudgetAlerts.ts"
import { periodOf, RateLimits } from "../../../src/limits/RateLimits.ts"
import { DatabaseLive } from "../../../src/store/Database.ts"

const storeOnly = DatabaseLive.pipe(Layer.provide(GatewayConfig.layerFrom({ GATEWAY_DATA_DIR: "memory://" })))

const limits = RateLimits.layerMemory.pipe(Layer.provide(storeOnly))

const caller = (key: Partial<Limits>, org: Partial<Limits> = {}): Caller => ({
  keyId: "key_1",
  keyName: "k",
  orgId: "org_1",
  allowedSvcToolIds: null,
  logContent: false,
  compression: null,
  limits: { key: { ...NO_LIMITS, ...key }, org: { ...NO_LIMITS, ...org } }
})

/** BudgetAlerts that keep the crossings they are told. */
const recordingAlerts = () => {
  const told: Array<BudgetCrossing> = []
  const alerts = Layer.succeed(
    BudgetAlerts,
    BudgetAlerts.of({
      crossed: (crossing) => Effect.sync(() => void told.push(crossing)),
      list: () => Effect.succeed([]),
      flush: Effect.void
    })
  )
  return { alerts, told }
}

/** The refusal's kind and wait, or "ok". */
const admitted = (rateLimits: RateLimits["Service"], who: Caller) =>
  rateLimits.admit(who).pipe(
    Effect.map(() => "ok"),
    Effect.catchTag("LimitError", (error) => Effect.succeed(`${error.reason.scope}:${error.reason.kind}`))
  )

describe("RateLimits", () => {
  it.effect("rpm: the minute's requests, then a refusal with its wait; the next minute lets them through again", () =>
    Effect.gen(function*() {
      const rateLimits = yield* RateLimits
      const who = caller({ rpm: 2 })
      const first = yield* rateLimits.admit(who)
      assert.deepStrictEqual(first.requests?.limit, 2)
      assert.deepStrictEqual(first.requests?.remaining, 1)
      assert.strictEqual(yield* admitted(rateLimits, who), "ok")
      const refused = yield* Effect.flip(rateLimits.admit(who))
      assert.strictEqual(refused.reason.kind, "rpm")
      assert.isAbove(refused.reason.retryAfterMs, 0)
      assert.isAtMost(refused.reason.retryAfterMs, 60_000)
      yield* TestClock.adjust("61 seconds")
      assert.strictEqual(yield* admitted(rateLimits, who), "ok")
    }).pipe(Effect.provide(limits)))

  it.effect("tpm: tokens charged after the answer refuse the next request until the window moves on", () =>
    Effect.gen(function*() {
      const rateLimits = yield* RateLimits
      const who = caller({ tpm: 100 })
      assert.strictEqual(yield* admitted(rateLimits, who), "ok")
      yield* rateLimits.charge(who, 150, null)
      assert.strictEqual(yield* admitted(rateLimits, who), "key:tpm")
      yield* TestClock.adjust("2 minutes")
      assert.strictEqual(yield* admitted(rateLimits, who), "ok")
    }).pipe(Effect.provide(limits)))

  it.effect("a day's budget: refused once used up, with the wait until the next UTC day, then open again", () =>
    Effect.gen(function*() {
      const rateLimits = yield* RateLimits
      yield* TestClock.adjust("10 hours")
      const who = caller({}, { tokens_per_day: 1_000 })
      assert.strictEqual(yield* admitted(rateLimits, who), "ok")
      yield* rateLimits.charge(who, 999, null)
      assert.strictEqual(yield* admitted(rateLimits, who), "ok")
      yield* rateLimits.charge(who, 1, null)
      const refused = yield* Effect.flip(rateLimits.admit(who))
      assert.deepStrictEqual([refused.reason.scope, refused.reason.kind, refused.reason.limit], [
        "org",
        "tokens_per_day",
        1_000
      ])
      assert.strictEqual(refused.reason.retryAfterMs, 14 * 3_600_000)
      yield* TestClock.adjust("14 hours")
      assert.strictEqual(yield* admitted(rateLimits, who), "ok")
    }).pipe(Effect.provide(limits)))

  it.effect("both the key's and the org's limits apply: the tighter refuses", () =>
    Effect.gen(function*() {
      const rateLimits = yield* RateLimits
      const who = caller({ rpm: 10 }, { rpm: 1 })
      assert.strictEqual(yield* admitted(rateLimits, who), "ok")
      assert.strictEqual(yield* admitted(rateLimits, who), "org:rpm")
    }).pipe(Effect.provide(limits)))

  it.effect("a dollar budget: micro-dollars charged; refused at the limit exactly, not a micro-dollar before", () =>
    Effect.gen(function*() {
      const rateLimits = yield* RateLimits
      const who = caller({ usd_per_day: 0.01 })
      yield* rateLimits.charge(who, 10, null)
      assert.strictEqual(yield* admitted(rateLimits, who), "ok")
      // unpriced answers spend nothing; tokens do not count against dollars
      yield* rateLimits.charge(who, 1_000_000, null)
      yield* rateLimits.charge(who, 10, 9_999)
      assert.strictEqual(yield* admitted(rateLimits, who), "ok")
      yield* rateLimits.charge(who, 0, 1)
      const refused = yield* Effect.flip(rateLimits.admit(who))
      assert.deepStrictEqual([refused.reason.scope, refused.reason.kind, refused.reason.limit], [
        "key",
        "usd_per_day",
        0.01
      ])
      // the next UTC day starts from nothing; the month's budget would still count it
      yield* TestClock.adjust("1 day")
      assert.strictEqual(yield* admitted(rateLimits, who), "ok")
    }).pipe(Effect.provide(limits)))

  it.effect("a monthly dollar budget of the org counts every key's spend", () =>
    Effect.gen(function*() {
      const rateLimits = yield* RateLimits
      const first = caller({}, { usd_per_month: 1 })
      const second = { ...first, keyId: "key_2" }
      assert.strictEqual(yield* admitted(rateLimits, first), "ok")
      assert.strictEqual(yield* admitted(rateLimits, second), "ok")
      yield* rateLimits.charge(first, 0, 600_000)
      yield* rateLimits.charge(second, 0, 400_000)
      assert.strictEqual(yield* admitted(rateLimits, first), "org:usd_per_month")
    }).pipe(Effect.provide(limits)))

  it.effect("crossing an alert threshold tells BudgetAlerts once, with the spend and the period", () =>
    Effect.gen(function*() {
      const { alerts, told } = recordingAlerts()
      yield* Effect.gen(function*() {
        const rateLimits = yield* RateLimits
        yield* TestClock.adjust("3 hours")
        const who: Caller = { ...caller({ usd_per_day: 1 }, { usd_per_month: 10 }), alertThresholds: [0.5, 0.8, 1] }
        assert.strictEqual(yield* admitted(rateLimits, who), "ok")
        yield* rateLimits.charge(who, 0, 499_999)
        assert.strictEqual(told.length, 0)
        yield* rateLimits.charge(who, 0, 1)
        // 0.5 of the key's day, exactly: crossed
        assert.deepStrictEqual(told.map((c) => [c.keyId, c.period, c.threshold, c.spentMicro, c.limitUsd]), [
          ["key_1", "day", 0.5, 500_000, 1]
        ])
        assert.strictEqual(told[0]!.periodStart, 0)
        assert.strictEqual(told[0]!.at, 3 * 3_600_000)
        // one charge across two thresholds tells both; the org's month is far from its first
        yield* rateLimits.charge(who, 0, 600_000)
        assert.deepStrictEqual(told.slice(1).map((c) => c.threshold), [0.8, 1])
        yield* rateLimits.charge(who, 0, 10_000)
        assert.strictEqual(told.length, 3)
      }).pipe(Effect.provide(RateLimits.layerMemory.pipe(Layer.provide(alerts))), Effect.provide(storeOnly))
    }))

  it.effect("without alert thresholds (no webhook set) nothing is told", () =>
    Effect.gen(function*() {
      const { alerts, told } = recordingAlerts()
      yield* Effect.gen(function*() {
        const rateLimits = yield* RateLimits
        const who = caller({ usd_per_day: 1 })
        assert.strictEqual(yield* admitted(rateLimits, who), "ok")
        yield* rateLimits.charge(who, 0, 2_000_000)
        assert.strictEqual(told.length, 0)
      }).pipe(Effect.provide(RateLimits.layerMemory.pipe(Layer.provide(alerts))), Effect.provide(storeOnly))
    }))

  it.effect("a caller without limits gets no quota and is never refused", () =>
    Effect.gen(function*() {
      const rateLimits = yield* RateLimits
      const { limits: _, ...free } = caller({})
      for (let i = 0; i < 100; i++) assert.deepStrictEqual(yield* rateLimits.admit(free), {})
    }).pipe(Effect.provide(limits)))
})

describe("periodOf", () => {
  it("UTC days and calendar months, leap years included", () => {
    const at = Date.parse("2028-02-29T23:59:59Z")
    assert.deepStrictEqual(periodOf("day", at), {
      start: Date.parse("2028-02-29T00:00:00Z"),
      end: Date.parse("2028-03-01T00:00:00Z")
    })
    assert.deepStrictEqual(periodOf("month", at), {
      start: Date.parse("2028-02-01T00:00:00Z"),
      end: Date.parse("2028-03-01T00:00:00Z")
    })
    assert.deepStrictEqual(
      periodOf("month", Date.parse("2026-12-31T12:00:00Z")).end,
      Date.parse("2027-01-01T00:00:00Z")
    )
  })
})
