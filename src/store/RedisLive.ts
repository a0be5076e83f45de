/**
 * The Redis that several gateway instances share when `REDIS_URL` is set: the rate limiter's and the
 * circuit breakers' counters live there, so every instance counts against the same ones. Unset, each
 * instance counts in its own memory. The `redis` client is loaded only when it is used.
 *
 * Commands fail at once while the connection is down (no offline queue): a request never waits on a
 * Redis that is gone; the limiter then lets it through and the breaker runs the call unrecorded.
 */
import { Effect, Layer, Option } from "effect"
import type { Redis } from "effect/persistence"
import { GatewayConfig } from "../Config.ts"

/** The shared Redis, when configured; one connection for every user, built once per app. */
export const RedisLive: Layer.Layer<Redis.Redis, Redis.RedisError, GatewayConfig> = Layer.unwrap(
  Effect.gen(function*() {
    const config = yield* GatewayConfig
    const url = Option.getOrThrow(config.redisUrl)
    const NodeRedis = yield* Effect.promise(() => import("@effect/platform-node/NodeRedis"))
    return NodeRedis.layer({ url, disableOfflineQueue: true })
  })
)

/** `shared` when `REDIS_URL` is set, else `local`: the one switch between per-instance and shared counters. */
export const whenRedis = <A, E1, R1, E2, R2>(
  shared: Layer.Layer<A, E1, R1>,
  local: Layer.Layer<A, E2, R2>
): Layer.Layer<A, E1 | E2, R1 | R2 | GatewayConfig> =>
  Layer.unwrap(
    Effect.map(Effect.service(GatewayConfig), (config) =>
      Option.isSome(config.redisUrl) ? shared as Layer.Layer<A, E1 | E2, R1 | R2> : local)
  )
