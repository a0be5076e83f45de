/**
 * Rate limits and token budgets of keys and organizations, checked before a request and charged with
 * its usage after (streamed answers included, once their usage is known).
 *
 * - Requests and tokens per minute go through `effect/persistence`'s `RateLimiter`: its memory store on
 *   one instance, its Redis store when `REDIS_URL` is set, so every instance counts against the same
 *   window. A request is refused once the minute's tokens are over the limit (tokens are known only
 *   after the answer, so the request that crosses the line is answered).
 * - Budgets per UTC calendar day and month are counters per key or org and period (`BudgetCounters`),
 *   seeded once per period from the request log (so a restart does not forget the month) and then
 *   counted: in memory, or in the shared Redis. A store that cannot be read lets the request through
 *   (the budget is checked again on the next one).
 */
import { Clock, Context, Duration, Effect, Layer, Option } from "effect"
import { RateLimiter, Redis } from "effect/persistence"
import { SqlClient } from "effect/sql"
import type { Caller } from "../kernel/Caller.ts"
import { LimitError, LimitExceeded } from "../kernel/LimitError.ts"
import type { Limits } from "../kernel/Limits.ts"
import { RedisLive, whenRedis } from "../store/RedisLive.ts"
import { toStoredTime } from "../store/Rows.ts"
import { memoryCounters, redisCounters } from "./BudgetCounters.ts"

/** What the `x-ratelimit-*` headers report: the tighter of the key's and the org's limits of each kind. */
export interface Quota {
  readonly requests?: { readonly limit: number; readonly remaining: number; readonly resetMs: number } | undefined
  readonly tokens?: { readonly limit: number; readonly remaining: number; readonly resetMs: number } | undefined
}

type Scope = "key" | "org"

type Period = "day" | "month"

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
  /** Charges an answer's tokens to the caller's per-minute and budget counters. */
  readonly charge: (caller: Caller, tokens: number) => Effect.Effect<void>
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

      /** Tokens used in the period so far: counted here, seeded from the request log the first time. */
      const used = Effect.fnUntraced(function*(
        caller: Caller,
        { now, period, scope }: { readonly scope: Scope; readonly period: Period; readonly now: number }
      ) {
        const id = idOf(caller, scope)
        const { end, start } = periodOf(period, now)
        const key = `${scope}:${id}:${period}:${start}`
        const known = yield* budgets.get(key)
        if (known !== undefined) return known
        const column = scope === "key" ? sql`key_id` : sql`org_id`
        const rows = yield* sql<{ readonly used: number | string | null }>`
        SELECT SUM(COALESCE(prompt_tokens, 0) + COALESCE(completion_tokens, 0)) AS used FROM request_log
        WHERE ${column} = ${id} AND created_at >= ${toStoredTime(new Date(start))}`.pipe(
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
        { budget, now, period, scope }: {
          readonly scope: Scope
          readonly period: Period
          readonly budget: number | null
          readonly now: number
        }
      ) {
        if (budget === null) return
        const spent = yield* used(caller, { scope, period, now })
        if (spent !== undefined && spent >= budget) {
          return yield* exceeded({
            scope,
            kind: period === "day" ? "tokens_per_day" : "tokens_per_month",
            limit: budget,
            retryAfterMs: periodOf(period, now).end - now
          })
        }
      })

      const admit = Effect.fnUntraced(function*(caller: Caller) {
        const limits = caller.limits
        if (limits === undefined) return {}
        const now = yield* Clock.currentTimeMillis
        for (const scope of ["key", "org"] as const) {
          yield* checkBudget(caller, { scope, period: "day", budget: limits[scope].tokens_per_day, now })
          yield* checkBudget(caller, { scope, period: "month", budget: limits[scope].tokens_per_month, now })
        }
        const key = yield* perMinute(caller, "key", limits.key)
        const org = yield* perMinute(caller, "org", limits.org)
        return {
          requests: tighter(key.requests, org.requests),
          tokens: tighter(key.tokens, org.tokens)
        } satisfies Quota
      })

      const charge = Effect.fnUntraced(function*(caller: Caller, tokens: number) {
        const limits = caller.limits
        if (limits === undefined || tokens <= 0) return
        const now = yield* Clock.currentTimeMillis
        for (const scope of ["key", "org"] as const) {
          const own = limits[scope]
          const id = idOf(caller, scope)
          if (own.tpm !== null) {
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
          for (const period of ["day", "month"] as const) {
            if ((period === "day" ? own.tokens_per_day : own.tokens_per_month) === null) continue
            // not seeded (the log could not be read): the next check seeds it, this answer's row included
            yield* budgets.add(`${scope}:${id}:${period}:${periodOf(period, now).start}`, tokens)
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
