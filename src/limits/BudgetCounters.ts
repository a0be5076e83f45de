/**
 * Tokens or micro-dollars used per key or org and budget period (`<scope>:<id>:<day|month>:<start>` for
 * tokens, `<scope>:<id>:usd-<day|month>:<start>` for dollars), as the budget check reads them. A counter is seeded once per period (from the request log) and then added to. In
 * memory, each instance counts its own; in Redis (`REDIS_URL`), every instance counts the same counter,
 * seeded by whichever instance came first and expiring a day after its period ends.
 */
import { Effect } from "effect"
import type { Redis } from "effect/persistence"

export interface BudgetCounters {
  /** The tokens counted so far; undefined: not seeded yet (or the counter cannot be read). */
  readonly get: (key: string) => Effect.Effect<number | undefined>
  /** Sets the counter to `value` unless another instance seeded it first; the counter now. */
  readonly seed: (key: string, value: number, periodEnd: number) => Effect.Effect<number | undefined>
  /** Adds to a seeded counter, answering its new value; one not seeded is left for its seed to count. */
  readonly add: (key: string, amount: number) => Effect.Effect<number | undefined>
}

/** Counters kept before the ones of past periods are dropped. */
const MAX_COUNTERS = 10_000

export const memoryCounters = (): BudgetCounters => {
  const counters = new Map<string, { used: number; readonly periodEnd: number }>()
  const forgetEnded = () => {
    const now = Date.now()
    for (const [key, counter] of counters) if (counter.periodEnd <= now) counters.delete(key)
  }
  return {
    get: (key) => Effect.sync(() => counters.get(key)?.used),
    seed: (key, value, periodEnd) =>
      Effect.sync(() => {
        if (counters.size >= MAX_COUNTERS) forgetEnded()
        const known = counters.get(key)
        // a charge that raced the seed keeps the larger figure
        if (known === undefined || known.used < value) counters.set(key, { used: value, periodEnd })
        return counters.get(key)!.used
      }),
    add: (key, amount) =>
      Effect.sync(() => {
        const known = counters.get(key)
        if (known === undefined) return undefined
        known.used += amount
        return known.used
      })
  }
}

const PREFIX = "svc-gateway:budget:"
const ADD_WHEN_SEEDED =
  "if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('INCRBY', KEYS[1], ARGV[1]) end return false"

/** Counters in the shared Redis; a Redis that cannot answer reads as not seeded, and charges are dropped. */
export const redisCounters = (redis: Redis.Redis["Service"]): BudgetCounters => {
  const read = (key: string) =>
    redis.send<string | null>("GET", PREFIX + key).pipe(
      Effect.map((value) => value === null ? undefined : Number(value)),
      Effect.catch(() => Effect.succeed(undefined))
    )
  return {
    get: read,
    seed: (key, value, periodEnd) =>
      redis.send(
        "SET",
        PREFIX + key,
        String(value),
        "NX",
        "PX",
        String(Math.max(1, periodEnd - Date.now() + 86_400_000))
      ).pipe(
        Effect.catch(() => Effect.void),
        Effect.andThen(read(key))
      ),
    add: (key, amount) =>
      redis.send<number | null>("EVAL", ADD_WHEN_SEEDED, "1", PREFIX + key, String(amount)).pipe(
        Effect.map((value) => typeof value === "number" ? value : undefined),
        Effect.catch(() => Effect.succeed(undefined))
      )
  }
}
