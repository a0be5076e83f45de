/**
 * One round's upstream call over the request's targets, by the rules of the README's "Retries and
 * failover" table: what a failure's `next` says decides. `retry`: the same target again after an
 * exponential, jittered backoff, or after the upstream's `Retry-After` when it sent one no longer than
 * the cap, at most `retries` times and never past the deadline; then the next target. `failover`: the
 * next target at once (a 401/403 also logs an error and counts, since it is the gateway's own
 * configuration at fault). `client`: the failure is the answer. The last target's failure is the
 * request's. Within a balanced route a `retry` moves to the route's next target at once: it serves the
 * same model and has not been asked to wait.
 *
 * Every call goes through `guard` (the target's circuit breaker), which may refuse it without a call.
 */
import { Clock, Effect, Random } from "effect"
import type { MetricsShape } from "../observability/Metrics.ts"
import type { ProviderError } from "../providers/ProviderError.ts"
import { sameGroup, type Target } from "../providers/Providers.ts"

export interface RetryRules {
  /** Calls of one target after its first, for failures whose `next` is `retry`. */
  readonly retries: number
  /** The first backoff; each later one doubles, and each is drawn between half of it and all of it. */
  readonly backoffMs: number
  /** The longest `Retry-After` waited for; one longer moves to the next target at once. */
  readonly retryAfterMaxMs: number
  /** No wait may end later than this after the round's first failure. */
  readonly deadlineMs: number
}

/** One attempt of one target as its circuit breaker lets it through, or refuses it (`TargetOpen`). */
export type TargetGuard = <A, R>(
  target: Target,
  call: Effect.Effect<A, ProviderError, R>
) => Effect.Effect<A, ProviderError, R>

/** What the failover counts: every upstream error, every retry, every move to a backup. */
export type FailoverMetrics = Pick<MetricsShape, "providerError" | "failover" | "retry" | "credentialsRejected">

export interface FailoverOptions {
  readonly rules: RetryRules
  readonly metrics?: FailoverMetrics | undefined
  readonly guard?: TargetGuard | undefined
}

/** What a round came to: the answer, the target that gave it, and the upstream calls it took. */
export interface Answered<A> {
  readonly value: A
  readonly target: Target
  readonly attempts: number
}

/** The `retry`-th wait (0 first) before calling the target again; undefined: move on instead. */
const waitFor = (
  error: ProviderError,
  { random, retry, rules }: { readonly retry: number; readonly rules: RetryRules; readonly random: number }
): number | undefined => {
  const asked = error.reason._tag === "UpstreamStatus" ? error.reason.retryAfterMs : undefined
  if (asked !== undefined) return asked <= rules.retryAfterMaxMs ? asked : undefined
  const full = rules.backoffMs * 2 ** retry
  return full / 2 + random * (full / 2)
}

/** A target as logs name it: its address, and its provider when a balanced route shares the address. */
const shown = (target: Target) =>
  target.balance === undefined ? target.address : `${target.address} (${target.provider.name})`

const credentialsRefused = (error: ProviderError) =>
  error.reason._tag === "UpstreamStatus" && (error.reason.status === 401 || error.reason.status === 403)

/** Runs `attempt` over `targets` by the rules above. */
export const withFailover = <A, R>(
  targets: ReadonlyArray<Target>,
  attempt: (target: Target) => Effect.Effect<A, ProviderError, R>,
  { guard, metrics, rules }: FailoverOptions
): Effect.Effect<Answered<A>, ProviderError, R> => {
  // calls made, circuit refusals not counted; and when the first failure happened (the deadline's start)
  let calls = 0
  let firstFailureAt: number | undefined

  const call = (target: Target): Effect.Effect<Answered<A>, ProviderError, R> => {
    const counted = Effect.suspend(() => {
      calls++
      return attempt(target)
    })
    return Effect.map(
      guard === undefined ? counted : guard(target, counted),
      (value) => ({ value, target, attempts: calls })
    )
  }

  const moveOn = (index: number, error: ProviderError): Effect.Effect<Answered<A>, ProviderError, R> => {
    const target = targets[index]!
    if (credentialsRefused(error)) {
      metrics?.credentialsRejected(error.provider)
    }
    const logged = credentialsRefused(error)
      ? Effect.logError("provider refused the gateway's credentials; check its API key", {
        provider: error.provider,
        target: target.address
      })
      : Effect.void
    if (index + 1 >= targets.length) return Effect.andThen(logged, Effect.fail(error))
    const next = targets[index + 1]!
    metrics?.failover(target.address, next.address)
    return logged.pipe(
      Effect.andThen(Effect.logWarning("failing over", { from: shown(target), to: shown(next) })),
      Effect.annotateLogs({ provider: error.provider, reason: error.reason._tag }),
      Effect.andThen(go(index + 1, 0))
    )
  }

  const afterFailure =
    (index: number, retry: number) => (error: ProviderError): Effect.Effect<Answered<A>, ProviderError, R> => {
      if (error.reason._tag !== "TargetOpen") metrics?.providerError(error)
      const next = error.next
      if (next === "client") return Effect.fail(error)
      if (next === "failover" || retry >= rules.retries || sameGroup(targets[index]!, targets[index + 1])) {
        return moveOn(index, error)
      }
      return Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        firstFailureAt ??= now
        const wait = waitFor(error, { retry, rules, random: yield* Random.next })
        if (wait === undefined || now + wait > firstFailureAt + rules.deadlineMs) return yield* moveOn(index, error)
        const target = targets[index]!
        metrics?.retry(target.address)
        yield* Effect.logDebug("retrying", {
          target: target.address,
          wait_ms: Math.round(wait),
          status: statusOf(error)
        })
        yield* Effect.sleep(wait)
        return yield* go(index, retry + 1)
      })
    }

  const go = (index: number, retry: number): Effect.Effect<Answered<A>, ProviderError, R> =>
    Effect.catch(call(targets[index]!), afterFailure(index, retry))

  return go(0, 0)
}

const statusOf = (error: ProviderError) => error.reason._tag === "UpstreamStatus" ? error.reason.status : undefined
