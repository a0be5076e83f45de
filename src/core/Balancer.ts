/**
 * Load balancing over a balanced route's targets (a routing file's `targets:`). Each request orders the
 * route's targets afresh: the one its session answered on last (so that target's prompt cache stays
 * warm), else one drawn by weight, then the others by weight as backups. A session's draw is a weighted
 * rendezvous hash of its id, so every instance, and this one after a restart, sends a new session's
 * requests to the same target without sharing any state; a request without a session draws at random.
 *
 * A target whose circuit is open, or that answered 429 (or sent `Retry-After`) until that wait is over,
 * rests: it goes to the end of the chain, after the fallbacks, tried only when everything else failed.
 * Other chains (no balanced route) pass through untouched, at no cost.
 */
import { Context, Effect, Layer } from "effect"
import { Metrics } from "../observability/Metrics.ts"
import type { ProviderError } from "../providers/ProviderError.ts"
import { sameGroup, type Target } from "../providers/Providers.ts"
import { TargetBreaker, targetKey } from "./TargetBreaker.ts"

/** How long a target that answered 429 without saying how long to wait rests. */
export const DEFAULT_REST_MS = 1_000

/** Sessions whose last target is remembered; the least recently used beyond this are forgotten. */
const MAX_SESSIONS = 10_000

/** FNV-1a over the text, as a number in (0, 1): the session's stable draw for one target. */
const unitHash = (text: string): number => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  // a final avalanche, so ids differing in their last character spread over the whole range
  hash ^= hash >>> 16
  hash = Math.imul(hash, 0x85ebca6b)
  hash ^= hash >>> 13
  return ((hash >>> 0) + 0.5) / 4_294_967_296
}

/**
 * Orders a route's targets by `ln(u) / weight`, highest first (Efraimidis-Spirakis): the first is drawn
 * with probability proportional to its weight, and so is each next among the rest.
 */
const byWeight = (members: ReadonlyArray<Target>, draw: (target: Target) => number): ReadonlyArray<Target> =>
  members
    .map((target) => ({ target, key: Math.log(draw(target)) / target.balance!.weight }))
    .sort((a, b) => b.key - a.key)
    .map(({ target }) => target)

export interface BalancerShape {
  /** The chain in the order to try it for this request; a chain with no balanced route as it is. */
  readonly order: (targets: ReadonlyArray<Target>, sessionId: string | null | undefined) => ReadonlyArray<Target>
  /** One call of `target`, watched: a balanced target's outcome is counted, remembered and rested on. */
  readonly watch: <A, R>(
    target: Target,
    sessionId: string | null | undefined,
    call: Effect.Effect<A, ProviderError, R>
  ) => Effect.Effect<A, ProviderError, R>
}

export interface BalancerOptions {
  /** A number in [0, 1) for a request without a session; `Math.random` unless a test fixes it. */
  readonly random?: (() => number) | undefined
  readonly now?: (() => number) | undefined
}

export const makeBalancer = (
  breaker: Pick<typeof TargetBreaker.Service, "isOpen">,
  metrics: Pick<typeof Metrics.Service, "targetCall" | "balancedPick">,
  options: BalancerOptions = {}
): BalancerShape => {
  const random = options.random ?? Math.random
  const now = options.now ?? Date.now
  /** Until when a target rests, by its key. */
  const restingUntil = new Map<string, number>()
  /** A session's last answering target per route, by `route \0 session`; in order of last use. */
  const lastTarget = new Map<string, string>()

  const rests = (target: Target, at: number) => {
    if (breaker.isOpen(target)) return true
    const until = restingUntil.get(targetKey(target))
    return until !== undefined && until > at
  }

  const arrange = (members: ReadonlyArray<Target>, sessionId: string | null | undefined) => {
    if (sessionId === undefined || sessionId === null || sessionId === "") {
      return byWeight(members, () => Math.max(Number.MIN_VALUE, random()))
    }
    const ordered = byWeight(members, (target) => unitHash(`${sessionId}\u0000${targetKey(target)}`))
    const last = lastTarget.get(`${members[0]!.balance!.route}\u0000${sessionId}`)
    const kept = last === undefined ? -1 : ordered.findIndex((target) => targetKey(target) === last)
    return kept <= 0 ? ordered : [ordered[kept]!, ...ordered.filter((_, i) => i !== kept)]
  }

  const order: BalancerShape["order"] = (targets, sessionId) => {
    if (!targets.some((target) => target.balance !== undefined)) return targets
    const at = now()
    const ready: Array<Target> = []
    const resting: Array<Target> = []
    for (let i = 0; i < targets.length;) {
      const first = targets[i]!
      let end = i + 1
      while (sameGroup(first, targets[end])) end++
      if (first.balance === undefined) {
        ready.push(first)
      } else {
        const usable: Array<Target> = []
        for (let j = i; j < end; j++) (rests(targets[j]!, at) ? resting : usable).push(targets[j]!)
        const arranged = arrange(usable, sessionId)
        if (arranged.length > 0) metrics.balancedPick(first.balance.route, targetKey(arranged[0]!))
        ready.push(...arranged)
      }
      i = end
    }
    return resting.length === 0 ? ready : [...ready, ...resting]
  }

  const remember = (target: Target, sessionId: string) => {
    const key = `${target.balance!.route}\u0000${sessionId}`
    lastTarget.delete(key)
    lastTarget.set(key, targetKey(target))
    if (lastTarget.size > MAX_SESSIONS) lastTarget.delete(lastTarget.keys().next().value!)
  }

  const failed = (target: Target, error: ProviderError) => {
    const key = targetKey(target)
    const reason = error.reason
    if (reason._tag === "TargetOpen") return metrics.targetCall(key, "skipped")
    const asked = reason._tag === "UpstreamStatus" ? reason.retryAfterMs : undefined
    const limited = reason._tag === "UpstreamStatus" && reason.status === 429
    if (limited || asked !== undefined) {
      restingUntil.set(key, Math.max(restingUntil.get(key) ?? 0, now() + (asked ?? DEFAULT_REST_MS)))
    }
    metrics.targetCall(key, limited ? "rate_limited" : "failed")
  }

  const watch: BalancerShape["watch"] = (target, sessionId, call) =>
    target.balance === undefined ? call : call.pipe(
      Effect.tap(() =>
        Effect.sync(() => {
          metrics.targetCall(targetKey(target), "ok")
          if (sessionId !== undefined && sessionId !== null && sessionId !== "") remember(target, sessionId)
        })
      ),
      Effect.tapError((error) => Effect.sync(() => failed(target, error)))
    )

  return { order, watch }
}

export class Balancer extends Context.Service<Balancer, BalancerShape>()("svc-gateway/Balancer") {
  static readonly layer: Layer.Layer<Balancer, never, TargetBreaker | Metrics> = Layer.effect(
    Balancer,
    Effect.gen(function*() {
      return Balancer.of(makeBalancer(yield* TargetBreaker, yield* Metrics))
    })
  )
}
