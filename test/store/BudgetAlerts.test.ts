/**
 * Budget alerts on the real store (the embedded one, and PostgreSQL in CI): two instances that both saw
 * a crossing record and post it once; a webhook that fails is tried again after its backoff, on the
 * test clock, and given up after the last attempt; an org without a webhook, or on a host the operator
 * does not allow, records the reason instead of posting.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { GatewayConfig } from "../../src/Config.ts"
import { backoffMs, BudgetAlerts, type BudgetCrossing } from "../../src/limits/BudgetAlerts.ts"
import { Orgs } from "../../src/orgs/Orgs.ts"
import { DatabaseLive } from "../../src/store/Database.ts"
import { toDate } from "../../src/store/Rows.ts"
import { storeEnv, unique } from "../utils/TestStore.ts"
import { startWebhookReceiver } from "../utils/WebhookReceiver.ts"

/** A webhook on 127.0.0.1 answering each post with the next status of `statuses` (then 204). */
const receiver = (statuses: ReadonlyArray<number> = []) =>
  Effect.acquireRelease(
    Effect.promise(() => startWebhookReceiver(statuses)),
    (hook) => Effect.promise(() => hook.close())
  )

const settings = (extra: Record<string, string> = {}) => GatewayConfig.layerFrom(storeEnv(extra))

const store = (extra: Record<string, string> = {}) =>
  Orgs.layer.pipe(Layer.provideMerge(DatabaseLive), Layer.provideMerge(settings(extra)))

/** A BudgetAlerts of its own over the store in context: what another gateway instance would run. */
const instance = Effect.map(Layer.build(BudgetAlerts.layerFetch), (context) => Context.get(context, BudgetAlerts))

const crossing = (orgId: string, threshold: number, at: number): BudgetCrossing => ({
  orgId,
  keyId: null,
  period: "day",
  periodStart: 0,
  threshold,
  spentMicro: 1_250_000,
  limitUsd: 2.5,
  at
})

/** Polls `check` on the real clock (the background sweep may be the one posting) until it holds. */
const until = (what: string, check: () => boolean) =>
  Effect.promise(async () => {
    for (let i = 0; i < 400 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
    if (!check()) throw new Error(`timed out waiting for: ${what}`)
  })

/**
 * Until the org's one event has settled its attempt `n` (a post may still be running in the recorder's
 * fiber when `flush` returns): failed for good, or its next attempt set by this attempt's backoff.
 */
const settled = (orgId: string, n: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = yield* Clock.currentTimeMillis
    for (let i = 0; i < 400; i++) {
      const [row] = yield* sql<
        { readonly attempts: number; readonly next_attempt_at: Date | string; readonly failed_at: unknown }
      >`
        SELECT attempts, next_attempt_at, failed_at FROM budget_alerts WHERE org_id = ${orgId}`
      if (
        row !== undefined && Number(row.attempts) === n &&
        (row.failed_at !== null || toDate(row.next_attempt_at).getTime() === now + backoffMs(n))
      ) return
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
    }
    return yield* Effect.die(new Error(`timed out waiting for attempt ${n} to settle`))
  })

const listed = (alerts: BudgetAlerts["Service"], orgId: string) =>
  Effect.map(alerts.list(orgId, 50), (list) => list.map((alert) => ({ threshold: alert.threshold, ...alert.delivery })))

/** The org's one event once its delivery settled (delivered or given up). */
const delivered = (alerts: BudgetAlerts["Service"], orgId: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 400; i++) {
      const [row] = yield* listed(alerts, orgId)
      if (row !== undefined && row.status !== "pending") return row
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
    }
    return yield* Effect.die(new Error("the delivery never settled"))
  })

describe("BudgetAlerts", () => {
  it.live("two instances that saw one crossing record it once and post it once", () =>
    Effect.gen(function*() {
      const hook = yield* receiver()
      const orgs = yield* Orgs
      const org = yield* orgs.create(unique("alerts"))
      yield* orgs.update(org.id, { alerts: { webhook_url: hook.url, thresholds: [0.5] } })
      const one = yield* instance
      const two = yield* instance
      const event = crossing(org.id, 0.5, Date.now())
      yield* Effect.all([one.crossed(event), two.crossed(event)], { concurrency: 2 })
      yield* Effect.all([one.flush, two.flush], { concurrency: 2 })
      // a background fiber may be the one posting: wait for the delivery, then flush both once more
      yield* until("the post", () => hook.posted.length >= 1)
      yield* delivered(one, org.id)
      yield* Effect.all([one.flush, two.flush], { concurrency: 2 })
      const rows = yield* listed(one, org.id)
      assert.deepStrictEqual(rows.map((row) => row.status), ["delivered"])
      assert.strictEqual(hook.posted.length, 1)
      assert.deepStrictEqual(hook.posted[0]!.body, {
        type: "budget.threshold",
        org_id: org.id,
        key_id: null,
        period: "day",
        threshold: 0.5,
        spent_usd: 1.25,
        limit_usd: 2.5,
        at: new Date(event.at).toISOString()
      })
      assert.match(String(hook.posted[0]!.headers["x-svc-event-id"]), /^alert_/)
    }).pipe(Effect.scoped, Effect.provide(store())))

  it.effect("a failing webhook is tried again after its backoff; a later success is recorded", () =>
    Effect.gen(function*() {
      const hook = yield* receiver([500, 503])
      const orgs = yield* Orgs
      const org = yield* orgs.create(unique("alerts"))
      yield* orgs.update(org.id, { alerts: { webhook_url: hook.url, thresholds: [1] } })
      const alerts = yield* instance
      yield* TestClock.adjust("1 hour")
      yield* alerts.crossed(crossing(org.id, 1, 3_600_000))
      yield* alerts.flush
      yield* until("the first post", () => hook.posted.length === 1)
      let rows = yield* listed(alerts, org.id)
      for (let i = 0; i < 400 && rows[0]?.last_error === null; i++) rows = yield* listed(alerts, org.id)
      assert.deepStrictEqual(rows, [{
        threshold: 1,
        status: "pending",
        attempts: 1,
        delivered_at: null,
        last_error: "the webhook answered 500"
      }])
      // not due yet: nothing is posted
      yield* alerts.flush
      assert.strictEqual(hook.posted.length, 1)
      yield* TestClock.adjust(backoffMs(1))
      yield* alerts.flush
      yield* until("the second post", () => hook.posted.length === 2)
      yield* settled(org.id, 2)
      yield* TestClock.adjust(backoffMs(2))
      yield* alerts.flush
      yield* until("the third post", () => hook.posted.length === 3)
      const row = yield* delivered(alerts, org.id)
      assert.deepStrictEqual([row.status, row.attempts, row.last_error], ["delivered", 3, null])
      // the same event each time, so the receiver can drop a repeat
      assert.deepStrictEqual(new Set(hook.posted.map((post) => post.headers["x-svc-event-id"])).size, 1)
    }).pipe(Effect.scoped, Effect.provide(store())))

  it.effect("given up after the last attempt", () =>
    Effect.gen(function*() {
      const hook = yield* receiver(Array.from({ length: 20 }, () => 500))
      const orgs = yield* Orgs
      const org = yield* orgs.create(unique("alerts"))
      yield* orgs.update(org.id, { alerts: { webhook_url: hook.url, thresholds: [1] } })
      const alerts = yield* instance
      yield* alerts.crossed(crossing(org.id, 1, 0))
      yield* alerts.flush
      for (let attempt = 1; attempt < 12; attempt++) {
        // the next attempt is timed from the clock when this one settles: move it only after that
        if (attempt <= 8) yield* settled(org.id, attempt)
        yield* TestClock.adjust(backoffMs(attempt))
        yield* alerts.flush
        yield* until(`post ${attempt + 1}`, () => hook.posted.length >= Math.min(8, attempt + 1))
      }
      const row = yield* delivered(alerts, org.id)
      assert.deepStrictEqual([row.status, row.attempts], ["failed", 8])
      assert.strictEqual(hook.posted.length, 8)
    }).pipe(Effect.scoped, Effect.provide(store())))

  it.effect("an org whose webhook was removed, or is on a host not allowed, gets the reason, not a post", () =>
    Effect.gen(function*() {
      const orgs = yield* Orgs
      const removed = yield* orgs.create(unique("alerts"))
      const elsewhere = yield* orgs.create(unique("alerts"))
      yield* orgs.update(elsewhere.id, { alerts: { webhook_url: "http://127.0.0.1:9/hook", thresholds: [1] } })
      const alerts = yield* instance
      yield* alerts.crossed(crossing(removed.id, 1, 0))
      yield* alerts.crossed(crossing(elsewhere.id, 1, 0))
      yield* alerts.flush
      assert.deepStrictEqual((yield* listed(alerts, removed.id)).map((row) => [row.status, row.last_error]), [
        ["failed", "the org has no alert webhook now"]
      ])
      assert.deepStrictEqual((yield* listed(alerts, elsewhere.id)).map((row) => [row.status, row.last_error]), [
        ["failed", "the webhook's host is not in GATEWAY_ALERT_WEBHOOK_HOSTS"]
      ])
    }).pipe(Effect.scoped, Effect.provide(store({ GATEWAY_ALERT_WEBHOOK_HOSTS: "hooks.example.com" }))))
})
