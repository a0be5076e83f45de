/**
 * A circuit breaker per provider target (`provider/model`), on `effect/persistence`'s `CircuitBreaker`:
 * after `failures` upstream failures in a row (those that would retry or fail over; a client error
 * is the upstream working) the target is skipped for `cooldown`, then one probe goes through, whose
 * outcome closes the circuit or opens it again. A skipped target fails with `TargetOpen`, which moves
 * the failover on without a call. States go to `/metrics` and the admin API as they change.
 *
 * A healthy target skips the breaker: on this instance's own store (no `REDIS_URL`), a target with no
 * failure since its last success is closed with a streak of 0, so admitting and recording a success
 * change nothing, and `execute`'s scaffolding (a scope, an uninterruptible region, exits, two store
 * calls) cost about a sixth of a whole answer's CPU. Its first failure is recorded through the breaker,
 * and every call after it goes through the breaker until one succeeds there. A shared store is always
 * asked: another instance may have opened the circuit.
 */
import { Cause, Context, Duration, Effect, Exit, Layer, Option, Stream } from "effect"
import { CircuitBreaker } from "effect/persistence"
import { GatewayConfig } from "../Config.ts"
import { type CircuitState, Metrics } from "../observability/Metrics.ts"
import { ProviderError, TargetOpen } from "../providers/ProviderError.ts"
import type { Target } from "../providers/Providers.ts"
import { RedisLive, whenRedis } from "../store/RedisLive.ts"
import type { TargetGuard } from "./Failover.ts"

export interface BreakerSettings {
  /** Failures in a row that open a target's circuit; 0 turns breakers off. */
  readonly failures: number
  /** How long an open circuit skips its target before a probe. */
  readonly cooldown: Duration.Duration
  /** Whether other instances share the store (Redis): then every call asks it. */
  readonly shared?: boolean | undefined
}

/** The breaker's key for a target: the provider instance and the model it is asked for. */
export const targetKey = (target: Target): string => `${target.provider.name}/${target.modelId}`

/** How long a target whose probe is still out stays skipped: the probe decides soon. */
const PROBING_RETRY_MS = 1_000

const stateOf = (to: "Open" | "HalfOpen" | "Closed"): CircuitState =>
  to === "Open" ? "open" : to === "HalfOpen" ? "half_open" : "closed"

const classify = (exit: Exit.Exit<unknown, ProviderError>): CircuitBreaker.Outcome => {
  if (Exit.isSuccess(exit)) return CircuitBreaker.success
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) return CircuitBreaker.ignored
  if (error.value.next === "client") return CircuitBreaker.success
  const reason = error.value.reason
  return CircuitBreaker.failure(
    reason._tag === "UpstreamStatus" && reason.retryAfterMs !== undefined
      ? { retryAfter: Duration.millis(reason.retryAfterMs) }
      : undefined
  )
}

export class TargetBreaker extends Context.Service<TargetBreaker, {
  /** Undefined when breakers are off. */
  readonly guard: TargetGuard | undefined
  /** Every target whose circuit left `closed` since the start, with its current state. */
  readonly states: () => ReadonlyArray<{ readonly target: string; readonly state: CircuitState }>
  /** Whether a target's circuit is open (skipped) as this instance last saw it. */
  readonly isOpen: (target: Target) => boolean
}>()("svc-gateway/TargetBreaker") {
  /** No breakers: every call goes straight through. */
  static readonly off = TargetBreaker.of({ guard: undefined, states: () => [], isOpen: () => false })

  /** Breakers over the `CircuitBreakerStore` in context (memory for one instance, Redis to share). */
  static readonly layer = (
    settings: BreakerSettings
  ): Layer.Layer<TargetBreaker, never, Metrics | CircuitBreaker.CircuitBreakerStore> =>
    Layer.effect(
      TargetBreaker,
      Effect.gen(function*() {
        if (settings.failures <= 0) return TargetBreaker.off
        const metrics = yield* Metrics
        const breaker = yield* CircuitBreaker.make({
          tripPolicy: CircuitBreaker.consecutive(settings.failures),
          openDuration: settings.cooldown
        })
        const states = new Map<string, CircuitState>()
        yield* breaker.transitions.pipe(
          Stream.runForEach((transition) =>
            Effect.sync(() => {
              const state = stateOf(transition.to)
              states.set(transition.key, state)
              metrics.circuit(transition.key, state)
            })
          ),
          // subscribed before the first call, so no transition is published unseen
          Effect.forkScoped({ startImmediately: true })
        )
        const viaBreaker = <A, R>(target: Target, key: string, call: Effect.Effect<A, ProviderError, R>) =>
          breaker.execute(call, { key, classify }).pipe(
            Effect.catchIf(
              (error): error is CircuitBreaker.CircuitBreakerError => error._tag === "CircuitBreakerError",
              (error) => {
                const reason = error.reason
                // the store failing is run unrecorded by the breaker itself ("allow"); open or probing: skipped
                const retryAfterMs = reason._tag === "CircuitOpen"
                  ? Duration.toMillis(reason.retryAfter)
                  : PROBING_RETRY_MS
                return Effect.fail(
                  new ProviderError({
                    provider: target.provider.name,
                    reason: new TargetOpen({ target: key, retryAfterMs: Math.max(0, Math.ceil(retryAfterMs)) })
                  })
                )
              }
            )
          )
        // failures per target since its last success through the breaker; a target listed here goes through it
        const failing = new Map<string, number>()
        const counts = (error: ProviderError) => error.next !== "client" && error.reason._tag !== "TargetOpen"
        const noteFailure = (key: string, error: ProviderError) => {
          if (counts(error)) failing.set(key, (failing.get(key) ?? 0) + 1)
        }
        const guarded = <A, R>(target: Target, key: string, call: Effect.Effect<A, ProviderError, R>) => {
          const before = failing.get(key) ?? 0
          return viaBreaker(target, key, call).pipe(
            Effect.tapError((error) => Effect.sync(() => noteFailure(key, error))),
            // a success with no failure meanwhile: closed, streak 0 in the store
            Effect.tap(() => Effect.sync(() => (failing.get(key) ?? 0) === before && failing.delete(key)))
          )
        }
        const direct = <A, R>(target: Target, key: string, call: Effect.Effect<A, ProviderError, R>) =>
          Effect.catch(call, (error) => {
            if (!counts(error)) return Effect.fail(error)
            noteFailure(key, error)
            // recorded as if the breaker had admitted the call; an opening it causes is the breaker's
            return Effect.andThen(Effect.exit(viaBreaker(target, key, Effect.fail(error))), Effect.fail(error))
          })
        const guard: TargetGuard = settings.shared === true
          ? (target, call) => viaBreaker(target, targetKey(target), call)
          : (target, call) =>
            Effect.suspend(() => {
              const key = targetKey(target)
              return failing.has(key) ? guarded(target, key, call) : direct(target, key, call)
            })
        return TargetBreaker.of({
          guard,
          states: () => [...states].map(([target, state]) => ({ target, state })),
          isOpen: (target) => states.size > 0 && states.get(targetKey(target)) === "open"
        })
      })
    )

  /** Breakers as the gateway's settings say (`GATEWAY_CIRCUIT_FAILURES`, `GATEWAY_CIRCUIT_COOLDOWN`). */
  static readonly layerFromConfig = Layer.unwrap(
    Effect.map(Effect.service(GatewayConfig), (config) =>
      TargetBreaker.layer({
        failures: config.circuitFailures,
        cooldown: config.circuitCooldown,
        shared: Option.isSome(config.redisUrl)
      }).pipe(
        // shared by every instance when REDIS_URL is set
        Layer.provide(whenRedis(
          CircuitBreaker.layerStoreRedis({ prefix: "svc-gateway:circuit:" }).pipe(Layer.provide(RedisLive)),
          CircuitBreaker.layerStoreMemory()
        ))
      ))
  )
}
