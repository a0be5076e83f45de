/**
 * Budget alerts: when a charge takes a key's or an org's dollar spend across one of the org's alert
 * thresholds, one `budget.threshold` event is recorded and posted to the org's webhook.
 *
 * - Once per threshold and period, however many instances saw the crossing: each instance that sees it
 *   inserts the event, and the store's unique index keeps the first (`budget_alerts_once`).
 * - Never on the hot path: a crossing is queued in memory (`crossed` does not wait on the store) and
 *   recorded by a background fiber, which then posts it.
 * - Retried with backoff (5 s, tripled each time, at most an hour apart; given up after 8 attempts).
 *   An attempt first claims the row by moving its next attempt past the post's timeout, so two
 *   instances sweeping the same store never post one event twice at once, and an instance that stops
 *   mid-post leaves the event to the others' sweep. Receivers get `x-svc-event-id` to drop a repeat
 *   (an attempt whose answer was lost is tried again).
 * - The webhook is the org's setting at the time of each attempt, checked against the operator's
 *   `GATEWAY_ALERT_WEBHOOK_HOSTS`; redirects are not followed, so that check is the last word.
 */
import { Clock, Context, Duration, Effect, Layer, Queue, Schedule } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { SqlClient, type SqlError } from "effect/sql"
import { GatewayConfig } from "../Config.ts"
import { newTimeOrderedId } from "../Ids.ts"
import { alertsOf, webhookHostAllowed } from "../kernel/AlertSettings.ts"
import { toIsoOrNull, toStoredTime } from "../store/Rows.ts"

/** A threshold crossed by a charge, as `RateLimits` tells it. */
export interface BudgetCrossing {
  readonly orgId: string
  /** null: the org's own budget. */
  readonly keyId: string | null
  readonly period: "day" | "month"
  /** The period's first millisecond (UTC). */
  readonly periodStart: number
  readonly threshold: number
  /** Spent in the period with the crossing charge, micro-dollars. */
  readonly spentMicro: number
  readonly limitUsd: number
  readonly at: number
}

/** What the webhook receives. */
export interface BudgetAlertEvent {
  readonly type: "budget.threshold"
  readonly org_id: string
  readonly key_id: string | null
  readonly period: "day" | "month"
  readonly threshold: number
  readonly spent_usd: number
  readonly limit_usd: number
  readonly at: string
}

/** An event as the admin API lists it, with how its delivery went. */
export interface BudgetAlert extends BudgetAlertEvent {
  readonly id: string
  readonly delivery: {
    readonly status: "pending" | "delivered" | "failed"
    readonly attempts: number
    readonly delivered_at: string | null
    readonly last_error: string | null
  }
}

const MAX_ATTEMPTS = 8
const FIRST_BACKOFF_MS = 5_000
const MAX_BACKOFF_MS = 3_600_000
const POST_TIMEOUT = Duration.seconds(10)
/** A claim outlives the post's timeout, so nobody else posts the event while it may still go out. */
const CLAIM_MS = 30_000
const SWEEP_EVERY = Duration.seconds(10)
/** Crossings waiting to be recorded; past it the oldest are dropped (a store down for long). */
const QUEUE_CAPACITY = 10_000

/** The wait after the `attempts`-th failed attempt. */
export const backoffMs = (attempts: number): number =>
  Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 3 ** Math.max(0, attempts - 1))

export const eventOf = (crossing: BudgetCrossing): BudgetAlertEvent => ({
  type: "budget.threshold",
  org_id: crossing.orgId,
  key_id: crossing.keyId,
  period: crossing.period,
  threshold: crossing.threshold,
  spent_usd: crossing.spentMicro / 1_000_000,
  limit_usd: crossing.limitUsd,
  at: new Date(crossing.at).toISOString()
})

interface AlertRow {
  readonly id: string
  readonly event: string
  readonly attempts: number | string
  readonly delivered_at: Date | string | null
  readonly failed_at: Date | string | null
  readonly last_error: string | null
}

export class BudgetAlerts extends Context.Service<BudgetAlerts, {
  /** Queues a crossing to be recorded and posted; returns at once. */
  readonly crossed: (crossing: BudgetCrossing) => Effect.Effect<void>
  /** The org's events, newest first. */
  readonly list: (orgId: string, limit: number) => Effect.Effect<ReadonlyArray<BudgetAlert>, SqlError.SqlError>
  /** Records what is queued and posts every event due now; the background fibers run it too. */
  readonly flush: Effect.Effect<void>
}>()("svc-gateway/BudgetAlerts") {
  /** Over the store, posting with `fetch`; records and sweeps in the background. */
  static readonly layer = Layer.effect(
    BudgetAlerts,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const config = yield* GatewayConfig
      const http = yield* HttpClient.HttpClient
      const queue = yield* Queue.sliding<BudgetCrossing>(QUEUE_CAPACITY)

      const stored = (ms: number) => toStoredTime(new Date(ms))

      /** Inserts the crossing's event unless it is known; its id when this insert made it. */
      const record = Effect.fnUntraced(function*(crossing: BudgetCrossing) {
        const rows = yield* sql<{ readonly id: string }>`
        INSERT INTO budget_alerts
          (id, org_id, key_id, scope_id, period, period_start, threshold, event, created_at, next_attempt_at)
        VALUES (${newTimeOrderedId("alert", crossing.at)}, ${crossing.orgId}, ${crossing.keyId},
          ${crossing.keyId ?? crossing.orgId}, ${crossing.period}, ${stored(crossing.periodStart)},
          ${crossing.threshold}, ${JSON.stringify(eventOf(crossing))}, ${stored(crossing.at)}, ${stored(crossing.at)})
        ON CONFLICT DO NOTHING RETURNING id`
        return rows[0]?.id
      })

      const settle = (
        id: string,
        fields: { readonly ok: boolean; readonly attempts: number; readonly error?: string }
      ) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          if (fields.ok) {
            return sql`UPDATE budget_alerts SET delivered_at = ${stored(now)}, last_error = NULL WHERE id = ${id}`
          }
          const error = (fields.error ?? "failed").slice(0, 500)
          return fields.attempts >= MAX_ATTEMPTS
            ? sql`UPDATE budget_alerts SET failed_at = ${stored(now)}, last_error = ${error} WHERE id = ${id}`
            : sql`UPDATE budget_alerts SET next_attempt_at = ${stored(now + backoffMs(fields.attempts))},
              last_error = ${error} WHERE id = ${id}`
        })

      const post = (url: string, id: string, event: string) =>
        http.execute(
          HttpClientRequest.post(url).pipe(
            HttpClientRequest.setHeaders({ "x-svc-event-id": id, "user-agent": "svc-gateway" }),
            HttpClientRequest.bodyText(event, "application/json")
          )
        ).pipe(
          Effect.flatMap((response) =>
            response.status >= 200 && response.status < 300
              ? Effect.void
              : Effect.fail(`the webhook answered ${response.status}`)
          ),
          Effect.timeoutOrElse({
            duration: POST_TIMEOUT,
            orElse: () => Effect.fail(`no answer within ${Duration.format(POST_TIMEOUT)}`)
          }),
          Effect.catchTag("HttpClientError", (error) => Effect.fail(error.message)),
          Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" })
        )

      /** One attempt at an event, if it is due and nobody else holds it. */
      const attempt = Effect.fnUntraced(function*(id: string) {
        const now = yield* Clock.currentTimeMillis
        const claimed = yield* sql<{ readonly org_id: string; readonly event: string; readonly attempts: number }>`
        UPDATE budget_alerts SET attempts = attempts + 1, next_attempt_at = ${stored(now + CLAIM_MS)}
        WHERE id = ${id} AND delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= ${stored(now)}
        RETURNING org_id, event, attempts`
        const row = claimed[0]
        if (row === undefined) return
        const attempts = Number(row.attempts)
        const orgs = yield* sql<{ readonly alerts: string | null }>`SELECT alerts FROM orgs WHERE id = ${row.org_id}`
        const url = alertsOf(orgs[0]?.alerts ?? null)?.webhook_url
        if (url === undefined) {
          return yield* settle(id, { ok: false, attempts: MAX_ATTEMPTS, error: "the org has no alert webhook now" })
        }
        if (!webhookHostAllowed(url, config.alertWebhookHosts)) {
          return yield* settle(id, {
            ok: false,
            attempts: MAX_ATTEMPTS,
            error: "the webhook's host is not in GATEWAY_ALERT_WEBHOOK_HOSTS"
          })
        }
        const outcome = yield* Effect.result(post(url, id, row.event))
        yield* settle(
          id,
          outcome._tag === "Success" ? { ok: true, attempts } : { ok: false, attempts, error: outcome.failure }
        )
      })

      const due = Effect.flatMap(Clock.currentTimeMillis, (now) =>
        sql<{ readonly id: string }>`
        SELECT id FROM budget_alerts
        WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= ${stored(now)}
        ORDER BY next_attempt_at LIMIT 100`)

      const warn = (what: string) => (error: SqlError.SqlError) =>
        Effect.logWarning(`budget alerts: ${what}`, { error: error.message })

      // crossings the store refused, recorded again by the next sweep rather than retried at once
      let unrecorded: Array<BudgetCrossing> = []

      const recordAll = (crossings: ReadonlyArray<BudgetCrossing>) =>
        Effect.forEach(crossings, (crossing) =>
          record(crossing).pipe(
            Effect.flatMap((id) =>
              id === undefined ? Effect.void : attempt(id).pipe(Effect.catch(warn("an alert could not be posted")))
            ),
            Effect.catch((error) =>
              Effect.andThen(
                warn("a crossing could not be recorded")(error),
                Effect.sync(() => unrecorded.push(crossing))
              )
            )
          ), { discard: true })

      const sweep = Effect.gen(function*() {
        const retry = unrecorded
        unrecorded = []
        yield* recordAll(retry)
        const rows = yield* due.pipe(
          Effect.catch((error) => Effect.as(warn("due alerts could not be read")(error), []))
        )
        yield* Effect.forEach(
          rows,
          (row) => attempt(row.id).pipe(Effect.catch(warn("an alert could not be posted"))),
          { concurrency: 4, discard: true }
        )
      })

      const flush = Effect.andThen(Effect.flatMap(Queue.clear(queue), recordAll), sweep)

      // the recorder wakes on each crossing; the sweep catches retries and what other instances left
      yield* Queue.takeAll(queue).pipe(Effect.flatMap(recordAll), Effect.forever, Effect.forkScoped)
      yield* sweep.pipe(Effect.repeat(Schedule.spaced(SWEEP_EVERY)), Effect.forkScoped)

      const crossed = (crossing: BudgetCrossing) => Effect.asVoid(Queue.offer(queue, crossing))

      const list = Effect.fn("BudgetAlerts.list")(function*(orgId: string, limit: number) {
        const rows = yield* sql<AlertRow>`
        SELECT id, event, attempts, delivered_at, failed_at, last_error FROM budget_alerts
        WHERE org_id = ${orgId} ORDER BY created_at DESC, id DESC LIMIT ${limit}`
        return rows.map((row): BudgetAlert => ({
          id: row.id,
          ...(JSON.parse(row.event) as BudgetAlertEvent),
          delivery: {
            status: row.delivered_at !== null ? "delivered" : row.failed_at !== null ? "failed" : "pending",
            attempts: Number(row.attempts),
            delivered_at: toIsoOrNull(row.delivered_at),
            last_error: row.last_error
          }
        }))
      })

      return BudgetAlerts.of({ crossed, list, flush })
    })
  )

  /** Posting with the platform's `fetch`. */
  static readonly layerFetch = BudgetAlerts.layer.pipe(Layer.provide(FetchHttpClient.layer))
}
