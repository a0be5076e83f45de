/**
 * Rate limits and budgets (tokens and dollars) of keys and organizations, checked before a request and
 * charged with its usage and cost after (streamed answers included, once their usage is known).
 *
 * - Requests and tokens per minute go through `effect/persistence`'s `RateLimiter`: its memory store on
 *   one instance, its Redis store when `REDIS_URL` is set, so every instance counts against the same
 *   window. A request is refused once the minute's tokens are over the limit (tokens are known only
 *   after the answer, so the request that crosses the line is answered).
 * - Budgets per UTC calendar day and month are counters per key or org and period (`BudgetCounters`),
 *   seeded once per period from the request log (so a restart does not forget the month) and then
 *   counted: in memory, or in the shared Redis. A store that cannot be read lets the request through
 *   (the budget is checked again on the next one). Dollars are counted in micro-dollars, as costs are.
 * - A budget is checked before a request and charged after it, so requests already in flight when the
 *   budget runs out are answered: the overshoot is at most what they cost.
 * - A charge that takes a dollar budget across one of the org's alert thresholds tells `BudgetAlerts`.
 */
import { Clock, Context, Duration, Effect, Layer, Option } from "effect"
import { RateLimiter, Redis } from "effect/persistence"
import { SqlClient } from "effect/sql"
import type { Caller } from "../kernel/Caller.ts"
import { LimitError, LimitExceeded } from "../kernel/LimitError.ts"
import { BUDGET_NAMES, type BudgetName, isDollarLimit, type Limits, toMicroDollars } from "../kernel/Limits.ts"
import { COST_SUM } from "../logs/RequestLogSql.ts"
import { RedisLive, whenRedis } from "../store/RedisLive.ts"
import { toStoredTime } from "../store/Rows.ts"
import { BudgetAlerts, type BudgetCrossing } from "./BudgetAlerts.ts"
import { memoryCounters, redisCounters } from "./BudgetCounters.ts"

/** What the `x-ratelimit-*` headers report: the tighter of the key's and the org's limits of each kind. */
export interface Quota {
  readonly requests?: { readonly limit: number; readonly remaining: number; readonly resetMs: number } | undefined
  readonly tokens?: { readonly limit: number; readonly remaining: number; readonly resetMs: number } | undefined
}

type Scope = "key" | "org"

type Period = "day" | "month"

const periodOfBudget = (name: BudgetName): Period => name.endsWith("_per_day") ? "day" : "month"

/** The start of the UTC day or month holding `now`, and of the next one. */
export const periodOf = (period: Period, now: number): { readonly start: number; readonly end: number } => {
  const date = new Date(now)
  const y = date.getUTCFullYear()
  const m = date.getUTCMonth()
  const d = date.getUTCDate()
  return period === "day"
    ? { start: Date.UTC(y, m, d), end: Date.UTC(y, m, d + 1) }
    : { start: Date.UTC(y, m, 1), end: Date.UTC(y, m + 1, 1) }
}

const tighter = (a: Quota["requests"], b: Quota["requests"]) =>
  a === undefined ? b : b === undefined ? a : b.remaining < a.remaining ? b : a

/** `x-ratelimit-*` headers of a quota, as OpenAI names them. */
export const quotaHeaders = (quota: Quota): Record<string, string> => {
  const headers: Record<string, string> = {}
  if (quota.requests !== undefined) {
    headers["x-ratelimit-limit-requests"] = String(quota.requests.limit)
    headers["x-ratelimit-remaining-requests"] = String(Math.max(0, quota.requests.remaining))
    headers["x-ratelimit-reset-requests"] = `${Math.ceil(quota.requests.resetMs / 1000)}s`
  }
  if (quota.tokens !== undefined) {
    headers["x-ratelimit-limit-tokens"] = String(quota.tokens.limit)
    headers["x-ratelimit-remaining-tokens"] = String(Math.max(0, quota.tokens.remaining))
    headers["x-ratelimit-reset-tokens"] = `${Math.ceil(quota.tokens.resetMs / 1000)}s`
  }
  return headers
}

export class RateLimits extends Context.Service<RateLimits, {
  /** Checks the caller's limits, counting the request; fails when one is used up. */
  readonly admit: (caller: Caller) => Effect.Effect<Quota, LimitError>
  /**
   * Charges an answer's tokens and cost (micro-dollars; null: unpriced) to the caller's per-minute and
   * budget counters, telling the budget alerts of each threshold it crossed.
   */
  readonly charge: (caller: Caller, tokens: number, cost: number | null) => Effect.Effect<void>
}>()("svc-gateway/RateLimits") {
  /** Over the `RateLimiter` in context (memory or Redis) and the store's request log. */
  static readonly layer = Layer.effect(
    RateLimits,
    Effect.gen(function*() {
      const limiter = yield* RateLimiter.RateLimiter
      const sql = yield* SqlClient.SqlClient
      // tokens used per `${scope}:${id}:${period}:${start}`, seeded from the log once per period; shared in Redis
      const redis = yield* Effect.serviceOption(Redis.Redis)
      const budgets = Option.isSome(redis) ? redisCounters(redis.value) : memoryCounters()
      // absent (unit tests of the limits alone): crossings are not told
      const alerts = Option.getOrUndefined(yield* Effect.serviceOption(BudgetAlerts))

      const exceeded = ({ kind, limit, retryAfterMs, scope }: {
        readonly scope: Scope
        readonly kind: LimitExceeded["kind"]
        readonly limit: number
        readonly retryAfterMs: number
      }) =>
        new LimitError({
          reason: new LimitExceeded({ scope, kind, limit, retryAfterMs: Math.max(0, Math.ceil(retryAfterMs)) })
        })

      const asLimitError =
        (scope: Scope, kind: LimitExceeded["kind"], limit: number) => (error: RateLimiter.RateLimiterError) =>
          error.reason._tag === "RateLimitExceeded"
            ? Effect.fail(exceeded({ scope, kind, limit, retryAfterMs: Duration.toMillis(error.reason.retryAfter) }))
            // the limiter's store is down: the request goes through, as a store outage must not be an API outage
            : Effect.as(Effect.logWarning("rate limiter store unavailable; request not counted", { kind }), undefined)

      const idOf = (caller: Caller, scope: Scope) => scope === "key" ? caller.keyId : caller.orgId

      const perMinute = Effect.fnUntraced(function*(caller: Caller, scope: Scope, limits: Limits) {
        let requests: Quota["requests"]
        let tokens: Quota["tokens"]
        const id = idOf(caller, scope)
        if (limits.rpm !== null) {
          const result = yield* limiter.consume({
            key: `svc:rpm:${scope}:${id}`,
            limit: limits.rpm,
            window: "1 minute"
          }).pipe(
            Effect.catch(asLimitError(scope, "rpm", limits.rpm))
          )
          if (result !== undefined) {
            requests = { limit: limits.rpm, remaining: result.remaining, resetMs: Duration.toMillis(result.resetAfter) }
          }
        }
        if (limits.tpm !== null) {
          // no tokens taken now: the answer's are charged when it is done
          const result = yield* limiter.consume({
            key: `svc:tpm:${scope}:${id}`,
            limit: limits.tpm,
            window: "1 minute",
            tokens: 0
          }).pipe(
            Effect.catch(asLimitError(scope, "tpm", limits.tpm))
          )
          if (result !== undefined) {
            tokens = { limit: limits.tpm, remaining: result.remaining, resetMs: Duration.toMillis(result.resetAfter) }
          }
        }
        return { requests, tokens }
      })

      /** A budget's counter: tokens, or micro-dollars for a dollar budget. */
      const counterKey = (caller: Caller, scope: Scope, name: BudgetName, start: number) =>
        `${scope}:${idOf(caller, scope)}:${isDollarLimit(name) ? "usd-" : ""}${periodOfBudget(name)}:${start}`

      const usedSql = (name: BudgetName) =>
        isDollarLimit(name)
          ? sql.literal(sql.onDialectOrElse({ sqlite: () => COST_SUM.sqlite, orElse: () => COST_SUM.pg }))
          : sql`SUM(COALESCE(prompt_tokens, 0) + COALESCE(completion_tokens, 0))`

      /** Used in the period so far: counted here, seeded from the request log the first time. */
      const used = Effect.fnUntraced(function*(
        caller: Caller,
        { name, now, scope }: { readonly scope: Scope; readonly name: BudgetName; readonly now: number }
      ) {
        const { end, start } = periodOf(periodOfBudget(name), now)
        const key = counterKey(caller, scope, name, start)
        const known = yield* budgets.get(key)
        if (known !== undefined) return known
        const column = scope === "key" ? sql`key_id` : sql`org_id`
        const rows = yield* sql<{ readonly used: number | string | null }>`
        SELECT ${usedSql(name)} AS used FROM request_log
        WHERE ${column} = ${idOf(caller, scope)} AND created_at >= ${toStoredTime(new Date(start))}`.pipe(
          Effect.catch((error) =>
            Effect.as(
              Effect.logWarning("budget not checked: the request log could not be read", { error: error.message }),
              undefined
            )
          )
        )
        if (rows === undefined) return undefined
        return yield* budgets.seed(key, Number(rows[0]?.used ?? 0), end)
      })

      const checkBudget = Effect.fnUntraced(function*(
        caller: Caller,
        { budget, name, now, scope }: {
          readonly scope: Scope
          readonly name: BudgetName
          readonly budget: number | null
          readonly now: number
        }
      ) {
        if (budget === null) return
        const spent = yield* used(caller, { scope, name, now })
        if (spent !== undefined && spent >= (isDollarLimit(name) ? toMicroDollars(budget) : budget)) {
          return yield* exceeded({
            scope,
            kind: name,
            limit: budget,
            retryAfterMs: periodOf(periodOfBudget(name), now).end - now
          })
        }
      })

      const admit = Effect.fnUntraced(function*(caller: Caller) {
        const limits = caller.limits
        if (limits === undefined) return {}
        const now = yield* Clock.currentTimeMillis
        for (const scope of ["key", "org"] as const) {
          for (const name of BUDGET_NAMES) yield* checkBudget(caller, { scope, name, budget: limits[scope][name], now })
        }
        const key = yield* perMinute(caller, "key", limits.key)
        const org = yield* perMinute(caller, "org", limits.org)
        return {
          requests: tighter(key.requests, org.requests),
          tokens: tighter(key.tokens, org.tokens)
        } satisfies Quota
      })

      /** Thresholds of a dollar budget that `amount` took the counter across, as alert events. */
      const crossings = (
        caller: Caller,
        { after, amount, limit, name, now, scope }: {
          readonly scope: Scope
          readonly name: "usd_per_day" | "usd_per_month"
          readonly limit: number
          readonly after: number
          readonly amount: number
          readonly now: number
        }
      ): ReadonlyArray<BudgetCrossing> => {
        const limitMicro = toMicroDollars(limit)
        const before = after - amount
        return (caller.alertThresholds ?? []).filter((threshold) => {
          const line = threshold * limitMicro
          return before < line && after >= line
        }).map((threshold) => ({
          orgId: caller.orgId,
          keyId: scope === "key" ? caller.keyId : null,
          period: periodOfBudget(name),
          periodStart: periodOf(periodOfBudget(name), now).start,
          threshold,
          spentMicro: after,
          limitUsd: limit,
          at: now
        }))
      }

      const charge = Effect.fnUntraced(function*(caller: Caller, tokens: number, cost: number | null) {
        const limits = caller.limits
        if (limits === undefined) return
        const now = yield* Clock.currentTimeMillis
        for (const scope of ["key", "org"] as const) {
          const own = limits[scope]
          const id = idOf(caller, scope)
          if (own.tpm !== null && tokens > 0) {
            yield* limiter.consume({
              key: `svc:tpm:${scope}:${id}`,
              limit: own.tpm,
              window: "1 minute",
              tokens,
              onExceeded: "delay"
            }).pipe(
              Effect.ignore
            )
          }
          for (const name of BUDGET_NAMES) {
            const limit = own[name]
            const amount = isDollarLimit(name) ? cost ?? 0 : tokens
            if (limit === null || amount <= 0) continue
            // not seeded (the log could not be read): the next check seeds it, this answer's row included
            const after = yield* budgets.add(
              counterKey(caller, scope, name, periodOf(periodOfBudget(name), now).start),
              amount
            )
            if (after === undefined || !isDollarLimit(name) || alerts === undefined) continue
            for (const crossing of crossings(caller, { scope, name, limit, after, amount, now })) {
              yield* alerts.crossed(crossing)
            }
          }
        }
      })

      return RateLimits.of({ admit, charge })
    })
  )

  /** Per-instance counters: the limiter's memory store. */
  static readonly layerMemory = RateLimits.layer.pipe(
    Layer.provide(RateLimiter.layer),
    Layer.provide(RateLimiter.layerStoreMemory)
  )

  /** Counters (per minute and budgets) in the shared Redis when `REDIS_URL` is set, else in memory. */
  static readonly layerFromConfig = whenRedis(
    RateLimits.layer.pipe(
      Layer.provide(RateLimiter.layer),
      Layer.provide(RateLimiter.layerStoreRedis({ prefix: "svc-gateway:ratelimit:" })),
      Layer.provide(RedisLive)
    ),
    RateLimits.layerMemory
  )
}
